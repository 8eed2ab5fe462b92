import { isToolError, ToolError } from "../errors.ts";
import type { ToolHandlerBackend } from "../execution/backend.ts";
import type { StepOptions, ToolHandlerInput, ToolHandlerOutput } from "../execution/handler-io.ts";
import type { Lifecycle, LiveCall } from "./lifecycle.ts";

/**
 * A handler for one call of one tool, bound to its toolset's lifecycle: once the toolset shuts
 * down, a step in flight rejects with `closed`, its backend work is cancelled, and every later
 * step fails with `closed` without reaching the backend.
 */
export class ToolHandler implements ToolHandlerBackend {
  readonly #backend: ToolHandlerBackend;
  readonly #lifecycle: Lifecycle;
  // Hint: an array, not a Set: it almost always holds one step, and a Set costs more to make.
  readonly #inFlight: ((error: ToolError) => void)[] = [];
  // Hint: whether the source last left the call waiting on a question; such a call is live too.
  #suspended = false;
  readonly #live: LiveCall = { close: () => this.#close() };

  /**
   * Creates a handler; use `Toolset.toolHandler` instead.
   *
   * @param backend The source's own handler.
   * @param lifecycle The owning toolset's lifecycle.
   */
  constructor(backend: ToolHandlerBackend, lifecycle: Lifecycle) {
    this.#backend = backend;
    this.#lifecycle = lifecycle;
  }

  /**
   * Performs one transition (see `ToolHandlerInput`).
   *
   * @param input `invoke`, `interaction` or `cancel`.
   * @param options Progress and log listeners for this step.
   * @returns The completed result or the pending interaction.
   * @throws ToolError `closed` after shutdown, `protocol` when the source returns something that
   * is not a step output, else whatever the source's handler throws.
   */
  step(input: ToolHandlerInput, options?: StepOptions): Promise<ToolHandlerOutput> {
    if (this.#lifecycle.sealed)
      return Promise.reject(new ToolError({ type: "closed", operation: "step" }));
    this.#lifecycle.track(this.#live);
    return new Promise<ToolHandlerOutput>((resolve, reject) => {
      // Hint: shutdown rejects this promise directly, so a source that ignores `cancel` cannot hang the caller.
      this.#inFlight.push(reject);
      let settled: Promise<ToolHandlerOutput>;
      try {
        settled = Promise.resolve(this.#backend.step(input, options));
      } catch (error) {
        settled = Promise.reject(error);
      }
      settled.then(
        (output) => {
          const type = (output as Partial<ToolHandlerOutput> | undefined)?.type;
          if (type === "completed" || type === "interaction") {
            this.#settled(reject, type === "interaction");
            resolve(output);
            return;
          }
          this.#settled(reject, false);
          reject(
            new ToolError({
              type: "protocol",
              message: `a tool handler returned ${JSON.stringify(type) ?? "no type"} instead of completed or interaction`,
            }),
          );
        },
        (error: unknown) => {
          // Hint: a rejected reply or a misused step leaves the call where it was.
          const unchanged =
            isToolError(error, "invalid_interaction") || isToolError(error, "unsupported");
          this.#settled(reject, unchanged && this.#suspended);
          reject(error);
        },
      );
    });
  }

  // The call stays tracked while a step is in flight or it waits on a question, so shutdown can
  // still cancel it; otherwise it is released, so finished calls never pile up.
  #settled(reject: (error: ToolError) => void, suspended: boolean): void {
    const inFlight = this.#inFlight;
    const index = inFlight.indexOf(reject);
    if (index >= 0) inFlight.splice(index, 1);
    this.#suspended = suspended;
    if (!suspended && inFlight.length === 0) this.#lifecycle.release(this.#live);
  }

  #close(): void {
    const error = new ToolError({ type: "closed", operation: "step" });
    for (const reject of this.#inFlight.splice(0)) reject(error);
    // Hint: the source's own cancellation may fail or never settle; the caller already has its answer.
    try {
      Promise.resolve(
        this.#backend.step({ type: "cancel", reason: "the toolset shut down" }),
      ).catch(() => {});
    } catch {
      // Hint: a source that throws synchronously on cancel has nothing left to stop.
    }
  }
}
