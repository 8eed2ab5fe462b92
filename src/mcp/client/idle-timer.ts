/** Idle timer interface: a restartable one-shot deadline. */
export interface IdleTimer {
  /** Starts the deadline over from now. */
  arm(): void;
  /** Stops the deadline until the next `arm`. */
  disarm(): void;
}

/**
 * Creates an idle timer: `onExpire` runs once `ms` pass without an `arm` or `disarm`.
 *
 * @param ms The deadline in milliseconds.
 * @param onExpire What to do when it passes.
 * @returns The timer, initially disarmed.
 */
export function createIdleTimer(ms: number, onExpire: () => void): IdleTimer {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const disarm = () => {
    if (handle !== undefined) clearTimeout(handle);
    handle = undefined;
  };
  return {
    arm() {
      disarm();
      handle = setTimeout(() => {
        handle = undefined;
        onExpire();
      }, ms);
    },
    disarm,
  };
}
