// WebLLM on WebGPU (`docs/design.md`, "In-browser models"). `@mlc-ai/web-llm` is an optional
// peer imported on the first load. WebLLM's own `tools` work only for its Hermes models and
// inject their own system prompt, so by default (`toolUse: "auto"`) those models use them and
// every other model (Qwen3, Llama 3.2, …) is told the tools in the system prompt, writes
// `<tool_call>` blocks (the format Qwen and Hermes are trained on), and `parseToolCalls` reads
// them. `required` or a named tool constrains the answer to one call's JSON through WebLLM's
// `response_format` (xgrammar).
import type { Message } from "../models/message.ts";
import type { ModelEvent, ModelRequest, ModelSettings } from "../models/model.ts";
import { openAIMessages } from "../models/openai-compatible.ts";
import type { ToolCallFormat } from "../models/tool-call-text.ts";
import { toolContentText } from "../models/tool-content-text.ts";
import {
  callSchema,
  decodeChatChunks,
  type InBrowserModel,
  inBrowserModel,
  type LoadProgressEvent,
  runtimeFailure,
  unsupported,
} from "./in-browser-model.ts";

const PROVIDER = "web-llm";

/**
 * The slice of WebLLM's `MLCEngineInterface` this adapter uses; an engine made by the caller
 * (`CreateWebWorkerMLCEngine`, or a test's stand-in) fits it.
 */
export interface WebLlmEngine {
  chat: { completions: { create(request: object): Promise<AsyncIterable<unknown> | object> } };
  reload(modelId: string): Promise<void>;
  setInitProgressCallback(
    callback: (report: { progress: number; text: string; timeElapsed: number }) => void,
  ): void;
  interruptGenerate(): void;
  unload(): Promise<void>;
}

/** Options of `webLlmModel`. The `ModelSettings` fields are sent as `temperature`, `top_p`,
 * `seed` and `stop`; `extraBody` is merged into the request. */
export interface WebLlmModelOptions extends ModelSettings {
  /** A WebLLM model id, such as `Qwen3-0.6B-q4f32_1-MLC` (`prebuiltAppConfig.model_list`). */
  model: string;
  /**
   * The engine to load the model into; by default a new `MLCEngine` on this page. Pass one from
   * `CreateWebWorkerMLCEngine` to run inference in a worker.
   */
  engine?: WebLlmEngine;
  /** WebLLM's `appConfig` (a model list of your own) for the default engine. */
  appConfig?: object;
  /** The context window in tokens, for compaction; WebLLM's records say 4096 for most models. */
  contextWindow?: number;
  /** Default bound on generated tokens; 1024 by default. */
  maxTokens?: number;
  /** `native` (WebLLM's `tools`: Hermes models only), `prompted`, or `auto` (native for the
   * models WebLLM lists in `functionCallingModelIds`). `auto` by default. */
  toolUse?: "auto" | "native" | "prompted";
  /** Formats of calls read from the text; every format by default. */
  toolCallFormats?: readonly ToolCallFormat[];
}

