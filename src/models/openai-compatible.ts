// One Chat Completions turn (`docs/design.md`, "Models"): the options, the request body, and
// the decoder of the streamed chunks. The HTTP call and retries are in `provider.ts`.

import { excerpt } from "../redaction.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
import type { SseEvent } from "../sse/sse-parser.ts";
import type { Block, Message } from "./message.ts";
import type {
  FinishReason,
  Model,
  ModelEvent,
  ModelRequest,
  ModelSettings,
  ModelUsage,
} from "./model.ts";
import { ModelError } from "./model-error.ts";
import {
  endpoint,
  type ProviderDecoder,
  providerModel,
  type RetryOptions,
  toolArguments,
} from "./provider.ts";
import { errorFields, providerError } from "./provider-error.ts";
import { toolContentText } from "./tool-content-text.ts";

const PROVIDER = "openai-compatible";

/**
 * Options of `openAICompatible`. The `ModelSettings` fields are sent as `temperature`, `top_p`,
 * `stop`, `seed`, `parallel_tool_calls` (only with tools) and `reasoning_effort`; a request's
 * `settings` override them.
 */
export interface OpenAICompatibleOptions extends ModelSettings {
  /**
   * The API root: `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`, or an Azure
   * deployment with its query (`https://x.openai.azure.com/openai/deployments/d?api-version=…`,
   * pass the key as `headers: { "api-key": key }`). `/chat/completions` is added to the path.
   */
  baseURL: string;
  /** Sent as `Authorization: Bearer …` when given (local servers such as Ollama need none). */
  apiKey?: string;
  /** The model name. */
  model: string;
  /** The model's context window in tokens, for compaction. */
  contextWindow?: number;
  /** Extra request headers; they override the defaults, and their values never appear in an
   * error. */
  headers?: Record<string, string>;
  /** The `fetch` to use; `globalThis.fetch`, looked up at call time, when absent. */
  fetch?: typeof fetch;
  /** Default bound on generated tokens; left to the server when absent. */
  maxTokens?: number;
  /**
   * The body field that carries the bound: OpenAI's reasoning models (o-series, gpt-5) reject
   * `max_tokens` and need `max_completion_tokens`. By default `max_completion_tokens` for model
   * names starting with `o1`…`o9` or `gpt-5` (after an optional `openai/`), else `max_tokens`,
   * which every other compatible server reads.
   */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** Retries before any output (429, overload, 5xx); `false` for one attempt. See
   * `RetryOptions` for the defaults. */
  retry?: RetryOptions | false;
  /**
   * Who serves the model, as `Model.provider` (OpenTelemetry's `gen_ai.provider.name`). By
   * default it is read from `baseURL`'s host: `azure.ai.openai` (`*.openai.azure.com`),
   * `gcp.gemini` (`generativelanguage.googleapis.com`), `groq` (`api.groq.com`), `mistral_ai`
   * (`api.mistral.ai`), `deepseek` (`api.deepseek.com`), `x_ai` (`api.x.ai`), and `openai` for
   * any other host, the format it speaks. Name any other provider yourself (`provider:
   * "ollama"`, `"gcp.vertex_ai"`, `"perplexity"`).
   */
  provider?: string;
}

// The providers the GenAI conventions name, by the domain their OpenAI-compatible API is
// served from (`api.groq.com`, `{resource}.openai.azure.com`); any other host speaks OpenAI's
// format, and is `openai`.
const PROVIDER_DOMAINS: Record<string, string> = {
  "openai.azure.com": "azure.ai.openai",
  "generativelanguage.googleapis.com": "gcp.gemini",
  "groq.com": "groq",
  "mistral.ai": "mistral_ai",
  "deepseek.com": "deepseek",
  "x.ai": "x_ai",
};

function providerOfHost(baseURL: string): string {
  const host = URL.canParse(baseURL) ? new URL(baseURL).hostname : "";
  for (const [domain, name] of Object.entries(PROVIDER_DOMAINS)) {
    if (`.${host}`.endsWith(`.${domain}`)) return name;
  }
  return "openai";
}

