import { ToolError } from "../errors.ts";

/**
 * Returns the `cancelled` error for an aborted signal, keeping the abort reason as `cause`.
 *
 * @param tool The tool whose call was stopped.
 * @param signal The aborted signal.
 * @returns The error.
 */
export function cancelledError(tool: string, signal: AbortSignal): ToolError {
  const reason = signal.reason;
  if (reason instanceof ToolError && reason.type === "cancelled") return reason;
  const text =
    reason instanceof Error ? reason.message : typeof reason === "string" ? reason : undefined;
  return new ToolError(
    text === undefined ? { type: "cancelled", tool } : { type: "cancelled", tool, reason: text },
    { cause: reason },
  );
}

/**
 * Returns a promise that settles like `promise`, or rejects with `cancelled` as soon as
 * `signal` aborts. The listener is removed either way.
 *
 * @param promise The work to wait for.
 * @param tool The tool named in the error.
 * @param signal The caller's signal, if any.
 * @returns The guarded promise.
 */
export function raceAbort<T>(
  promise: Promise<T>,
  tool: string,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(cancelledError(tool, signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelledError(tool, signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
