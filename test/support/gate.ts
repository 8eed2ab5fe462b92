/**
 * A promise a test opens by hand, to hold a fake's work in flight at a known
 * point and release it later.
 */
export interface Gate {
  /** Whether `open()` has been called. */
  readonly opened: boolean;
  /** Releases every waiter, now and later. */
  open(): void;
  /** Resolves once the gate is open. */
  wait(): Promise<void>;
}

/**
 * A closed gate, or an open one.
 *
 * @param opened Whether it starts open.
 * @returns The gate.
 */
export function createGate(opened = false): Gate {
  let release: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  let isOpen = opened;
  if (opened) release();
  return {
    get opened() {
      return isOpen;
    },
    open() {
      isOpen = true;
      release();
    },
    wait: () => promise,
  };
}