/**
 * Creates a model that talks to a Chat Completions endpoint (`POST {baseURL}/chat/completions`
 * with `stream: true`): OpenAI, Azure OpenAI, Groq, Mistral, DeepSeek, xAI, OpenRouter, Ollama,
 * LM Studio, vLLM, llama.cpp server and others.
 *
 * Reasoning (`reasoning_content`, `reasoning`, Mistral's thinking parts) streams as
 * `reasoning_delta`, a refusal (`delta.refusal`) as text with finish reason `refusal`. Tool
 * call arguments that are not valid JSON are passed on as the raw string and sent back as `{}`.
 * Failures error the stream with a `ModelError`; no credential appears in one.
 *
 * @example
 * ```ts
 * const model = openAICompatible({ baseURL: "http://127.0.0.1:11434/v1", model: "qwen3" });
 * const reasoner = openAICompatible({ baseURL: "https://api.openai.com/v1", apiKey, model: "o4-mini", reasoningEffort: "low" });
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function openAICompatible(options: OpenAICompatibleOptions): Model {
  const { apiKey, model, maxTokens } = options;
  const field =
    options.maxTokensField ??
    (/^(openai\/)?(o[1-9]|gpt-5)/i.test(model) ? "max_completion_tokens" : "max_tokens");
  return providerModel({
    provider: PROVIDER,
    providerName: options.provider ?? providerOfHost(options.baseURL),
    id: model,
    contextWindow: options.contextWindow,
    fetch: options.fetch,
    url: endpoint(options.baseURL, "/chat/completions"),
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    credentialHeaders: ["authorization"],
    extraHeaders: options.headers,
    settings: options,
    retry: options.retry,
    body: (request, settings) => openAIBody(request, settings, model, { field, maxTokens }),
    decoder: openAIDecoder,
  });
}

// ---- request ----------------------------------------------------------------------------

type OpenAIChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | OpenAIContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

type OpenAIContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  extra_content?: { google: { thought_signature: string } };
}

/** Returns the Chat Completions body of a request: `stream: true` with usage in the last
 * chunk, the settings under their wire names, the bound under `limit.field`. */
export function openAIBody(
  request: ModelRequest,
  settings: ModelSettings,
  model: string,
  limit: { field: string; maxTokens: number | undefined },
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: openAIMessages(request),
    stream: true,
    stream_options: { include_usage: true },
  };
  // Some compatible servers reject an empty `tools` array, so it is left out instead.
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.inputSchema,
      },
    }));
    const choice = request.toolChoice;
    if (choice === "none" || choice === "required") body.tool_choice = choice;
    else if (typeof choice === "object") {
      body.tool_choice = { type: "function", function: { name: choice.name } };
    }
    if (settings.parallelToolCalls !== undefined) {
      body.parallel_tool_calls = settings.parallelToolCalls;
    }
  }
  const bound = request.maxTokens ?? limit.maxTokens;
  if (bound !== undefined) body[limit.field] = bound;
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.topP !== undefined) body.top_p = settings.topP;
  if (settings.stop !== undefined) body.stop = settings.stop;
  if (settings.seed !== undefined) body.seed = settings.seed;
  if (settings.reasoningEffort !== undefined) body.reasoning_effort = settings.reasoningEffort;
  return body;
}

/**
 * Returns the Chat Completions messages: the system prompt first; `tool_use` blocks become the
 * assistant's `tool_calls`; each `tool_result` a `tool` message, in order, right after it.
 * A `tool` message holds text only, so images a tool returned follow the `tool` messages in one
 * user message, with that message's own text and images. Reasoning is not sent back.
 */
export function openAIMessages(request: ModelRequest): OpenAIChatMessage[] {
  const out: OpenAIChatMessage[] = [];
  if (request.system) out.push({ role: "system", content: request.system });
  for (const message of request.messages) {
    if (message.role === "assistant") out.push(assistantMessage(message));
    else out.push(...userMessages(message));
  }
  return out;
}

function assistantMessage(message: Message): OpenAIChatMessage {
  const text: string[] = [];
  const calls: OpenAIToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") text.push(block.text);
    if (block.type === "tool_use") {
      // Ollama's and vLLM's request parsers JSON-parse `arguments`; raw text kept from a
      // cut-off call would make the next turn a 400, so it goes back as `{}` (the tool's error
      // result already told the model what was wrong).
      const args = JSON.stringify(isJsonObject(block.input) ? block.input : {});
      const call: OpenAIToolCall = {
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: args },
      };
      if (block.signature !== undefined) {
        call.extra_content = { google: { thought_signature: block.signature } };
      }
      calls.push(call);
    }
  }
  const content = text.join("\n");
  if (calls.length === 0) return { role: "assistant", content };
  return { role: "assistant", content: content === "" ? null : content, tool_calls: calls };
}

