/**
 * Returns a promise that settles like `promise`, or rejects with the signal's reason as soon as
 * it aborts. A custom `fetch` (or the body it returns) may ignore the signal; the caller must not
 * hang on it.
 *
 * @param promise The work.
 * @param options `signal`: the abort to watch.
 * @returns The guarded promise; the listener is removed either way.
 */
export function untilAborted<T>(
  promise: Promise<T>,
  options: { signal?: AbortSignal },
): Promise<T> {
  const { signal } = options;
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
