import { isToolError, ToolError } from "../../errors.ts";
import { cancelledError } from "../../toolset/cancelled-error.ts";

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
 * Returns a thrown value's message.
 *
 * @param error The thrown value.
 * @returns Its message.
 */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
