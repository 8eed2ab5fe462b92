// One Messages API turn (`docs/design.md`, "Models"): the options, the request body, and the
// decoder of the streamed events. The HTTP call and retries are in `provider.ts`.
import { unreachable } from "../errors.ts";
import type { ToolContent } from "../execution/tool-content.ts";
import { excerpt } from "../redaction.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
import type { SseEvent } from "../sse/sse-parser.ts";
import type { Block, Message, ReasoningBlock, ServerToolBlock } from "./message.ts";
import type { FinishReason, Model, ModelEvent, ModelRequest, ModelSettings } from "./model.ts";
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

const PROVIDER = "anthropic";
/** Anthropic requires `max_tokens`; this is the bound used when neither side sets one. */
const DEFAULT_MAX_TOKENS = 4096;

/**
 * Options of `anthropic`. Of the `ModelSettings`, `temperature`, `topP` (`top_p`), `stop`
 * (`stop_sequences`), `parallelToolCalls: false` (`disable_parallel_tool_use`) and `extraBody`
 * are sent; `seed` and `reasoningEffort` have no Messages API field and are ignored.
 */
export interface AnthropicOptions extends ModelSettings {
  /** Sent as `x-api-key`. */
  apiKey: string;
  /** The model name, such as `claude-sonnet-4-5`. */
  model: string;
  /** The API root; `https://api.anthropic.com` by default. */
  baseURL?: string;
  /** The model's context window in tokens, for compaction. */
  contextWindow?: number;
  /** Extra request headers (`anthropic-beta`, …); they override the defaults. */
  headers?: Record<string, string>;
  /** The `fetch` to use; `globalThis.fetch`, looked up at call time, when absent. */
  fetch?: typeof fetch;
  /** Default bound on generated tokens (`max_tokens`, which the API requires); 4096 if absent. */
  maxTokens?: number;
  /**
   * Extended thinking with this many tokens (`thinking.budget_tokens`, at least 1024 and below
   * `maxTokens`). Thinking blocks stream as `reasoning_delta` and are sent back, signatures
   * intact, as the API requires when a thinking turn called tools. Off when absent.
   */
  thinkingBudget?: number;
  /**
   * Prompt caching: `true` marks the stable prefix with `cache_control: { type: "ephemeral" }`
   * breakpoints: the system prompt, the last tool, and the last block of the transcript (the
   * next turn's prefix). Off by default; cache reads and writes show in `usage`.
   */
  cache?: boolean;
  /** Retries before any output (429, 529 overloaded, 5xx); `false` for one attempt. */
  retry?: RetryOptions | false;
  /**
   * Tools Anthropic runs itself, declared as the API takes them and sent after the request's
   * own tools: `{ type: "web_search_20250305", name: "web_search", max_uses: 5 }`,
   * `{ type: "web_fetch_20250910", name: "web_fetch" }` (with its `anthropic-beta` header),
   * code execution, tool search, advisor. Their calls and results come back as `server_tool`
   * blocks, kept in the transcript and never run locally. None by default.
   */
  serverTools?: Record<string, unknown>[];
}

