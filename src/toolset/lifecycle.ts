import { isToolError, ToolError } from "../errors.ts";

/** A live call the lifecycle must stop at shutdown. */
export interface LiveCall {
  /** Rejects the call's in-flight step with `closed` and cancels its backend work. */
  close(): void;
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
  const admitted = new Set<Promise<unknown>>();
  const live = new Set<LiveCall>();
  return {
    get sealed() {
      return sealed;
    },
    admit(operation, run) {
      if (sealed) return Promise.reject(new ToolError({ type: "closed", operation }));
      const running = Promise.resolve().then(run);
      const settled: Promise<unknown> = running.then(
        () => admitted.delete(settled),
        () => admitted.delete(settled),
      );
      admitted.add(settled);
      return running;
    },
    track: (call) => void live.add(call),
    release: (call) => void live.delete(call),
    shutdown() {
      outcome ??= (async () => {
        sealed = true;
        for (const call of live) call.close();
        live.clear();
        await Promise.all(admitted);
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
