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
  readonly #inFlight = new Set<(error: ToolError) => void>();
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
   * @param options Progress listener for this step.
   * @returns The completed result or the pending interaction.
   * @throws ToolError `closed` after shutdown, else whatever the source's handler throws.
   */
  step(input: ToolHandlerInput, options?: StepOptions): Promise<ToolHandlerOutput> {
    if (this.#lifecycle.sealed)
      return Promise.reject(new ToolError({ type: "closed", operation: "step" }));
    if (input?.type === "invoke") this.#lifecycle.track(this.#live);
    return new Promise<ToolHandlerOutput>((resolve, reject) => {
      // Hint: shutdown rejects this promise directly, so a source that ignores `cancel` cannot hang the caller.
      this.#inFlight.add(reject);
      this.#backend.step(input, options).then(
        (output) => {
          this.#inFlight.delete(reject);
          if (output.type === "completed") this.#lifecycle.release(this.#live);
          resolve(output);
        },
        (error: unknown) => {
          this.#inFlight.delete(reject);
          if (!isToolError(error, "invalid_interaction")) this.#lifecycle.release(this.#live);
          reject(error);
        },
      );
    });
  }

  #close(): void {
    const error = new ToolError({ type: "closed", operation: "step" });
    for (const reject of this.#inFlight) reject(error);
    this.#inFlight.clear();
    // Hint: the source's own cancellation may fail or never settle; the caller already has its answer.
    this.#backend.step({ type: "cancel", reason: "the toolset shut down" }).catch(() => {});
  }
}