/**
 * Creates a model that talks to the Anthropic Messages API (`POST {baseURL}/v1/messages` with
 * `stream: true`). It sends `anthropic-dangerous-direct-browser-access: true`, so a page can
 * call the API with a key the user typed in. A `refusal` stop reason finishes with `refusal`.
 *
 * @example
 * ```ts
 * const model = anthropic({ apiKey, model: "claude-sonnet-4-5", contextWindow: 200_000, cache: true });
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function anthropic(options: AnthropicOptions): Model {
  const { apiKey, model } = options;
  return providerModel({
    provider: PROVIDER,
    providerName: PROVIDER,
    id: model,
    contextWindow: options.contextWindow,
    fetch: options.fetch,
    url: endpoint(options.baseURL ?? "https://api.anthropic.com", "/v1/messages"),
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      "x-api-key": apiKey,
      "anthropic-version": "2023-06-01",
      "anthropic-dangerous-direct-browser-access": "true",
    },
    credentialHeaders: ["x-api-key"],
    extraHeaders: options.headers,
    settings: options,
    retry: options.retry,
    body: (request, settings) => anthropicBody(request, settings, options),
    decoder: anthropicDecoder,
  });
}

// ---- request ----------------------------------------------------------------------------

type CacheControl = { cache_control?: { type: "ephemeral" } };

type AnthropicBlock = CacheControl &
  (
    | { type: "text"; text: string }
    | { type: "image"; source: { type: "base64"; media_type: string; data: string } }
    | { type: "tool_use"; id: string; name: string; input: object }
    | { type: "tool_result"; tool_use_id: string; content?: AnthropicBlock[]; is_error?: boolean }
    | { type: "thinking"; thinking: string; signature: string }
    | { type: "redacted_thinking"; data: string }
    | ({ type: ServerBlockType } & Record<string, unknown>)
  );

/**
 * The blocks of tools Anthropic runs itself: `server_tool_use` (web search, web fetch, code
 * execution, tool search, advisor), `mcp_tool_use` (the MCP connector), and their results
 * (`web_search_tool_result`, `bash_code_execution_tool_result`, `advisor_tool_result`, …).
 */
type ServerBlockType = "server_tool_use" | "mcp_tool_use" | `${string}_tool_result`;

/** Checks whether a block type the API sent is one of its server tools' blocks. A response never
 * holds a client `tool_result`, so every other `…_tool_result` is a server tool's. */
function isServerBlockType(type: string | undefined): type is ServerBlockType {
  if (type === undefined || type === "tool_result") return false;
  return type === "server_tool_use" || type === "mcp_tool_use" || type.endsWith("_tool_result");
}

interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

const EPHEMERAL = { type: "ephemeral" } as const;

/** Returns the Messages API body of a request: `stream: true`, the system prompt at the top
 * level, `max_tokens` always set. */
export function anthropicBody(
  request: ModelRequest,
  settings: ModelSettings,
  options: Pick<
    AnthropicOptions,
    "model" | "maxTokens" | "thinkingBudget" | "cache" | "serverTools"
  >,
): Record<string, unknown> {
  const messages = withoutTrailingSpace(request.messages.map(anthropicMessage));
  const body: Record<string, unknown> = {
    model: options.model,
    max_tokens: request.maxTokens ?? options.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages,
    stream: true,
  };
  if (request.system) {
    body.system = options.cache
      ? [{ type: "text", text: request.system, cache_control: EPHEMERAL }]
      : request.system;
  }
  const server = options.serverTools ?? [];
  if (request.tools.length > 0 || server.length > 0) {
    const tools: Record<string, unknown>[] = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      input_schema: tool.inputSchema,
    }));
    tools.push(...server);
    if (options.cache) tools[tools.length - 1] = { ...tools.at(-1), cache_control: EPHEMERAL };
    body.tools = tools;
    const choice = toolChoice(request.toolChoice, settings.parallelToolCalls === false);
    if (choice) body.tool_choice = choice;
  }
  if (options.cache) {
    const block = messages.at(-1)?.content.at(-1);
    if (block && block.type !== "thinking" && block.type !== "redacted_thinking") {
      block.cache_control = EPHEMERAL;
    }
  }
  if (options.thinkingBudget !== undefined) {
    body.thinking = { type: "enabled", budget_tokens: options.thinkingBudget };
  }
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.topP !== undefined) body.top_p = settings.topP;
  if (settings.stop !== undefined) body.stop_sequences = settings.stop;
  return body;
}

function toolChoice(choice: ModelRequest["toolChoice"], serial: boolean): object | undefined {
  const parallel = serial ? { disable_parallel_tool_use: true } : {};
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any", ...parallel };
  if (typeof choice === "object") return { type: "tool", name: choice.name, ...parallel };
  // `auto` is the API's default, so it is sent only to carry the parallel-call switch.
  return serial ? { type: "auto", ...parallel } : undefined;
}

