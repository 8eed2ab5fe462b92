// An AI SDK provider model (`LanguageModelV3` of `@ai-sdk/provider` 3, AI SDK 6, or
// `LanguageModelV4` of `@ai-sdk/provider` 4, AI SDK 7) as a toolwire `Model` (`docs/design.md`,
// "Models", the AI SDK bridge). The V3 spec is imported as types only, so this file adds no AI
// SDK code to a bundle: the provider package the user passes in does the work. Every part used
// here has the same shape in V4, except a file's `data`, which V4 tags (`{ type: "data" }`).
// The exported signature names only `AiSdkLanguageModel`, the slice of the spec used here, so
// toolwire's declarations compile without any AI SDK package installed.
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
} from "@ai-sdk/provider";
import { errorText } from "../errors.ts";
import type { Block, Message, ReasoningBlock } from "../models/message.ts";
import type {
  FinishReason,
  Model,
  ModelEvent,
  ModelRequest,
  ModelSettings,
  ModelUsage,
} from "../models/model.ts";
import { cancelled, isModelError, ModelError } from "../models/model-error.ts";
import { toolArguments } from "../models/provider.ts";
import { providerError, retryAfterMs } from "../models/provider-error.ts";
import { toolContentText } from "../models/tool-content-text.ts";

type ProviderMetadata = Record<string, Record<string, unknown>>;

/**
 * What `aiSdkModel` needs of an AI SDK language model (any provider package's model is one):
 * its spec version, names and `doStream`. Both `LanguageModelV3` (AI SDK 6 providers,
 * `@ai-sdk/provider` 3) and `LanguageModelV4` (AI SDK 7 providers, `@ai-sdk/provider` 4) fit.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: "v3" | "v4";
  readonly provider: string;
  readonly modelId: string;
  doStream(options: {
    prompt: unknown[];
  }): PromiseLike<{ stream: ReadableStream<{ type: string }> }>;
}

/**
 * Options of `aiSdkModel`. Of the `ModelSettings`, `temperature`, `topP`, `stop` and `seed`
 * map to the AI SDK call options; provider-specific settings (reasoning effort, thinking
 * budgets, caching) go in `providerOptions`, exactly as `generateText` takes them.
 */
export interface AiSdkModelOptions extends Omit<ModelSettings, "extraBody" | "reasoningEffort"> {
  /** The context window in tokens, for compaction. */
  contextWindow?: number;
  /** Default bound on generated tokens (`maxOutputTokens`). */
  maxTokens?: number;
  /** Passed as the call's `providerOptions`, such as `{ anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } }`. */
  providerOptions?: Record<string, Record<string, unknown>>;
  /** Extra headers for each call. */
  headers?: Record<string, string>;
}

