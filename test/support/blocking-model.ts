import type { Model, ModelEvent, ModelRequest } from "../../src/models/model.ts";
import { createGate, type Gate } from "./gate.ts";

/** A model whose stream sends some text, then blocks until cancelled. */
export interface BlockingModel extends Model {
  /** Opens once the stream has sent its text and is blocked. */
  readonly blocked: Gate;
  /** Whether the stream's `cancel` was called (what aborts a real adapter's `fetch`). */
  readonly cancelled: boolean;
  /** The signal the loop passed to `stream`. */
  readonly signal: AbortSignal | undefined;
  /** Every request, in order. */
  readonly requests: ModelRequest[];
}

/**
 * Creates a model that streams `text` and then never finishes, and ignores its signal, so only
 * cancelling the stream's reader can stop it.
 *
 * @param text The partial text sent before blocking.
 * @returns The model and what it observed.
 */
export function createBlockingModel(text: string): BlockingModel {
  const blocked = createGate();
  const requests: ModelRequest[] = [];
  let cancelled = false;
  let seen: AbortSignal | undefined;
  return {
    id: "blocking",
    blocked,
    requests,
    get cancelled() {
      return cancelled;
    },
    get signal() {
      return seen;
    },
    stream(request, options) {
      requests.push(request);
      seen = options?.signal;
      let sent = false;
      return new ReadableStream<ModelEvent>({
        pull(controller) {
          if (!sent) {
            sent = true;
            controller.enqueue({ type: "text_delta", text });
            return;
          }
          blocked.open();
          return new Promise<void>(() => {});
        },
        cancel() {
          cancelled = true;
        },
      });
    },
  };
}