/**
 * Creates a model that runs on the GPU in the page through WebLLM. Needs `@mlc-ai/web-llm`
 * installed (or an `engine`) and WebGPU; most prebuilt models also need the `shader-f16`
 * feature (pick a `q4f32` model without it).
 *
 * @param options The model id and settings.
 * @returns The model.
 * @throws ModelError `unsupported` (from `load`/`stream`) naming "WebGPU" or "WebGPU shader-f16".
 *
 * @example
 * ```ts
 * const model = webLlmModel({ model: "Qwen3-0.6B-q4f32_1-MLC" });
 * model.onProgress((e) => console.log(e));
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function webLlmModel(options: WebLlmModelOptions): InBrowserModel {
  return inBrowserModel<WebLlmEngine>({
    provider: PROVIDER,
    id: options.model,
    contextWindow: options.contextWindow,
    load: (progress) => load(options, progress),
    unload: (engine) => engine.unload(),
    turn: (engine, request, signal, emit) => turn(engine, options, request, signal, emit),
    error: failure,
  });
}

async function load(
  options: WebLlmModelOptions,
  progress: (event: LoadProgressEvent) => void,
): Promise<WebLlmEngine> {
  let engine = options.engine;
  if (!engine) {
    const gpu = (
      globalThis as { navigator?: { gpu?: { requestAdapter(o?: object): Promise<unknown> } } }
    ).navigator?.gpu;
    if (!gpu) throw unsupported(PROVIDER, "WebGPU", "this browser has no navigator.gpu");
    const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
    if (!adapter) throw unsupported(PROVIDER, "WebGPU", "no GPU adapter is available");
    let webllm: typeof import("@mlc-ai/web-llm");
    try {
      webllm = await import("@mlc-ai/web-llm");
    } catch (error) {
      throw unsupported(
        PROVIDER,
        "@mlc-ai/web-llm",
        "install the optional peer @mlc-ai/web-llm",
        error,
      );
    }
    engine = new webllm.MLCEngine(
      options.appConfig ? { appConfig: options.appConfig as never } : {},
    ) as unknown as WebLlmEngine;
  }
  let initializing = false;
  engine.setInitProgressCallback(({ progress: fraction, text }) => {
    // WebLLM reports one 0–1 figure; while it fetches it says so in its text.
    if (!initializing && /fetch|download/i.test(text) && fraction < 1) {
      progress({ type: "download", loaded: fraction, total: 1 });
      return;
    }
    initializing = true;
    progress({ type: "initialize", progress: fraction, text });
  });
  await engine.reload(options.model);
  return engine;
}

// The Hermes models WebLLM calls tools for natively (`functionCallingModelIds`).
const NATIVE = /^Hermes-(2-Pro|3)-/;

async function turn(
  engine: WebLlmEngine,
  options: WebLlmModelOptions,
  request: ModelRequest,
  signal: AbortSignal,
  emit: (event: ModelEvent) => void,
): Promise<void> {
  const settings = { ...options, ...request.settings };
  const choice = request.toolChoice ?? "auto";
  const tools = choice === "none" ? [] : request.tools;
  const mode = options.toolUse ?? "auto";
  const native =
    tools.length > 0 && (mode === "native" || (mode === "auto" && NATIVE.test(options.model)));
  const forced =
    !native && tools.length > 0 && (choice === "required" || typeof choice === "object");
  const body: Record<string, unknown> = {
    messages: native ? nativeMessages(request) : promptedMessages(request, tools.length > 0),
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: request.maxTokens ?? options.maxTokens ?? 1024,
  };
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.topP !== undefined) body.top_p = settings.topP;
  if (settings.seed !== undefined) body.seed = settings.seed;
  if (settings.stop !== undefined) body.stop = settings.stop;
  if (native) {
    body.tools = tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description ?? "", parameters: t.inputSchema },
    }));
    body.tool_choice =
      typeof choice === "object" ? { type: "function", function: { name: choice.name } } : choice;
  } else if (forced) {
    const picked = typeof choice === "object" ? tools.filter((t) => t.name === choice.name) : tools;
    body.response_format = { type: "json_object", schema: JSON.stringify(callSchema(picked)) };
  }
  for (const [key, value] of Object.entries(settings.extraBody ?? {})) {
    if (value === undefined) delete body[key];
    else body[key] = value;
  }
  // WebLLM stops through its engine, not through a signal.
  const onAbort = () => engine.interruptGenerate();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const chunks = (await engine.chat.completions.create(body)) as AsyncIterable<unknown>;
    await decodeChatChunks(chunks, {
      provider: PROVIDER,
      forced,
      ...(options.toolCallFormats ? { formats: options.toolCallFormats } : {}),
      signal,
      emit,
    });
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

// WebLLM's Hermes prompt is its own: the caller's system prompt goes into the first user turn.
function nativeMessages(request: ModelRequest): unknown[] {
  const { system: _, ...rest } = request;
  const messages = openAIMessages(rest) as Array<{ role: string; content: unknown }>;
  const first = messages.find((m) => m.role === "user");
  if (request.system && first && typeof first.content === "string") {
    first.content = `${request.system}\n\n${first.content}`;
  }
  return messages;
}

// Calls and results as the text Qwen and Hermes models are trained on; no tool role, which
// most of WebLLM's conversation templates lack.
function promptedMessages(request: ModelRequest, withTools: boolean): unknown[] {
  let system = request.system ?? "";
  if (withTools) {
    const listing = request.tools
      .map((t) =>
        JSON.stringify({
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.inputSchema },
        }),
      )
      .join("\n");
    system =
      `${system}\n\n# Tools\n\nYou may call one or more functions to assist with the user query. The functions:\n<tools>\n${listing}\n</tools>\n\nFor each call, return a JSON object with the function name and arguments within <tool_call></tool_call> tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>`.trim();
  }
  const out: Array<{ role: string; content: string }> = system
    ? [{ role: "system", content: system }]
    : [];
  for (const message of request.messages)
    out.push({ role: message.role, content: messageText(message) });
  return out;
}

function messageText(message: Message): string {
  const parts: string[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "tool_use") {
      parts.push(
        `<tool_call>\n${JSON.stringify({ name: block.name, arguments: block.input ?? {} })}\n</tool_call>`,
      );
    } else if (block.type === "tool_result") {
      parts.push(
        `<tool_response>\n${block.content.map(toolContentText).join("\n")}\n</tool_response>`,
      );
    }
  }
  return parts.join("\n");
}

function failure(error: unknown) {
  const name = error instanceof Error ? `${error.name} ${error.constructor.name}` : "";
  const message = error instanceof Error ? error.message : String(error);
  if (name.includes("ShaderF16SupportError"))
    return unsupported(PROVIDER, "WebGPU shader-f16", message, error);
  if (/WebGPUNot(Available|Found)Error/.test(name)) {
    return unsupported(PROVIDER, "WebGPU", message, error);
  }
  if (name.includes("DeviceLostError") || /out of memory|allocation/i.test(message)) {
    return unsupported(PROVIDER, "GPU memory", message, error);
  }
  return runtimeFailure(PROVIDER, error);
}
