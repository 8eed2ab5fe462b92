import { JSON_RPC_ERROR, type JsonRpcMessage, jsonRpcError } from "../json-rpc.ts";

/**
 * Creates a JSON response.
 *
 * @param body The value to serialise.
 * @param status The HTTP status.
 * @param headers Extra headers (CORS, session id).
 * @returns The response.
 */
export function jsonResponse(
  body: JsonRpcMessage | Record<string, unknown>,
  status: number,
  headers: Headers,
): Response {
  const merged = new Headers(headers);
  merged.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers: merged });
}

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