function userMessages(message: Message): OpenAIChatMessage[] {
  const out: OpenAIChatMessage[] = [];
  const parts: OpenAIContentPart[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      const text: string[] = [];
      for (const item of block.content) {
        if (item.type === "image") parts.push(imagePart(item.mimeType, item.data));
        else text.push(toolContentText(item));
      }
      out.push({ role: "tool", tool_call_id: block.toolUseId, content: text.join("\n") });
    } else {
      const part = userPart(block);
      if (part) parts.push(part);
    }
  }
  if (parts.length === 0 && out.length > 0) return out;
  // Plain text goes as a string, which every compatible server accepts.
  if (parts.every((part): part is TextPart => part.type === "text")) {
    out.push({ role: "user", content: parts.map((part) => part.text).join("\n") });
  } else {
    out.push({ role: "user", content: parts });
  }
  return out;
}

type TextPart = Extract<OpenAIContentPart, { type: "text" }>;

function userPart(block: Block): OpenAIContentPart | undefined {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "image") return imagePart(block.mimeType, block.data);
  return undefined; // tool_use and reasoning blocks have no place in a user message
}

function imagePart(mimeType: string, data: string): OpenAIContentPart {
  return { type: "image_url", image_url: { url: `data:${mimeType};base64,${data}` } };
}

// ---- stream -----------------------------------------------------------------------------

interface PartialCall {
  index: number;
  id: string;
  name: string;
  args: string;
  signature?: string;
  /** The id its `tool_input_delta`s carried, which its `tool_call` keeps. */
  streamedAs?: string;
  /** How much of `args` went out as deltas. */
  sent: number;
}

interface RawUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

interface ContentPart {
  type?: string;
  text?: string;
  thinking?: string | { type?: string; text?: string }[];
}

interface Chunk {
  object?: string;
  error?: unknown;
  usage?: RawUsage | null;
  x_groq?: { usage?: RawUsage | null } | null;
  choices?: {
    delta?: {
      content?: string | ContentPart[] | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      refusal?: string | null;
      tool_calls?: {
        index?: number;
        id?: string;
        function?: { name?: string; arguments?: unknown };
        extra_content?: { google?: { thought_signature?: string } };
      }[];
    };
    finish_reason?: string | null;
  }[];
}

/**
 * Creates the decoder of one Chat Completions stream: text and reasoning pass through at once;
 * tool call fragments stream as `tool_input_delta`s, are joined per call and emitted as a
 * `tool_call` when the finish reason arrives; the
 * reasoning block, usage and `finish` follow at `[DONE]`.
 *
 * A fragment joins the open call of its `index` unless it carries a different id: Ollama sends
 * parallel calls all at index 0, each with its own id, and they are separate calls. An error
 * arrives as `{ "error": … }` (OpenAI), a flat `{ "object": "error", … }` (vLLM) or an
 * `event: error` frame (llama.cpp); each fails the turn with the server's message.
 */
