import { ToolError, type ToolErrorInput } from "./errors.ts";

// The one way toolwire races work against an `AbortSignal` (see `docs/design.md`, "Tools and
// toolsets", T9): the listener is added once and removed when either side settles, so a
// long-lived signal never collects listeners.

/**
 * Settles like `promise`, or rejects as soon as `signal` aborts, with what `reason` returns
 * (the signal's own reason by default). Without a signal it is `promise` itself.
 */
export function raceSignal<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  reason: (signal: AbortSignal) => unknown = (s) => s.reason,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // The work may still settle; its rejection must not surface as unhandled.
    promise.catch(() => {});
    return Promise.reject(reason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Returns the `cancelled` error for an aborted signal: a `cancelled` `ToolError` reason as is,
 * otherwise a new one naming `tool`, with an `Error`'s message or a string reason as `reason`
 * and the original reason as `cause`.
 *
 * @example
 * ```ts
 * if (signal.aborted) throw cancelledError("search", signal);
 * ```
 */
export function cancelledError(tool: string, signal: AbortSignal): ToolError {
  const reason = signal.reason;
  if (reason instanceof ToolError && reason.type === "cancelled") return reason;
  return cancelledCall(tool, reason instanceof Error ? reason.message : reason, { cause: reason });
}

/**
 * Returns the `cancelled` error for a call of `tool`, with `reason` when it is a string (a
 * handler's `cancel` step passes what its caller sent).
 */
export function cancelledCall(
  tool: string,
  reason: unknown,
  options?: { cause?: unknown },
): ToolError {
  // The constructor drops an undefined field, so `reason` stays absent unless it is a string.
  const text = typeof reason === "string" ? reason : undefined;
  return new ToolError({ type: "cancelled", tool, reason: text } as ToolErrorInput, options);
}
