import { cancelledError } from "../../abort.ts";
import { ToolError } from "../../errors.ts";

/**
 * Returns the outcome of `run`, given a signal that aborts with `timeout` after `timeoutMs` or
 * with `cancelled` when the caller's signal aborts. The timer and listener are removed either way.
 *
 * @param label The operation named in the errors.
 * @param timeoutMs The deadline in milliseconds.
 * @param run The work, which must pass the signal to its exchanges.
 * @param options `signal`: the caller's signal.
 * @returns What `run` returns.
 * @throws ToolError `timeout` or `cancelled` through the signal, or whatever `run` throws.
 */
export async function withDeadline<T>(
  label: string,
  timeoutMs: number,
  run: (signal: AbortSignal) => Promise<T>,
  options: { signal?: AbortSignal } = {},
): Promise<T> {
  const { signal } = options;
  if (signal?.aborted) throw cancelledError(label, signal);
  const controller = new AbortController();
  const timer = setTimeout(() => {
    const timeoutSecs = timeoutMs / 1000;
    controller.abort(new ToolError({ type: "timeout", tool: label, timeoutSecs }));
  }, timeoutMs);
  const onAbort = () => controller.abort(cancelledError(label, signal as AbortSignal));
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await run(controller.signal);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