/**
 * Returns the Messages API form of one message. Tool results are moved before any other block
 * of their message and empty text blocks dropped, as the API requires; reasoning without an
 * Anthropic signature (from another provider) is dropped, as the API would reject it.
 */
export function anthropicMessage(message: Message): AnthropicMessage {
  const results: AnthropicBlock[] = [];
  const others: AnthropicBlock[] = [];
  for (const block of message.content) {
    const mapped = anthropicBlock(block);
    if (!mapped) continue;
    (mapped.type === "tool_result" ? results : others).push(mapped);
  }
  const content = [...results, ...others];
  // The API rejects a message with no content; a placeholder keeps the turn order valid.
  if (content.length === 0) content.push({ type: "text", text: "(empty)" });
  return { role: message.role, content };
}

function anthropicBlock(block: Block): AnthropicBlock | undefined {
  switch (block.type) {
    case "text":
      return block.text.trim() === "" ? undefined : { type: "text", text: block.text };
    case "image":
      return imageBlock(block.mimeType, block.data);
    case "tool_use":
      // `input` must be an object; arguments kept as raw text (they were not valid JSON) are
      // sent as `{}`, and the tool's error result tells the model what went wrong.
      return {
        type: "tool_use",
        id: block.id,
        name: block.name,
        input: isJsonObject(block.input) ? block.input : {},
      };
    case "tool_result": {
      const content = block.content.flatMap(resultBlock);
      return {
        type: "tool_result",
        tool_use_id: block.toolUseId,
        ...(content.length > 0 ? { content } : {}),
        ...(block.isError ? { is_error: true } : {}),
      };
    }
    case "reasoning":
      if (block.redacted !== undefined) return { type: "redacted_thinking", data: block.redacted };
      if (block.signature === undefined) return undefined;
      return { type: "thinking", thinking: block.text, signature: block.signature };
    case "server_tool":
      // Sent back exactly as the API sent it (a copy: a cache breakpoint may be added to it);
      // another provider's server content means nothing here.
      if (block.provider !== PROVIDER || !isServerBlockType(String(block.data.type)))
        return undefined;
      return { ...block.data, type: block.data.type as ServerBlockType };
    default:
      return unreachable(block);
  }
}

function withoutTrailingSpace(messages: AnthropicMessage[]): AnthropicMessage[] {
  // A transcript may end on an assistant message (a partial answer kept after a cancellation
  // or a failure, then resumed); the API takes it as a prefill and rejects one whose last text
  // ends in whitespace.
  const last = messages.at(-1);
  const block = last?.content.at(-1);
  if (last?.role !== "assistant" || block?.type !== "text" || block.text === block.text.trimEnd())
    return messages;
  const content = [
    ...last.content.slice(0, -1),
    { type: "text" as const, text: block.text.trimEnd() },
  ];
  return [...messages.slice(0, -1), { role: "assistant", content }];
}

function resultBlock(item: ToolContent): AnthropicBlock[] {
  if (item.type === "image") return [imageBlock(item.mimeType, item.data)];
  const text = toolContentText(item);
  return text === "" ? [] : [{ type: "text", text }];
}

function imageBlock(mimeType: string, data: string): AnthropicBlock {
  return { type: "image", source: { type: "base64", media_type: mimeType, data } };
}

// ---- stream -----------------------------------------------------------------------------

interface RawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

interface StreamEvent {
  type?: string;
  index?: number;
  message?: { usage?: RawUsage };
  content_block?: Record<string, unknown> & {
    type?: string;
    id?: string;
    name?: string;
    text?: string;
    input?: unknown;
    thinking?: string;
    signature?: string;
    data?: string;
  };
  delta?: {
    type?: string;
    text?: string;
    partial_json?: string;
    thinking?: string;
    signature?: string;
    stop_reason?: string | null;
  };
  usage?: RawUsage;
}

type Pending =
  | { kind: "tool"; id: string; name: string; json: string; input: unknown }
  | { kind: "reasoning"; block: ReasoningBlock }
  | { kind: "server"; data: Record<string, unknown>; json: string };