/**
 * Returns a toolwire `Model` that streams through an AI SDK provider model, so any AI SDK
 * provider (Gemini, Bedrock, Vertex, Mistral, OpenAI's Responses API…) runs under toolwire's
 * agent loop with streaming text, reasoning, tool calls, usage and abort. Provider metadata of
 * reasoning and tool calls (signatures) is kept in the transcript and sent back. Retries are
 * not made here; failures error the stream with a `ModelError` (a 429 as `rate_limit` with the
 * response's retry hint).
 *
 * @example
 * ```ts
 * import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
 * import { aiSdkModel } from "toolwire/ai-sdk";
 *
 * const provider = createOpenAICompatible({ name: "local", baseURL: "http://127.0.0.1:11434/v1" });
 * const model = aiSdkModel(provider("qwen3"), { contextWindow: 32_768 });
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function aiSdkModel(sdkModel: AiSdkLanguageModel, options: AiSdkModelOptions = {}): Model {
  // The full spec, for the mapping below; the public signature stays free of AI SDK types.
  const languageModel = sdkModel as unknown as LanguageModelV3;
  const provider = languageModel.provider;
  const stream = (request: ModelRequest, streamOptions: { signal?: AbortSignal } = {}) => {
    const { signal } = streamOptions;
    let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
    let decode:
      | ((part: LanguageModelV3StreamPart, emit: (e: ModelEvent) => void) => boolean)
      | undefined;
    const fail = (error: unknown): ModelError => {
      if (signal?.aborted) return cancelled(provider, signal.reason);
      return isModelError(error) ? error : modelError(provider, error);
    };
    return new ReadableStream<ModelEvent>({
      async start() {
        if (signal?.aborted) throw cancelled(provider, signal.reason);
        try {
          const call = callOptions(request, options, signal, sdkModel.specificationVersion);
          const result = await languageModel.doStream(call);
          reader = result.stream.getReader();
          decode = decoder(provider);
        } catch (error) {
          throw fail(error);
        }
      },
      async pull(controller) {
        if (!reader || !decode) return;
        let emitted = false;
        const emit = (event: ModelEvent) => {
          controller.enqueue(event);
          emitted = true;
        };
        try {
          for (;;) {
            if (signal?.aborted) throw cancelled(provider, signal.reason);
            const { done, value } = await reader.read();
            if (done) {
              const message = "stream ended early (no finish part)";
              throw new ModelError({ type: "stream", provider, message });
            }
            if (decode(value, emit)) break;
            if (emitted) return;
          }
        } catch (error) {
          reader.cancel().catch(() => {});
          throw fail(error);
        }
        reader.cancel().catch(() => {});
        controller.close();
      },
      cancel(reason) {
        reader?.cancel(reason).catch(() => {});
      },
    });
  };
  const model: Model = { id: languageModel.modelId, provider: providerName(provider), stream };
  if (options.contextWindow !== undefined) model.contextWindow = options.contextWindow;
  return model;
}

// The GenAI conventions' names for the AI SDK's providers, by the start of an AI SDK model's
// `provider` (`google.vertex.chat`, `amazon-bedrock`); the others are named by its first part.
const PROVIDER_NAMES: Record<string, string> = {
  "amazon-bedrock": "aws.bedrock",
  azure: "azure.ai.openai",
  google: "gcp.gemini",
  "google.vertex": "gcp.vertex_ai",
  vertex: "gcp.vertex_ai",
  mistral: "mistral_ai",
  moonshotai: "moonshot_ai",
  xai: "x_ai",
};

/**
 * Returns the `gen_ai.provider.name` of an AI SDK provider: `openai.chat` is `openai`,
 * `google.generative-ai` `gcp.gemini`, `google.vertex.chat` (and `vertex.anthropic.messages`)
 * `gcp.vertex_ai`, `amazon-bedrock` `aws.bedrock`, `azure.chat` `azure.ai.openai`,
 * `mistral.chat` `mistral_ai`, `xai.chat` `x_ai`; one the conventions do not name keeps its
 * own first part (`ollama.chat` is `ollama`).
 */
function providerName(provider: string): string {
  const [first = "", second] = provider.split(".");
  for (const key of [`${first}.${second}`, first]) {
    if (Object.hasOwn(PROVIDER_NAMES, key)) return PROVIDER_NAMES[key] as string;
  }
  return first;
}

function callOptions(
  request: ModelRequest,
  options: AiSdkModelOptions,
  signal: AbortSignal | undefined,
  version: AiSdkLanguageModel["specificationVersion"],
): LanguageModelV3CallOptions {
  const settings = { ...options, ...request.settings };
  const call: LanguageModelV3CallOptions = { prompt: prompt(request, version) };
  const bound = request.maxTokens ?? options.maxTokens;
  if (bound !== undefined) call.maxOutputTokens = bound;
  if (settings.temperature !== undefined) call.temperature = settings.temperature;
  if (settings.topP !== undefined) call.topP = settings.topP;
  if (settings.stop !== undefined) call.stopSequences = settings.stop;
  if (settings.seed !== undefined) call.seed = settings.seed;
  if (request.tools.length > 0) {
    call.tools = request.tools.map((tool) => ({
      type: "function" as const,
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: tool.inputSchema as never,
    }));
    const choice = request.toolChoice;
    if (typeof choice === "object") call.toolChoice = { type: "tool", toolName: choice.name };
    else if (choice !== undefined) call.toolChoice = { type: choice };
  }
  if (options.providerOptions) call.providerOptions = options.providerOptions as never;
  if (options.headers) call.headers = options.headers;
  if (signal) call.abortSignal = signal;
  return call;
}

