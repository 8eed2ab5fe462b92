import { JSON_RPC_ERROR, type JsonRpcMessage, jsonRpcError } from "../json-rpc.ts";

/**
 * Returns a message as JSON text. A value JSON cannot hold (a cycle, a `BigInt`, nesting deeper
 * than the engine's stack) never escapes as an exception: a response becomes an internal error
 * for the same id, and any other message gives `undefined`, to be dropped.
 *
 * @param message The message.
 * @returns Its JSON text, or `undefined`.
 */
export function messageText(message: JsonRpcMessage): string | undefined {
  try {
    return JSON.stringify(message);
  } catch (error) {
    if (!("id" in message) || "method" in message) return undefined;
    const why = error instanceof Error ? error.message : String(error);
    const fallback = jsonRpcError(
      message.id,
      JSON_RPC_ERROR.internalError,
      `Internal error: the answer is not JSON-serialisable (${why})`,
    );
    return JSON.stringify(fallback);
  }
}

/**
 * Creates a JSON response carrying one message (see `messageText` for one JSON cannot hold).
 *
 * @param body The message.
 * @param status The HTTP status.
 * @param headers Extra headers (CORS, session id).
 * @returns The response.
 */
export function jsonResponse(body: JsonRpcMessage, status: number, headers: Headers): Response {
  const response = new Response(messageText(body) ?? "", { status, headers });
  // Hint: setting on the response's own copy saves building a second Headers per answer.
  response.headers.set("content-type", "application/json");
  return response;
}

/** No extra headers: for answers to requests that are refused before CORS applies. */
export const NO_HEADERS: Headers = new Headers();

/**
 * Creates an HTTP error response whose body is a JSON-RPC error with id `null`, as the
 * Streamable HTTP transport suggests, so clients that only read JSON-RPC still see why.
 *
 * @param status The HTTP status (400, 401, 403, 404, 405, 406, 413, 415, ...).
 * @param message What went wrong.
 * @param headers Extra headers.
 * @returns The response.
 */
export function httpError(status: number, message: string, headers: Headers): Response {
  const code = status >= 500 ? JSON_RPC_ERROR.internalError : JSON_RPC_ERROR.invalidRequest;
  return jsonResponse(jsonRpcError(null, code, message), status, headers);
}
