// The CPU path (`docs/design.md`, "In-browser models"): llama.cpp compiled to WebAssembly
// (wllama 3), loading a GGUF file into the page. `@wllama/wllama` is an optional peer, imported
// on the first load, so it is in no bundle that does not call `wllamaModel`.
//
// Tool calls are syntactically valid by construction. With `toolChoice` `auto` the tools go to
// llama.cpp, which renders them with the model's own chat template, constrains the call with a
// grammar built from the tools' JSON Schemas once the call opens, and parses it per template
// family; a call the template's parser left in the text is read by `parseToolCalls`. With
// `required` or a named tool the turn is decoded under a JSON Schema that admits only
// `{"name": <tool>, "arguments": <its schema>}`, so even a weak model cannot ramble instead.
import type { ModelEvent, ModelRequest, ModelSettings } from "../models/model.ts";
import { ModelError } from "../models/model-error.ts";
import { openAIMessages } from "../models/openai-compatible.ts";
import type { ToolCallFormat } from "../models/tool-call-text.ts";
import { credentialsOf, scrub } from "../redaction.ts";
import {
  callSchema,
  decodeChatChunks,
  type InBrowserModel,
  inBrowserModel,
  type LoadProgressEvent,
  runtimeFailure,
  unsupported,
} from "./in-browser-model.ts";

const PROVIDER = "wllama";

/**
 * Options of `wllamaModel`. The `ModelSettings` fields are sent as `temperature`, `top_p`,
 * `seed` and (through `extraBody`) anything else llama.cpp's chat completions take.
 */
export interface WllamaModelOptions extends ModelSettings {
  /**
   * The GGUF file: a URL (fetched once, then read from the browser's cache on later visits), or
   * the bytes as a `Blob`/`File` (a file the visitor picked, or bytes a test wrote).
   */
  model: string | Blob;
  /** The model's name; the URL's file name without `.gguf` by default, `"gguf"` for a Blob. */
  id?: string;
  /**
   * Where wllama's WebAssembly (about 10 MB) is fetched from. By default the copy on jsDelivr
   * that matches the installed `@wllama/wllama`; self-host it with your bundler, e.g. Vite's
   * `import wasmUrl from "@wllama/wllama/esm/wasm/wllama.wasm?url"`.
   */
  wasmUrl?: string;
  /** The context window in tokens (`n_ctx`), also reported for compaction; 4096 by default. */
  contextWindow?: number;
  /** CPU threads; wllama's default (half the cores) when absent. More than 1 needs a
   * cross-origin isolated page (COOP `same-origin` + COEP `require-corp`). */
  threads?: number;
  /** Default bound on generated tokens; 1024 by default. */
  maxTokens?: number;
  /** Formats of calls the template's parser may leave in the text; every format by default. */
  toolCallFormats?: readonly ToolCallFormat[];
  /** Whether a URL model is kept in the browser's cache for the next visit; `true` by default. */
  cache?: boolean;
}

