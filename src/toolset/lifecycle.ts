import { isToolError, ToolError } from "../errors.ts";

/** A live call the lifecycle must stop at shutdown. */
export interface LiveCall {
  /** Rejects the call's in-flight step with `closed` and cancels its backend work. */
  close(): void;
  /** Links of the lifecycle's list of live calls; owned by the lifecycle. */
  prev?: LiveCall | undefined;
  next?: LiveCall | undefined;
  tracked?: boolean;
}

/**
 * Lifecycle interface: the admission gate and exactly-once cleanup shared by every user of one
 * toolset.
 */
export interface Lifecycle {
  /** Whether shutdown has started; nothing is admitted after that. */
  readonly sealed: boolean;
  /** Runs a root operation if admission is open, tracking it so cleanup waits for it. */
  admit<T>(operation: string, run: () => Promise<T>): Promise<T>;
  /** Tracks a call with running work until `release`. */
  track(call: LiveCall): void;
  /** Stops tracking a call that has finished. */
  release(call: LiveCall): void;
  /** Seals admission, closes live calls, waits for admitted operations, cleans up once. */
  shutdown(): Promise<void>;
}

/**
 * Creates a lifecycle around a cleanup function. Every `shutdown()` call, concurrent or
 * repeated, returns the same promise, so all callers see the same outcome.
 *
 * @param cleanup The backend's own shutdown, run at most once.
 * @returns The lifecycle.
 */
export function createLifecycle(cleanup: () => Promise<void>): Lifecycle {
  let sealed = false;
  let outcome: Promise<void> | undefined;
  // Hint: a counter, not a set of promises, keeps admission cheap on the per-call hot path.
  let admitted = 0;
  let drained: (() => void) | undefined;
  // Hint: an intrusive list: tracking every call through a Set cost more than the rest of admission.
  let head: LiveCall | undefined;
  return {
    get sealed() {
      return sealed;
    },
    async admit(operation, run) {
      if (sealed) throw new ToolError({ type: "closed", operation });
      admitted++;
      try {
        return await run();
      } finally {
        if (--admitted === 0) drained?.();
      }
    },
    track(call) {
      if (call.tracked) return;
      call.tracked = true;
      call.prev = undefined;
      call.next = head;
      if (head) head.prev = call;
      head = call;
    },
    release(call) {
      if (!call.tracked) return;
      call.tracked = false;
      if (call.prev) call.prev.next = call.next;
      else head = call.next;
      if (call.next) call.next.prev = call.prev;
      call.prev = undefined;
      call.next = undefined;
    },
    shutdown() {
      outcome ??= (async () => {
        sealed = true;
        let call = head;
        head = undefined;
        while (call) {
          const next: LiveCall | undefined = call.next;
          call.tracked = false;
          call.prev = undefined;
          call.next = undefined;
          call.close();
          call = next;
        }
        if (admitted > 0) await new Promise<void>((resolve) => (drained = resolve));
        try {
          await cleanup();
        } catch (error) {
          if (isToolError(error)) throw error;
          throw new ToolError(
            {
              type: "transport",
              message: `shutdown failed: ${error instanceof Error ? error.message : String(error)}`,
            },
            { cause: error },
          );
        }
      })();
      return outcome;
    },
  };
}
