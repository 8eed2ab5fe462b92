// What the in-browser adapters share (`docs/design.md`, "In-browser models"): one load per
// model however many turns wait for it, progress as events to any number of listeners, and the
// turn as a `ReadableStream<ModelEvent>` that turns every failure into a `ModelError`.
import EventEmitter from "eventemitter3";
import { raceSignal } from "../abort.ts";
import { errorText } from "../errors.ts";
import type { Model, ModelEvent, ModelRequest, ModelStreamOptions } from "../models/model.ts";
import { cancelled, isModelError, ModelError } from "../models/model-error.ts";

/**
 * Load progress event: the stages of getting a model ready, in order.
 *
 * - `download`: bytes fetched so far and in all (`total` is 0 while unknown). A model read from
 *   the browser's cache reports it too, quickly.
 * - `initialize`: the runtime prepares the model (compiling WebAssembly or shaders, reading the
 *   weights into memory); `progress` is 0–1 when the runtime reports it, `text` its own words.
 * - `ready`: the model answers now.
 */
export type LoadProgressEvent =
  | { type: "download"; loaded: number; total: number }
  | { type: "initialize"; progress?: number; text?: string }
  | { type: "ready" };

/** Options of `InBrowserModel.load`. */
export interface LoadOptions {
  /** Stops waiting for the load (the error is `ModelError` `cancelled`); a download that other
   * turns wait for goes on. */
  signal?: AbortSignal;
}

/**
 * A `Model` that runs in the page: its weights are fetched (or read from the browser's cache)
 * and initialised once, on `load()` or on the first `stream()`.
 */
export interface InBrowserModel extends Model {
  /**
   * Gets the model ready, once: later calls share the first one's outcome, and a failed load is
   * tried again on the next call.
   *
   * @throws ModelError `unsupported` when this browser or device cannot run it, `http` when a
   * download fails, `cancelled` when `signal` aborts the wait.
   */
  load(options?: LoadOptions): Promise<void>;
  /** Frees the model's memory; the next turn loads it again. */
  unload(): Promise<void>;
  /**
   * Listens to load progress. Any number of listeners; each gets every later event.
   *
   * @returns A function that removes the listener.
   */
  onProgress(listener: (event: LoadProgressEvent) => void): () => void;
}

/** What one adapter supplies to `inBrowserModel`. */
export interface InBrowserRuntime<R> {
  provider: string;
  id: string;
  contextWindow: number | undefined;
  /** Loads the runtime and the model; reports progress through `progress`. */
  load(progress: (event: LoadProgressEvent) => void): Promise<R>;
  unload(runtime: R): Promise<void>;
  /** Runs one turn, emitting its events in the order `ModelEvent` documents. */
  turn(
    runtime: R,
    request: ModelRequest,
    signal: AbortSignal,
    emit: (event: ModelEvent) => void,
  ): Promise<void>;
  /** Turns a runtime's own failure into a `ModelError` (the signal is checked first). */
  error(error: unknown): ModelError;
}

/** Creates an `InBrowserModel` from an adapter's load and turn. */
/* @__NO_SIDE_EFFECTS__ */
export function inBrowserModel<R>(runtime: InBrowserRuntime<R>): InBrowserModel {
  const { provider } = runtime;
  const events = new EventEmitter<{ progress: [LoadProgressEvent] }>();
  let loading: Promise<R> | undefined;
  const emitProgress = (event: LoadProgressEvent) => events.emit("progress", event);
  const loaded = (signal: AbortSignal | undefined): Promise<R> => {
    if (!loading) {
      const attempt = runtime
        .load(emitProgress)
        .then((r) => {
          emitProgress({ type: "ready" });
          return r;
        })
        .catch((error: unknown) => {
          // A failed load is forgotten, so the next turn tries again.
          if (loading === attempt) loading = undefined;
          throw isModelError(error) ? error : runtime.error(error);
        });
      loading = attempt;
    }
    return raceSignal(loading, signal, (s) => cancelled(provider, s.reason));
  };
  const stream = (request: ModelRequest, options: ModelStreamOptions = {}) => {
    const own = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, own.signal]) : own.signal;
    return new ReadableStream<ModelEvent>({
      start(controller) {
        // Not awaited: the stream hands out events while the turn runs.
        void (async () => {
          try {
            signal.throwIfAborted();
            const r = await loaded(signal);
            await runtime.turn(r, request, signal, (event) => {
              if (!signal.aborted) controller.enqueue(event);
            });
            signal.throwIfAborted();
            controller.close();
          } catch (error) {
            if (own.signal.aborted) return; // the reader cancelled: nobody is listening
            controller.error(
              signal.aborted
                ? cancelled(provider, signal.reason)
                : isModelError(error)
                  ? error
                  : runtime.error(error),
            );
          }
        })();
      },
      cancel(reason) {
        own.abort(reason);
      },
    });
  };
  const model: InBrowserModel = {
    id: runtime.id,
    stream,
    load: async (options = {}) => {
      if (options.signal?.aborted) throw cancelled(provider, options.signal.reason);
      await loaded(options.signal);
    },
    unload: async () => {
      const current = loading;
      loading = undefined;
      if (!current) return;
      const r = await current.catch(() => undefined);
      if (r !== undefined) await runtime.unload(r);
    },
    onProgress: (listener) => {
      events.on("progress", listener);
      return () => events.off("progress", listener);
    },
  };
  if (runtime.contextWindow !== undefined) model.contextWindow = runtime.contextWindow;
  return model;
}

/** Returns the `unsupported` error naming what this browser or device lacks. */
export function unsupported(provider: string, missing: string, message: string, cause?: unknown) {
  return new ModelError({ type: "unsupported", provider, missing, message }, { cause });
}

/** Returns a runtime failure as `invalid_response`, with its message. */
export function runtimeFailure(provider: string, error: unknown): ModelError {
  return new ModelError(
    { type: "invalid_response", provider, message: errorText(error) },
    { cause: error },
  );
}