/** Returns the AI SDK prompt of a request: tool results go to `tool` messages, named after the
 * call they answer, as the spec requires. */
function prompt(
  request: ModelRequest,
  version: AiSdkLanguageModel["specificationVersion"],
): LanguageModelV3Message[] {
  const out: LanguageModelV3Message[] = [];
  if (request.system) out.push({ role: "system", content: request.system });
  const names = new Map<string, string>();
  for (const message of request.messages) {
    if (message.role === "assistant") out.push(assistant(message, names));
    else out.push(...user(message, names, version));
  }
  return out;
}

function withOptions<T extends object>(part: T, metadata: ProviderMetadata | undefined): T {
  return metadata ? { ...part, providerOptions: metadata } : part;
}

function assistant(message: Message, names: Map<string, string>): LanguageModelV3Message {
  const content: Extract<LanguageModelV3Message, { role: "assistant" }>["content"] = [];
  for (const block of message.content) {
    if (block.type === "text" && block.text !== "")
      content.push({ type: "text", text: block.text });
    if (block.type === "reasoning") {
      content.push(
        withOptions({ type: "reasoning", text: block.text }, block.providerMetadata) as never,
      );
    }
    if (block.type === "tool_use") {
      names.set(block.id, block.name);
      const input = typeof block.input === "object" && block.input !== null ? block.input : {};
      content.push(
        withOptions(
          { type: "tool-call", toolCallId: block.id, toolName: block.name, input },
          block.providerMetadata,
        ) as never,
      );
    }
  }
  return { role: "assistant", content };
}

function user(
  message: Message,
  names: Map<string, string>,
  version: AiSdkLanguageModel["specificationVersion"],
): LanguageModelV3Message[] {
  const results: Extract<LanguageModelV3Message, { role: "tool" }>["content"] = [];
  const content: Extract<LanguageModelV3Message, { role: "user" }>["content"] = [];
  for (const block of message.content as Block[]) {
    if (block.type === "tool_result") {
      const text = block.content.map(toolContentText).join("\n");
      const output: LanguageModelV3ToolResultOutput = block.isError
        ? { type: "error-text", value: text }
        : { type: "text", value: text };
      const toolName = names.get(block.toolUseId) ?? "unknown";
      results.push({ type: "tool-result", toolCallId: block.toolUseId, toolName, output });
    } else if (block.type === "text") {
      content.push({ type: "text", text: block.text });
    } else if (block.type === "image") {
      // V3 takes the base64 text as `data`; V4 tags it (`SharedV4FileData`).
      const data = version === "v4" ? { type: "data", data: block.data } : block.data;
      content.push({ type: "file", mediaType: block.mimeType, data: data as never });
    }
  }
  const out: LanguageModelV3Message[] = [];
  if (results.length > 0) out.push({ role: "tool", content: results });
  if (content.length > 0 || results.length === 0) out.push({ role: "user", content });
  return out;
}

