// The browser's built-in model through the Prompt API (`LanguageModel`, webmachinelearning/
// prompt-api; `docs/design.md`, "In-browser models"). Tool use follows Chromium's open loop
// (behind `AIPromptAPIToolUse`): a turn returns `tool-call` parts unexecuted, and their results
// go back in the next prompt as `tool-response` parts, so toolwire's agent runs every call
// through its own approval gate. Where the browser has no tool-use classes, the tools are
// described in the system prompt and the model writes each call as a ```` ```tool_call ````
// fence, which `parseToolCalls` reads; `required` or a named tool then constrains the answer
// with `responseConstraint` to the JSON of one call.
import type { Message } from "../models/message.ts";
import type { ModelEvent, ModelRequest, ModelTool } from "../models/model.ts";
import { ModelError } from "../models/model-error.ts";
import { createToolCallParser, parseToolCalls } from "../models/tool-call-text.ts";
import { toolContentText } from "../models/tool-content-text.ts";
import {
  callSchema,
  emitPart,
  type InBrowserModel,
  inBrowserModel,
  type LoadProgressEvent,
  runtimeFailure,
  unsupported,
} from "./in-browser-model.ts";

const PROVIDER = "prompt-api";

/** Options of `promptApiModel`. */
export interface PromptApiModelOptions {
  /** The languages of the conversation, as BCP 47 tags; `["en"]` by default. */
  languages?: string[];
  /**
   * How tool calls travel: `native` (the browser's `tool-call` parts; needs Chromium's
   * `LanguageModelToolCall`), `prompted` (a ```` ```tool_call ```` fence the model writes), or
   * `auto` (native where the browser has it). `auto` by default.
   */
  toolUse?: "auto" | "native" | "prompted";
}

// The slices of the Prompt API this adapter uses (the explainer's IDL, Chromium's tool types).
interface LanguageModelSession {
  promptStreaming(
    input: unknown,
    options?: { signal?: AbortSignal; responseConstraint?: object },
  ): ReadableStream<unknown>;
  measureContextUsage?(input: unknown, options?: object): Promise<number>;
  readonly contextUsage?: number;
  readonly contextWindow?: number;
  destroy(): void;
}
interface LanguageModelStatic {
  availability(
    options?: object,
  ): Promise<"unavailable" | "downloadable" | "downloading" | "available">;
  create(options?: object): Promise<LanguageModelSession>;
}
type ToolClass = new (init: object) => object;
interface Runtime {
  api: LanguageModelStatic;
  native: { call: ToolClass; success: ToolClass; error: ToolClass } | undefined;
  languages: string[];
  contextWindow: number | undefined;
}

