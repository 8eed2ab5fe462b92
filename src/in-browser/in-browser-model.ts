// What the in-browser adapters share (`docs/design.md`, "In-browser models"): one load per
// model however many turns wait for it, progress as events to any number of listeners, and the
// turn as a `ReadableStream<ModelEvent>` that turns every failure into a `ModelError`.
import { EventEmitter } from "eventemitter3";
import { raceSignal } from "../abort.ts";
import { errorText } from "../errors.ts";
import type {
  Model,
  ModelEvent,
  ModelRequest,
  ModelStreamOptions,
  ModelTool,
} from "../models/model.ts";
import { cancelled, isModelError, ModelError, type ModelErrorData } from "../models/model-error.ts";
import { openAIDecoder } from "../models/openai-compatible.ts";
import {
  createToolCallParser,
  parseToolCalls,
  type ToolCallFormat,
  type ToolCallTextPart,
} from "../models/tool-call-text.ts";

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
   * tried again on the next call. Call it before an `Agent` run: a first turn that has to
   * download the model sends no event meanwhile, and the agent ends a turn that stays silent for
   * its `modelIdleTimeoutMs` (5 minutes by default).
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
  /** The adapter's name (`prompt-api`, `web-llm`, `wllama`), for errors and as
   * `Model.provider`: the page serves the model, no provider the GenAI conventions name. */
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
    provider,
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

/** Returns a runtime failure as a `ModelError`: `context_overflow` when the prompt did not fit
 * the context window (llama.cpp: "exceeds the available context size"), else
 * `invalid_response`, with the runtime's message. */
export function runtimeFailure(provider: string, error: unknown): ModelError {
  const message = errorText(error);
  const type = /exceeds the available context size|context (window|length) exceeded/i.test(message)
    ? "context_overflow"
    : "invalid_response";
  return new ModelError({ type, provider, message }, { cause: error });
}

/**
 * Decodes a runtime's OpenAI-style chat completion chunks (wllama, WebLLM) into model events.
 * Text passes through `createToolCallParser`, so a call the runtime left in the text becomes a
 * `tool_call`; with `forced`, the whole answer is the JSON of one call.
 */
export async function decodeChatChunks(
  chunks: AsyncIterable<unknown>,
  options: {
    provider: string;
    forced: boolean;
    formats?: readonly ToolCallFormat[];
    signal: AbortSignal;
    emit: (event: ModelEvent) => void;
  },
): Promise<void> {
  const { provider, forced, emit } = options;
  const decoder = openAIDecoder([]);
  const splitter = createToolCallParser(options.formats ? { formats: options.formats } : {});
  let forcedText = "";
  let usage: ModelEvent | undefined;
  let finish: Extract<ModelEvent, { type: "finish" }> | undefined;
  let calls = 0;
  const out = (event: ModelEvent) => {
    switch (event.type) {
      case "text_delta":
        if (forced) forcedText += event.text;
        else for (const part of splitter.push(event.text)) emitPart(part, emit);
        return;
      case "usage":
        usage = event;
        return;
      case "finish":
        finish = event;
        return;
      case "tool_call":
        calls++;
        emit(event);
        return;
      default:
        emit(event);
    }
  };
  try {
    for await (const chunk of chunks) {
      decoder.event({ event: "message", data: JSON.stringify(chunk), id: "" }, out);
    }
    decoder.event({ event: "message", data: "[DONE]", id: "" }, out);
  } catch (error) {
    if (options.signal.aborted) throw error;
    // The decoder names the wire format; the failure is this runtime's.
    throw isModelError(error)
      ? new ModelError({ ...error.data, provider } as ModelErrorData, { cause: error })
      : runtimeFailure(provider, error);
  }
  let reason = finish?.reason ?? "stop";
  if (forced) {
    const call = parseToolCalls(forcedText.trim(), { formats: ["llama3"] }).calls[0];
    if (call) {
      emit({ type: "tool_call", id: `call_${++calls}`, ...call });
      reason = "tool_calls";
    } else if (forcedText) emit({ type: "text_delta", text: forcedText });
  } else {
    const end = splitter.end();
    for (const part of end.parts) emitPart(part, emit);
    for (const call of end.calls) emit({ type: "tool_call", id: `call_${++calls}`, ...call });
    if (end.calls.length > 0 && reason === "stop") reason = "tool_calls";
  }
  if (usage) emit(usage);
  emit({ type: "finish", reason });
}

/** Emits one piece of split text as a text or reasoning delta. */
export function emitPart(part: ToolCallTextPart, emit: (event: ModelEvent) => void): void {
  if (part.text === "") return;
  emit({ type: part.type === "text" ? "text_delta" : "reasoning_delta", text: part.text });
}

/** Returns the JSON Schema of one call of the given tools: `{name, arguments}`, one variant
 * per tool. */
export function callSchema(tools: readonly ModelTool[]): object {
  const variants = tools.map((tool) => ({
    type: "object",
    properties: { name: { const: tool.name }, arguments: tool.inputSchema },
    required: ["name", "arguments"],
    additionalProperties: false,
  }));
  return variants.length === 1 ? (variants[0] as object) : { anyOf: variants };
}