/**
 * Creates the decoder of one Messages API stream: `text_delta` and `thinking_delta` pass
 * through at once, and so does each `input_json_delta` of a call (as `tool_input_delta`); a
 * tool call is emitted at its `content_block_stop` with the joined `input_json_delta`s, or the whole `input` of `content_block_start` when no delta came
 * (programmatic and deferred calls); a thinking block is emitted whole, with its signature, at
 * its stop. A server tool's block (`server_tool_use` with its joined input, or a result) is
 * emitted whole at its stop as `server_tool`, never as a `tool_call`: Anthropic ran it. Usage
 * and `finish` follow at `message_stop`; an `error` event (or any frame sent as `event: error`)
 * fails the stream with the server's message.
 */
export function anthropicDecoder(secrets: readonly string[]): ProviderDecoder {
  const pending = new Map<number, Pending>();
  const usage: Record<keyof RawUsage, number | undefined> = {
    input_tokens: undefined,
    output_tokens: undefined,
    cache_creation_input_tokens: undefined,
    cache_read_input_tokens: undefined,
  };
  let calls = 0;
  let stopReason: string | undefined;

  function addUsage(raw: RawUsage | undefined): void {
    // Later events repeat counts cumulatively, so the last value of each field wins.
    for (const key of Object.keys(usage) as (keyof RawUsage)[]) {
      const value = raw?.[key];
      if (typeof value === "number") usage[key] = value;
    }
  }

  function finish(emit: (event: ModelEvent) => void): void {
    const read = usage.cache_read_input_tokens;
    const write = usage.cache_creation_input_tokens;
    if (usage.input_tokens !== undefined || usage.output_tokens !== undefined) {
      emit({
        type: "usage",
        // Anthropic's `input_tokens` leaves out cached tokens; ours counts all input.
        inputTokens: (usage.input_tokens ?? 0) + (read ?? 0) + (write ?? 0),
        outputTokens: usage.output_tokens ?? 0,
        ...(read === undefined ? {} : { cacheReadTokens: read }),
        ...(write === undefined ? {} : { cacheWriteTokens: write }),
      });
    }
    emit({ type: "finish", reason: finishReasonOf(stopReason, calls > 0) });
  }

  function stop(index: number, emit: (event: ModelEvent) => void): void {
    const open = pending.get(index);
    if (!open) return;
    pending.delete(index);
    if (open.kind === "reasoning") {
      emit({ type: "reasoning", block: open.block });
      return;
    }
    if (open.kind === "server") {
      const data = open.data;
      if (open.json !== "") {
        const input = toolArguments(open.json);
        data.input = isJsonObject(input) ? input : {};
      }
      const block: ServerToolBlock = { type: "server_tool", provider: PROVIDER, data };
      emit({ type: "server_tool", block });
      return;
    }
    if (!open.id || !open.name) {
      const message = `tool_use block ${index} has no id or name`;
      throw new ModelError({ type: "invalid_response", provider: PROVIDER, message });
    }
    calls += 1;
    const whole = isJsonObject(open.input) ? open.input : {};
    // An input that came whole streams as one piece, so the pieces always add up to the call.
    if (open.json === "" && Object.keys(whole).length > 0) {
      emit({ type: "tool_input_delta", id: open.id, name: open.name, text: JSON.stringify(whole) });
    }
    const args = open.json === "" ? whole : toolArguments(open.json);
    emit({ type: "tool_call", id: open.id, name: open.name, arguments: args });
  }

  function onEvent(event: StreamEvent, data: string, emit: (event: ModelEvent) => void): boolean {
    const index = event.index ?? 0;
    // An open set of wire names, not one of our unions, hence a `default` that skips.
    switch (event.type) {
      case "message_start":
        addUsage(event.message?.usage);
        return false;
      case "content_block_start": {
        const block = event.content_block;
        if (block?.type === "tool_use") {
          const { id = "", name = "", input } = block;
          pending.set(index, { kind: "tool", id, name, json: "", input });
        } else if (isServerBlockType(block?.type)) {
          pending.set(index, { kind: "server", data: { ...block }, json: "" });
        } else if (block?.type === "thinking") {
          const reasoning: ReasoningBlock = { type: "reasoning", text: block.thinking ?? "" };
          if (block.signature) reasoning.signature = block.signature;
          if (reasoning.text) emit({ type: "reasoning_delta", text: reasoning.text });
          pending.set(index, { kind: "reasoning", block: reasoning });
        } else if (block?.type === "redacted_thinking" && typeof block.data === "string") {
          const reasoning = { type: "reasoning" as const, text: "", redacted: block.data };
          pending.set(index, { kind: "reasoning", block: reasoning });
        } else if (block?.type === "text" && block.text) {
          emit({ type: "text_delta", text: block.text });
        }
        return false;
      }
      case "content_block_delta": {
        const delta = event.delta;
        const open = pending.get(index);
        if (delta?.type === "text_delta" && delta.text) {
          emit({ type: "text_delta", text: delta.text });
        } else if (
          delta?.type === "input_json_delta" &&
          (open?.kind === "tool" || open?.kind === "server")
        ) {
          const piece = delta.partial_json ?? "";
          open.json += piece;
          // Only the model's own calls stream; a server tool's block is kept whole (P4).
          if (open.kind === "tool" && piece !== "" && open.id && open.name) {
            emit({ type: "tool_input_delta", id: open.id, name: open.name, text: piece });
          }
        } else if (
          delta?.type === "thinking_delta" &&
          open?.kind === "reasoning" &&
          delta.thinking
        ) {
          open.block.text += delta.thinking;
          emit({ type: "reasoning_delta", text: delta.thinking });
        } else if (delta?.type === "signature_delta" && open?.kind === "reasoning") {
          open.block.signature = (open.block.signature ?? "") + (delta.signature ?? "");
        }
        return false;
      }
      case "content_block_stop":
        stop(index, emit);
        return false;
      case "message_delta":
        if (event.delta?.stop_reason) stopReason = event.delta.stop_reason;
        addUsage(event.usage);
        return false;
      case "message_stop":
        finish(emit);
        return true;
      case "error":
        throw providerError(PROVIDER, errorFields(data), secrets);
      default:
        return false; // `ping`, and event kinds added after this adapter was written
    }
  }

  return {
    event(event: SseEvent, emit) {
      // An `event: error` frame is a failure whatever its data says: llama.cpp's compatible
      // endpoint sends its flat `{ code, message, type: "server_error" }` there, and a proxy
      // may send plain text.
      if (event.event === "error") throw providerError(PROVIDER, errorFields(event.data), secrets);
      let parsed: StreamEvent;
      try {
        parsed = JSON.parse(event.data) as StreamEvent;
      } catch {
        const message = `event ${event.event} is not JSON: ${excerpt(event.data, secrets, 100)}`;
        throw new ModelError({ type: "invalid_response", provider: PROVIDER, message });
      }
      if (typeof parsed !== "object" || parsed === null) return false;
      // No Messages API event is named `…_error`; a flat error object sent without the
      // `event: error` line (`{ type: "server_error", message }`) is one.
      if (typeof parsed.type === "string" && parsed.type.endsWith("_error")) {
        throw providerError(PROVIDER, errorFields(event.data), secrets);
      }
      return onEvent({ ...parsed, type: parsed.type ?? event.event }, event.data, emit);
    },
    end(emit) {
      // A turn whose stop reason arrived is complete even if `message_stop` was lost.
      if (stopReason !== undefined && pending.size === 0) return finish(emit);
      const message = "stream ended early (no message_stop)";
      throw new ModelError({ type: "stream", provider: PROVIDER, message });
    },
  };
}

function finishReasonOf(reason: string | undefined, hasCalls: boolean): FinishReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "refusal";
    case "pause_turn":
      return hasCalls ? "tool_calls" : "pause";
    default:
      return hasCalls ? "tool_calls" : "stop"; // end_turn, stop_sequence
  }
}