/**
 * Creates a model that runs on the browser's built-in model (Gemini Nano in Chrome) through the
 * Prompt API. `load()` (or the first turn) downloads the model when the browser offers it,
 * reporting `download` progress as fractions (`total` 1).
 *
 * @param options Languages and the tool-call mode.
 * @returns The model; `contextWindow` is known after `load()`.
 * @throws ModelError `unsupported` naming "the Prompt API" or "the built-in model" where the
 * browser has no `LanguageModel` or cannot run it, `http` when the download fails.
 *
 * @example
 * ```ts
 * const model = promptApiModel();
 * await model.load(); // fails with `unsupported` where there is no built-in model
 * const agent = new Agent({ model, tools: [add] });
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function promptApiModel(options: PromptApiModelOptions = {}): InBrowserModel {
  const model: InBrowserModel = inBrowserModel<Runtime>({
    provider: PROVIDER,
    id: "prompt-api",
    contextWindow: undefined,
    load: async (progress) => {
      const runtime = await load(options, progress);
      if (runtime.contextWindow !== undefined) model.contextWindow = runtime.contextWindow;
      return runtime;
    },
    unload: async () => {},
    turn,
    error: failure,
  });
  return model;
}

function expected(languages: string[], native: boolean) {
  return {
    expectedInputs: [{ type: "text", languages }, ...(native ? [{ type: "tool-response" }] : [])],
    expectedOutputs: [{ type: "text", languages }, ...(native ? [{ type: "tool-call" }] : [])],
  };
}

async function load(
  options: PromptApiModelOptions,
  progress: (event: LoadProgressEvent) => void,
): Promise<Runtime> {
  const g = globalThis as Record<string, unknown>;
  const api = g.LanguageModel as LanguageModelStatic | undefined;
  if (!api) {
    throw unsupported(
      PROVIDER,
      "the Prompt API",
      "this browser has no LanguageModel (Chrome 148+ on desktop has it)",
    );
  }
  const languages = options.languages ?? ["en"];
  const mode = options.toolUse ?? "auto";
  const classes = [g.LanguageModelToolCall, g.LanguageModelToolSuccess, g.LanguageModelToolError];
  const hasClasses = classes.every((c) => typeof c === "function");
  if (mode === "native" && !hasClasses) {
    throw unsupported(
      PROVIDER,
      "Prompt API tool use",
      "no LanguageModelToolCall here (Chromium flag #prompt-api-tool-use)",
    );
  }
  const native = mode !== "prompted" && hasClasses;
  const shape = expected(languages, native);
  const availability = await api.availability(shape);
  if (availability === "unavailable") {
    throw unsupported(
      PROVIDER,
      "the built-in model",
      'LanguageModel.availability() is "unavailable" on this device',
    );
  }
  if (availability !== "available") progress({ type: "download", loaded: 0, total: 1 });
  // One session proves the model runs and tells its context window; turns make their own.
  const probe = await api.create({
    ...shape,
    monitor(m: EventTarget) {
      m.addEventListener("downloadprogress", (e) => {
        const loaded = (e as Event & { loaded?: number }).loaded ?? 0;
        progress({ type: "download", loaded, total: 1 });
        if (loaded >= 1) progress({ type: "initialize" });
      });
    },
  });
  const contextWindow = Number.isFinite(probe.contextWindow) ? probe.contextWindow : undefined;
  probe.destroy();
  const [call, success, error] = classes as ToolClass[];
  return {
    api,
    native: native && call && success && error ? { call, success, error } : undefined,
    languages,
    contextWindow,
  };
}

async function turn(
  runtime: Runtime,
  request: ModelRequest,
  signal: AbortSignal,
  emit: (event: ModelEvent) => void,
): Promise<void> {
  const choice = request.toolChoice ?? "auto";
  const tools = choice === "none" ? [] : request.tools;
  const native = runtime.native;
  const forced =
    !native && tools.length > 0 && (choice === "required" || typeof choice === "object");
  const names = new Map<string, string>();
  const messages = request.messages.map((message) => toPrompt(message, runtime, names));
  const last = messages.pop();
  if (last?.role !== "user") {
    throw new ModelError({
      type: "invalid_response",
      provider: PROVIDER,
      message: "the transcript must end with a user message",
    });
  }
  let system = request.system ?? "";
  if (!native && tools.length > 0) system = `${system}\n\n${toolPrompt(tools)}`.trim();
  const session = await runtime.api.create({
    ...expected(runtime.languages, native !== undefined),
    signal,
    initialPrompts: [...(system ? [{ role: "system", content: system }] : []), ...messages],
    ...(native && tools.length > 0
      ? {
          tools: tools.map((t) => ({
            name: t.name,
            description: t.description ?? "",
            inputSchema: t.inputSchema,
          })),
        }
      : {}),
  });
  try {
    const input = [last];
    const before = session.contextUsage;
    const measured = await session.measureContextUsage?.(input).catch(() => undefined);
    const constraint = forced
      ? {
          responseConstraint: callSchema(
            typeof choice === "object" ? tools.filter((t) => t.name === choice.name) : tools,
          ),
        }
      : {};
    const reader = session.promptStreaming(input, { signal, ...constraint }).getReader();
    const splitter = createToolCallParser({ formats: ["fenced", "hermes"] });
    let forcedText = "";
    let calls = 0;
    const text = (delta: string) => {
      if (forced) forcedText += delta;
      else for (const part of splitter.push(delta)) emitPart(part, emit);
    };
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      const chunk = r.value;
      if (typeof chunk === "string") text(chunk);
      else if (isPart(chunk, "text") && typeof chunk.value === "string") text(chunk.value);
      else if (isPart(chunk, "tool-call")) {
        const value = chunk.value as { callID?: string; name?: string; arguments?: unknown };
        calls++;
        emit({
          type: "tool_call",
          id: value.callID || `call_${calls}`,
          name: String(value.name),
          arguments: value.arguments ?? {},
        });
      }
    }
    if (forced) {
      const call = parseToolCalls(forcedText.trim(), { formats: ["llama3"] }).calls[0];
      if (call) emit({ type: "tool_call", id: `call_${++calls}`, ...call });
      else if (forcedText) emit({ type: "text_delta", text: forcedText });
    } else {
      const end = splitter.end();
      for (const part of end.parts) emitPart(part, emit);
      for (const call of end.calls) emit({ type: "tool_call", id: `call_${++calls}`, ...call });
    }
    const after = session.contextUsage;
    if (typeof before === "number" && typeof after === "number" && typeof measured === "number") {
      const inputTokens = before + measured;
      emit({ type: "usage", inputTokens, outputTokens: Math.max(0, after - inputTokens) });
    }
    emit({ type: "finish", reason: calls > 0 ? "tool_calls" : "stop" });
  } finally {
    session.destroy();
  }
}

function isPart(value: unknown, type: string): value is { type: string; value: unknown } {
  return typeof value === "object" && value !== null && (value as { type?: unknown }).type === type;
}

// One toolwire message as a Prompt API message. Tool results go back as `tool-response` parts
// of a user message (there is no tool role), or as a fence the prompted mode reads.
function toPrompt(message: Message, runtime: Runtime, names: Map<string, string>) {
  const parts: Array<{ type: string; value: unknown }> = [];
  const native = runtime.native;
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        parts.push({ type: "text", value: block.text });
        break;
      case "tool_use":
        names.set(block.id, block.name);
        parts.push(
          native
            ? {
                type: "tool-call",
                value: new native.call({
                  callID: block.id,
                  name: block.name,
                  arguments: block.input ?? {},
                }),
              }
            : {
                type: "text",
                value: `\`\`\`tool_call\n${JSON.stringify({ name: block.name, arguments: block.input ?? {} })}\n\`\`\``,
              },
        );
        break;
      case "tool_result": {
        const name = names.get(block.toolUseId) ?? "tool";
        const text = block.content.map(toolContentText).join("\n");
        if (!native) parts.push({ type: "text", value: `\`\`\`tool_result\n${text}\n\`\`\`` });
        else if (block.isError) {
          parts.push({
            type: "tool-response",
            value: new native.error({ callID: block.toolUseId, name, errorMessage: text }),
          });
        } else {
          parts.push({
            type: "tool-response",
            value: new native.success({
              callID: block.toolUseId,
              name,
              result: [{ type: "text", value: text }],
            }),
          });
        }
        break;
      }
      default:
        // Images and reasoning have no text form the built-in model reads back.
        break;
    }
  }
  const content = parts.every((p) => p.type === "text")
    ? parts.map((p) => p.value).join("\n")
    : parts;
  return { role: message.role, content };
}

function toolPrompt(tools: ModelTool[]): string {
  const listing = tools
    .map((t) =>
      JSON.stringify({ name: t.name, description: t.description, parameters: t.inputSchema }),
    )
    .join("\n");
  return `You can call these tools:\n${listing}\n\nTo call one, answer with only:\n\`\`\`tool_call\n{"name": <tool name>, "arguments": <arguments object>}\n\`\`\`\nA result comes back as a \`\`\`tool_result fence.`;
}

function failure(error: unknown): ModelError {
  const name = (error as { name?: unknown } | null)?.name;
  const message = error instanceof Error ? error.message : String(error);
  switch (name) {
    case "NotSupportedError":
      return unsupported(PROVIDER, "the built-in model", message, error);
    case "NotAllowedError":
      return unsupported(PROVIDER, "permission to use the built-in model", message, error);
    case "QuotaExceededError":
      return new ModelError(
        { type: "context_overflow", provider: PROVIDER, message },
        { cause: error },
      );
    case "NetworkError":
      return new ModelError({ type: "http", provider: PROVIDER, message }, { cause: error });
    default:
      return runtimeFailure(PROVIDER, error);
  }
}
