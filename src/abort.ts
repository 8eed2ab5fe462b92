import { ToolError, type ToolErrorInput } from "./errors.ts";

// The one way toolwire races work against an `AbortSignal` (see `docs/design.md`, "Tools and
// toolsets", T9): the listener is added once and removed when either side settles, so a
// long-lived signal never collects listeners. Every race on one signal shares a single
// platform listener that fans out, so a turn of 500 parallel calls adds one listener to the
// run's signal, not 500 (Node warns past 10).

// Per signal: its watchers, and the one platform listener that calls them.
const fanOuts = new WeakMap<AbortSignal, [Set<() => void>, () => void]>();

/**
 * Calls `callback` (which must not throw) once when `signal`, not yet aborted, aborts,
 * through the signal's one shared listener. Returns the function that stops watching; the
 * shared listener goes once nobody watches.
 */
export function watchAbort(signal: AbortSignal, callback: () => void): () => void {
  let fanOut = fanOuts.get(signal);
  if (!fanOut) {
    const callbacks = new Set<() => void>();
    const fire = () => {
      fanOuts.delete(signal);
      for (const each of callbacks) each();
    };
    fanOut = [callbacks, fire];
    fanOuts.set(signal, fanOut);
    signal.addEventListener("abort", fire, { once: true });
  }
  const [callbacks, fire] = fanOut;
  // A fresh function per watch, so the same callback watched twice is stopped independently.
  const entry = () => callback();
  callbacks.add(entry);
  return () => {
    if (!callbacks.delete(entry) || callbacks.size > 0) return;
    signal.removeEventListener("abort", fire);
    fanOuts.delete(signal);
  };
}

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
    const stop = watchAbort(signal, () => reject(reason(signal)));
    promise.then(resolve, reject).finally(stop);
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
