/**
 * Counting signal interface: an `AbortController` whose signal tracks the `abort` listeners
 * added to it and still registered, so a test can prove a run leaves none behind.
 */
export interface CountingSignal {
  /** The controller; abort it to cancel. */
  readonly controller: AbortController;
  /** The signal to hand to the code under test. */
  readonly signal: AbortSignal;
  /** How many `abort` listeners are registered now. */
  active(): number;
  /** How many `abort` listeners were ever added. */
  added(): number;
}

type Listener = EventListenerOrEventListenerObject;

/**
 * Creates a counting signal: `addEventListener` and `removeEventListener` are wrapped on the
 * signal instance, and a listener added with `once` counts as removed when the signal aborts
 * (the platform drops it without calling `removeEventListener`).
 *
 * Only the `abort` type and the listener identity are tracked, with the platform's rule
 * that adding the same listener twice registers it once; the `capture` flag is ignored since
 * nothing in the code under test uses it.
 *
 * @returns The controller, its signal and the counters.
 */
export function createCountingSignal(): CountingSignal {
  const controller = new AbortController();
  const signal = controller.signal;
  const registered = new Map<Listener, { once: boolean }>();
  let total = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  // Added first and through the original method, so it runs before any tracked listener
  // and is never counted itself.
  add("abort", () => {
    for (const [listener, { once }] of registered) if (once) registered.delete(listener);
  });
  signal.addEventListener = ((
    type: string,
    listener: Listener | null,
    options?: boolean | AddEventListenerOptions,
  ) => {
    if (!listener) return;
    if (type === "abort" && !registered.has(listener)) {
      const once = typeof options === "object" && options.once === true;
      // One added after the abort never fires, so even a `once` listener stays registered.
      registered.set(listener, { once });
      total += 1;
    }
    add(type, listener, options);
  }) as AbortSignal["addEventListener"];
  signal.removeEventListener = ((
    type: string,
    listener: Listener | null,
    options?: boolean | EventListenerOptions,
  ) => {
    if (!listener) return;
    if (type === "abort") registered.delete(listener);
    remove(type, listener, options);
  }) as AbortSignal["removeEventListener"];
  return {
    controller,
    signal,
    active: () => registered.size,
    added: () => total,
  };
}
