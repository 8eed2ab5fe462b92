import { cancelledError } from "../../abort.ts";
import { isToolError, ToolError } from "../../errors.ts";
import type { JsonRpcErrorObject } from "../json-rpc.ts";
import { untilAborted } from "./until-aborted.ts";

/**
 * Returns the `ToolError` for a failed exchange: the signal's reason when it aborted (a
 * `ToolError` as is, anything else as `cancelled`), a `ToolError` as is, else `transport`.
 *
 * @param error What was thrown.
 * @param options The exchange's signal and the tool or operation to name.
 * @returns The error to throw.
 */
export function sessionError(
  error: unknown,
  options: { signal?: AbortSignal; label: string },
): ToolError {
  const { signal, label } = options;
  if (signal?.aborted) {
    return isToolError(signal.reason) ? signal.reason : cancelledError(label, signal);
  }
  if (isToolError(error)) return error;
  return new ToolError(
    { type: "transport", tool: label, message: describeError(error) },
    { cause: error },
  );
}

/**
 * Creates a `protocol` error: the server answered, but not as MCP says it must.
 *
 * @param message What was wrong.
 * @returns The error.
 */
export function protocolError(message: string): ToolError {
  return new ToolError({ type: "protocol", message });
}

/**
 * Creates the `protocol` error for a JSON-RPC error response, naming the server's message and
 * code.
 *
 * @param method The method that failed.
 * @param error The response's `error` member.
 * @param note Appended to the code, e.g. `" with id null"` for an answer the server could not
 * match to a request.
 * @returns The error.
 */
export function rpcFailure(method: string, error: JsonRpcErrorObject, note: string): ToolError {
  return protocolError(`${method} failed: ${error.message} (JSON-RPC error ${error.code}${note})`);
}

/**
 * Returns parsed JSON text from the server.
 *
 * @param text The body or event data.
 * @returns The value.
 * @throws ToolError `protocol` when the text is not JSON.
 */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw protocolError(`the server sent invalid JSON${excerpt(text)}`);
  }
}

/**
 * Returns a thrown value's message, with its cause's when that adds something.
 *
 * @param error The thrown value.
 * @returns Its message.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // Hint: `fetch failed` alone hides why (refused, DNS, TLS); the cause says it.
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
}

/**
 * Returns `": <text>"` cut to 200 characters, or `""` for blank text, to append to a message.
 *
 * @param text Server-provided text.
 * @returns The suffix.
 */
export function excerpt(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return "";
  return `: ${trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed}`;
}

/**
 * Returns the `transport` error for an HTTP answer that is not 2xx, naming why: a redirect
 * (which the client never follows, so a body and headers never reach a host the caller did not
 * name), an expired session (404 once the server issued one; the client does not start a new
 * session by itself), or the status with an excerpt of the body and, for 401, 403 and 404, what
 * to check.
 *
 * @param response The answer.
 * @param options The exchange's signal, the tool or operation to name, and whether a 404 means
 * the session expired.
 * @returns The error to throw.
 */
export async function httpFailure(
  response: Response,
  options: { signal?: AbortSignal; label: string; expired: boolean },
): Promise<ToolError> {
  const { status } = response;
  const fail = (message: string) =>
    new ToolError({ type: "transport", tool: options.label, message });
  // Hint: a browser hides a manual redirect as an opaque answer with status 0.
  if ((response.type as string) === "opaqueredirect" || (status >= 300 && status < 400)) {
    response.body?.cancel().catch(() => {});
    const location = response.headers.get("location");
    const to = location ? ` to ${location}` : "";
    return fail(
      `the server redirected${to} (HTTP ${status || "3xx"}); redirects are not followed, so connect to the final URL`,
    );
  }
  if (status === 404 && options.expired) {
    response.body?.cancel().catch(() => {});
    return fail("the MCP session expired (HTTP 404); connect again for a new session");
  }
  const detail = await untilAborted(response.text(), options).catch(() => "");
  return fail(`HTTP ${status}${excerpt(detail)}${advice(status)}`);
}

// Hint: the statuses a user can fix on their side get a word on how.
function advice(status: number): string {
  if (status === 401 || status === 403) {
    return " (the server refused the credentials; pass them through `headers`)";
  }
  if (status === 404) return " (check the endpoint path in `url`)";
  return "";
}