// The slice of `@wllama/wllama` this adapter uses; the package's own types are structurally
// wider.
interface WllamaLike {
  loadModel(blobs: Blob[], params?: Record<string, unknown>): Promise<void>;
  loadModelFromUrl(url: string, params?: Record<string, unknown>): Promise<void>;
  createChatCompletion(params: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  exit(): Promise<void>;
}

/**
 * Creates a model that runs a GGUF file on the CPU in the page through wllama (llama.cpp in
 * WebAssembly). Needs `@wllama/wllama` 3 installed, and a browser with WebAssembly JSPI and
 * memory64 (Chromium 137 and later); the first `stream()` or `load()` fetches the runtime and
 * the model, with `onProgress` events.
 *
 * @param options The model file and settings.
 * @returns The model.
 * @throws ModelError `unsupported` (from `load`/`stream`) naming what this browser lacks.
 *
 * @example
 * ```ts
 * const model = wllamaModel({
 *   model: "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf",
 * });
 * model.onProgress((e) => e.type === "download" && console.log(e.loaded, e.total));
 * const agent = new Agent({ model, tools: [add] });
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function wllamaModel(options: WllamaModelOptions): InBrowserModel {
  const source = options.model;
  const id =
    options.id ??
    (typeof source === "string"
      ? (source.split(/[?#]/)[0]?.split("/").pop() ?? source).replace(/\.gguf$/i, "")
      : "gguf");
  const contextWindow = options.contextWindow ?? 4096;
  return inBrowserModel<WllamaLike>({
    provider: PROVIDER,
    id,
    contextWindow,
    load: (progress) => load(options, contextWindow, progress),
    unload: (w) => w.exit(),
    turn: (w, request, signal, emit) => turn(w, options, request, signal, emit),
    error: (error) => runtimeFailure(PROVIDER, error),
  });
}

async function load(
  options: WllamaModelOptions,
  contextWindow: number,
  progress: (event: LoadProgressEvent) => void,
): Promise<WllamaLike> {
  const missing = missingFeature();
  if (missing) throw unsupported(PROVIDER, missing.feature, missing.message);
  let runtime: typeof import("@wllama/wllama");
  try {
    runtime = await import("@wllama/wllama");
  } catch (error) {
    throw unsupported(
      PROVIDER,
      "@wllama/wllama",
      "install the optional peer @wllama/wllama",
      error,
    );
  }
  const wasmUrl =
    options.wasmUrl ?? (await import("@wllama/wllama/esm/wasm-from-cdn.js")).default.default;
  const quiet = { debug() {}, log() {}, warn() {}, error() {} };
  const w = new runtime.Wllama({ default: wasmUrl }, { suppressNativeLog: true, logger: quiet });
  const params: Record<string, unknown> = { n_ctx: contextWindow };
  if (options.threads !== undefined) params.n_threads = options.threads;
  try {
    if (typeof options.model === "string") {
      let initializing = false;
      await w.loadModelFromUrl(options.model, {
        ...params,
        useCache: options.cache ?? true,
        progressCallback: ({ loaded, total }: { loaded: number; total: number }) => {
          // wllama reports the complete file once more at the end; it is no news.
          if (initializing) return;
          progress({ type: "download", loaded, total });
          if (!initializing && total > 0 && loaded >= total) {
            initializing = true;
            progress({ type: "initialize" });
          }
        },
      });
    } else {
      progress({ type: "initialize" });
      await w.loadModel([options.model], params);
    }
  } catch (error) {
    await w.exit().catch(() => {});
    throw loadError(error, options.model);
  }
  return w as unknown as WllamaLike;
}

function missingFeature(): { feature: string; message: string } | undefined {
  const wasm = (globalThis as { WebAssembly?: Record<string, unknown> }).WebAssembly;
  if (!wasm) return { feature: "WebAssembly", message: "this runtime has no WebAssembly" };
  if (!("Suspending" in wasm)) {
    return {
      feature: "WebAssembly JSPI",
      message: "wllama 3 needs WebAssembly.Suspending (Chromium 137 or later)",
    };
  }
  return undefined;
}

function loadError(error: unknown, model: string | Blob): ModelError {
  const raw = error instanceof Error ? error.message : String(error);
  // wllama names the URL in its errors; a token in its query or user info must not travel on.
  const text = scrub(raw, typeof model === "string" ? credentialsOf({ url: model }) : []);
  const cause = text === raw ? { cause: error } : {};
  const type = (error as { type?: unknown } | null)?.type;
  if (type === "download_error" || /fetch|network|HTTP \d/i.test(text)) {
    return new ModelError({ type: "http", provider: PROVIDER, message: text }, cause);
  }
  if (/memory|allocat|out of bounds/i.test(text)) {
    return new ModelError(
      { type: "unsupported", provider: PROVIDER, missing: "memory", message: text },
      cause,
    );
  }
  return new ModelError({ type: "invalid_response", provider: PROVIDER, message: text }, cause);
}

async function turn(
  w: WllamaLike,
  options: WllamaModelOptions,
  request: ModelRequest,
  signal: AbortSignal,
  emit: (event: ModelEvent) => void,
): Promise<void> {
  const settings = { ...options, ...request.settings };
  const choice = request.toolChoice ?? "auto";
  const forced = request.tools.length > 0 && (choice === "required" || typeof choice === "object");
  const params: Record<string, unknown> = {
    messages: wllamaMessages(forced ? withToolPrompt(request) : request),
    stream: true,
    stream_options: { include_usage: true },
    abortSignal: signal,
    max_tokens: request.maxTokens ?? options.maxTokens ?? 1024,
  };
  if (settings.temperature !== undefined) params.temperature = settings.temperature;
  if (settings.topP !== undefined) params.top_p = settings.topP;
  if (settings.seed !== undefined) params.seed = settings.seed;
  if (settings.stop !== undefined) params.stop = settings.stop;
  if (forced) {
    const name = typeof choice === "object" ? choice.name : undefined;
    const tools = request.tools.filter((tool) => name === undefined || tool.name === name);
    params.response_format = {
      type: "json_schema",
      json_schema: { name: "tool_call", schema: callSchema(tools) },
    };
  } else if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description ?? "",
        parameters: tool.inputSchema,
      },
    }));
    params.tool_choice = choice;
  }
  for (const [key, value] of Object.entries(settings.extraBody ?? {})) {
    if (value === undefined) delete params[key];
    else params[key] = value;
  }
  let chunks: AsyncIterable<unknown>;
  try {
    chunks = await w.createChatCompletion(params);
  } catch (error) {
    if (signal.aborted) throw error;
    throw runtimeFailure(PROVIDER, error);
  }
  await decodeChatChunks(chunks, {
    provider: PROVIDER,
    forced,
    ...(options.toolCallFormats ? { formats: options.toolCallFormats } : {}),
    signal,
    emit,
  });
}

// llama.cpp reads text content; images have no place in a text-only GGUF.
function wllamaMessages(request: ModelRequest): unknown[] {
  return openAIMessages(request).map((message) =>
    Array.isArray(message.content)
      ? {
          ...message,
          content: message.content
            .map((part) => (part.type === "text" ? part.text : "[image]"))
            .join("\n"),
        }
      : message,
  );
}

// Without `tools` (llama.cpp allows no other constraint beside them), the model learns the
// tools from the system prompt.
function withToolPrompt(request: ModelRequest): ModelRequest {
  const listing = request.tools
    .map((tool) =>
      JSON.stringify({
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
      }),
    )
    .join("\n");
  const prompt = `Answer with one tool call as JSON {"name": <tool name>, "arguments": <its arguments>}. Tools:\n${listing}`;
  return { ...request, system: request.system ? `${request.system}\n\n${prompt}` : prompt };
}