export function openAIDecoder(secrets: readonly string[]): ProviderDecoder {
  const calls: PartialCall[] = [];
  const open = new Map<number, PartialCall>();
  let flushed = false;
  let finishReason: string | undefined;
  let refused = false;
  let reasoning = "";
  let usage: ModelUsage | undefined;

  // The reasoning block comes out before the calls, in the order the transcript keeps them.
  function flushReasoning(emit: (event: ModelEvent) => void): void {
    if (reasoning !== "")
      emit({ type: "reasoning", block: { type: "reasoning", text: reasoning } });
    reasoning = "";
  }

  function flushCalls(emit: (event: ModelEvent) => void): void {
    flushReasoning(emit);
    if (flushed) return;
    flushed = true;
    calls.forEach((call, n) => {
      if (!call.name) {
        const message = `tool call at index ${call.index} has no function name`;
        throw new ModelError({ type: "invalid_response", provider: PROVIDER, message });
      }
      streamArguments(call, n, emit);
      const event: ModelEvent = {
        type: "tool_call",
        id: call.streamedAs ?? (call.id || `call_${n + 1}`),
        name: call.name,
        arguments: toolArguments(call.args),
      };
      if (call.signature !== undefined) event.signature = call.signature;
      emit(event);
    });
  }

  // Sends what arrived of a call's arguments since the last piece, once its name is known. The
  // id is fixed at the first piece (a server may send a call's id late, or the same id for
  // every call): the pieces and the `tool_call` must name one call, and only that one.
  function streamArguments(call: PartialCall, n: number, emit: (event: ModelEvent) => void): void {
    if (!call.name || call.sent === call.args.length) return;
    if (call.streamedAs === undefined) {
      const clash = call.id === "" || calls.some((c) => c !== call && c.streamedAs === call.id);
      call.streamedAs = clash ? `call_${n + 1}` : call.id;
    }
    const text = call.args.slice(call.sent);
    call.sent = call.args.length;
    emit({ type: "tool_input_delta", id: call.streamedAs, name: call.name, text });
  }

  function finish(emit: (event: ModelEvent) => void): void {
    flushCalls(emit);
    if (usage) emit({ type: "usage", ...usage });
    emit({ type: "finish", reason: finishReasonOf(finishReason, calls.length > 0, refused) });
  }

  function think(text: string, emit: (event: ModelEvent) => void): void {
    if (text === "") return;
    reasoning += text;
    emit({ type: "reasoning_delta", text });
  }

  function onChunk(chunk: Chunk, data: string, emit: (event: ModelEvent) => void): void {
    if ((chunk.error !== undefined && chunk.error !== null) || chunk.object === "error") {
      throw providerError(PROVIDER, errorFields(data), secrets);
    }
    const raw = chunk.usage ?? chunk.x_groq?.usage; // Groq reports usage under `x_groq`
    if (raw) usage = usageOf(raw);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    think(delta?.reasoning_content ?? delta?.reasoning ?? "", emit);
    const content = delta?.content;
    if (typeof content === "string" && content !== "") emit({ type: "text_delta", text: content });
    // Mistral sends typed parts: `text`, and `thinking` holding text parts of its own.
    if (Array.isArray(content)) {
      for (const part of content) {
        if (part.type === "text" && part.text) emit({ type: "text_delta", text: part.text });
        if (part.type === "thinking") {
          const inner = part.thinking;
          if (typeof inner === "string") think(inner, emit);
          else for (const piece of inner ?? []) think(piece.text ?? "", emit);
        }
      }
    }
    if (typeof delta?.refusal === "string" && delta.refusal !== "") {
      refused = true;
      emit({ type: "text_delta", text: delta.refusal });
    }
    delta?.tool_calls?.forEach((fragment, position) => {
      const index = fragment.index ?? position;
      let call = open.get(index);
      if (!call || (fragment.id && call.id && fragment.id !== call.id)) {
        call = { index, id: "", name: "", args: "", sent: 0 };
        calls.push(call);
        open.set(index, call);
      }
      if (fragment.id && !call.id) call.id = fragment.id;
      if (fragment.function?.name && !call.name) call.name = fragment.function.name;
      const signature = fragment.extra_content?.google?.thought_signature;
      if (typeof signature === "string") call.signature = signature;
      const args = fragment.function?.arguments;
      // A few servers send the arguments as an object in one piece.
      if (typeof args === "string") call.args += args;
      else if (args !== undefined && args !== null) call.args += JSON.stringify(args);
      streamArguments(call, calls.indexOf(call), emit);
    });
    if (choice.finish_reason) {
      finishReason = choice.finish_reason;
      flushCalls(emit);
    }
  }

  return {
    event(event: SseEvent, emit) {
      if (event.event === "error") throw providerError(PROVIDER, errorFields(event.data), secrets);
      if (event.data === "[DONE]") {
        finish(emit);
        return true;
      }
      let chunk: Chunk;
      try {
        chunk = JSON.parse(event.data) as Chunk;
      } catch {
        const message = `chunk is not JSON: ${excerpt(event.data, secrets, 100)}`;
        throw new ModelError({ type: "invalid_response", provider: PROVIDER, message });
      }
      if (typeof chunk === "object" && chunk !== null) onChunk(chunk, event.data, emit);
      return false;
    },
    end(emit) {
      // A few servers omit `[DONE]`; a turn whose finish reason arrived is complete.
      if (finishReason !== undefined) return finish(emit);
      const message = "stream ended early (no finish reason and no [DONE])";
      throw new ModelError({ type: "stream", provider: PROVIDER, message });
    },
  };
}

function finishReasonOf(
  reason: string | undefined,
  hasCalls: boolean,
  refused: boolean,
): FinishReason {
  switch (reason) {
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    default:
      if (refused) return "refusal";
      // Ollama and others report `stop` for a turn that called tools.
      return hasCalls ? "tool_calls" : "stop";
  }
}

function usageOf(raw: RawUsage): ModelUsage {
  const usage: ModelUsage = {
    inputTokens: raw.prompt_tokens ?? 0,
    outputTokens: raw.completion_tokens ?? 0,
  };
  const cached = raw.prompt_tokens_details?.cached_tokens;
  if (typeof cached === "number") usage.cacheReadTokens = cached;
  return usage;
}