/** Returns a stream-part decoder; it returns `true` at the `finish` part. */
function decoder(provider: string) {
  const reasoning = new Map<string, ReasoningBlock>();
  // The arguments streamed so far of each call the model makes (not the provider's own).
  const inputs = new Map<string, { name: string; text: string }>();
  let calls = 0;
  return (part: LanguageModelV3StreamPart, emit: (event: ModelEvent) => void): boolean => {
    switch (part.type) {
      case "text-delta":
        if (part.delta !== "") emit({ type: "text_delta", text: part.delta });
        return false;
      case "reasoning-start":
        reasoning.set(
          part.id,
          withMetadata({ type: "reasoning", text: "" }, part.providerMetadata),
        );
        return false;
      case "reasoning-delta": {
        // Metadata may come on a delta too (Anthropic's signature arrives as an empty delta).
        const block = withMetadata(
          reasoning.get(part.id) ?? { type: "reasoning", text: "" },
          part.providerMetadata,
        );
        reasoning.set(part.id, block);
        block.text += part.delta;
        if (part.delta !== "") emit({ type: "reasoning_delta", text: part.delta });
        return false;
      }
      case "reasoning-end": {
        const block = reasoning.get(part.id);
        reasoning.delete(part.id);
        if (block) emit({ type: "reasoning", block: withMetadata(block, part.providerMetadata) });
        return false;
      }
      case "tool-input-start":
        if (!part.providerExecuted) inputs.set(part.id, { name: part.toolName, text: "" });
        return false;
      case "tool-input-delta": {
        const input = inputs.get(part.id);
        if (!input || part.delta === "") return false;
        input.text += part.delta;
        emit({ type: "tool_input_delta", id: part.id, name: input.name, text: part.delta });
        return false;
      }
      case "tool-call": {
        if (part.providerExecuted) return false; // the provider ran it; nothing for us to do
        calls += 1;
        // A provider that does not stream arguments, or whose streamed text stops short of the
        // call's, sends the rest here, so the pieces add up to the call (P4).
        const streamed = inputs.get(part.toolCallId)?.text ?? "";
        inputs.delete(part.toolCallId);
        if (part.input.length > streamed.length && part.input.startsWith(streamed)) {
          const text = part.input.slice(streamed.length);
          emit({ type: "tool_input_delta", id: part.toolCallId, name: part.toolName, text });
        }
        const event: ModelEvent = {
          type: "tool_call",
          id: part.toolCallId,
          name: part.toolName,
          arguments: toolArguments(part.input),
        };
        if (part.providerMetadata)
          event.providerMetadata = part.providerMetadata as ProviderMetadata;
        emit(event);
        return false;
      }
      case "finish": {
        emit({ type: "usage", ...usageOf(part.usage) });
        emit({ type: "finish", reason: finishReason(part.finishReason.unified, calls > 0) });
        return true;
      }
      case "error":
        throw modelError(provider, part.error);
      default:
        return false; // text-start/end, tool-input-end, sources, files, metadata, raw
    }
  };
}

function withMetadata(block: ReasoningBlock, metadata: unknown): ReasoningBlock {
  if (!metadata || typeof metadata !== "object") return block;
  const merged = { ...block.providerMetadata };
  for (const [key, value] of Object.entries(metadata as ProviderMetadata)) {
    merged[key] = { ...merged[key], ...value };
  }
  return { ...block, providerMetadata: merged };
}

function usageOf(
  usage: Extract<LanguageModelV3StreamPart, { type: "finish" }>["usage"],
): ModelUsage {
  const out: ModelUsage = {
    inputTokens: usage.inputTokens.total ?? 0,
    outputTokens: usage.outputTokens.total ?? 0,
  };
  if (usage.inputTokens.cacheRead !== undefined) out.cacheReadTokens = usage.inputTokens.cacheRead;
  if (usage.inputTokens.cacheWrite !== undefined)
    out.cacheWriteTokens = usage.inputTokens.cacheWrite;
  return out;
}

function finishReason(unified: string, hasCalls: boolean): FinishReason {
  switch (unified) {
    case "length":
      return "length";
    case "content-filter":
      return "content_filter";
    case "tool-calls":
      return "tool_calls";
    default:
      return hasCalls ? "tool_calls" : "stop";
  }
}

/** Maps an AI SDK failure (an `APICallError` or anything thrown) to a `ModelError`. */
function modelError(provider: string, error: unknown): ModelError {
  const fields = (typeof error === "object" && error !== null ? error : {}) as {
    statusCode?: unknown;
    responseHeaders?: unknown;
  };
  const message = errorText(error);
  if (typeof fields.statusCode !== "number") {
    return new ModelError({ type: "stream", provider, message });
  }
  const headers = new Headers((fields.responseHeaders ?? {}) as Record<string, string>);
  const wait = retryAfterMs(headers);
  const details = { status: fields.statusCode, message };
  return providerError(
    provider,
    wait === undefined ? details : { ...details, retryAfterMs: wait },
    [],
  );
}
