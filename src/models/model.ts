import type { Message, ReasoningBlock, ServerToolBlock } from "./message.ts";
import type { ModelError } from "./model-error.ts";

/** What a model is told about one tool it may call. */
export interface ModelTool {
  name: string;
  /** What the tool does, for the model to read. */
  description?: string;
  /** JSON Schema of the tool's arguments. */
  inputSchema: object;
}

/**
 * One turn's input, independent of any provider. Sampling and reasoning settings live on the
 * adapter (`openAICompatible`, `anthropic`, `aiSdkModel`) as `ModelSettings`; a request's own
 * `settings` override them field by field for this turn.
 */
export interface ModelRequest {
  /** The system prompt; it travels beside the messages, as both wire formats need it apart. */
  system?: string;
  /** The transcript so far. */
  messages: Message[];
  /** The tools the model may call, in the order they are sent. */
  tools: ModelTool[];
  /** Upper bound on generated tokens; overrides the adapter's `maxTokens`. */
  maxTokens?: number;
  /**
   * Whether and which tools the model may call; `auto` by default. To get an answer without
   * tool calls from a transcript that holds `tool_use` and `tool_result` blocks, send the tools
   * with `none` rather than no tools: the Anthropic API (and some compatible servers) reject
   * such a transcript when no tools are defined.
   */
  toolChoice?: ToolChoice;
  /** This turn's settings, over the adapter's. */
  settings?: ModelSettings;
}

/**
 * Tool choice: `auto` (the model chooses), `none` (no calls this turn, tools still declared),
 * `required` (at least one call) or `{ type: "tool", name }` (exactly that tool).
 */
export type ToolChoice = "auto" | "none" | "required" | { type: "tool"; name: string };

/**
 * Sampling, reasoning and wire settings shared by the adapters. Every field is optional and
 * left to the provider's default when absent; a provider that has no such parameter ignores it
 * (see each adapter's docs for the field it sends).
 */
export interface ModelSettings {
  /** Sampling temperature (OpenAI 0–2, Anthropic 0–1). */
  temperature?: number;
  /** Nucleus sampling, 0–1. */
  topP?: number;
  /** Sequences that end the answer (`stop` / `stop_sequences`). */
  stop?: string[];
  /** Seed for reproducible sampling, where the provider has one (OpenAI-compatible). */
  seed?: number;
  /** `false` asks for at most one tool call per turn (`parallel_tool_calls: false`,
   * Anthropic `disable_parallel_tool_use`). */
  parallelToolCalls?: boolean;
  /** OpenAI-style `reasoning_effort` (`minimal`, `low`, `medium`, `high`, …). */
  reasoningEffort?: string;
  /**
   * Fields merged last into the JSON body, for provider parameters toolwire has no name for
   * (`{ top_k: 40 }`, `{ chat_template_kwargs: { enable_thinking: false } }`). A field set to
   * `undefined` removes what the adapter would send.
   */
  extraBody?: Record<string, unknown>;
}

/**
 * The token counts of one turn. `inputTokens` counts every input token, cached or not
 * (Anthropic reports cache reads and writes apart from `input_tokens`, so its adapter adds them
 * up): a measure of how full the context window is, which is what compaction needs.
 */
export interface ModelUsage {
  /** Input tokens, including those read from or written to a prompt cache. */
  inputTokens: number;
  /** Generated tokens (reasoning included). */
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache, when reported. */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache, when reported. */
  cacheWriteTokens?: number;
}

/** The reasons a model turn ends, as an `as const` list. */
export const FINISH_REASONS = [
  "stop",
  "tool_calls",
  "length",
  "content_filter",
  "refusal",
  "pause",
] as const;

/**
 * Why a model turn ended: `stop` (the model finished), `tool_calls`, `length` (cut off by the
 * token bound or the context window), `content_filter` (the provider withheld output),
 * `refusal` (the model declined; its explanation, if any, came as text) or `pause` (the
 * provider paused a long run of its own server tools, Anthropic's `pause_turn`: sending the
 * transcript back as it is lets the model go on; the agent does so).
 */
export type FinishReason = (typeof FINISH_REASONS)[number];

/**
 * One item of a model's output stream, discriminated by `type` (`docs/design.md`, "Models",
 * P1–P4). A stream carries `retry` events only before any output, then `text_delta`,
 * `reasoning_delta`, `reasoning`, `tool_input_delta` and `tool_call` events, then at most one `usage`, then exactly
 * one `finish`; a failure errors the stream with a `ModelError` instead.
 *
 * - `reasoning_delta`: streamed thinking, never answer text.
 * - `reasoning`: one complete reasoning block (with the provider's signature) to keep in the
 *   transcript, so the adapter can send it back where the provider requires it.
 * - `tool_input_delta`: a piece of a tool call's arguments as the provider streams them, with
 *   the `id` and `name` its `tool_call` will carry, before that `tool_call`. Joined, a call's
 *   pieces are the argument text its `arguments` were parsed from (none when that text is
 *   empty), so a UI can show a long argument as it is written; a call cut off before its
 *   `tool_call` leaves pieces that nothing completes.
 * - `server_tool`: one complete block of a tool the provider ran itself (Anthropic's web
 *   search, …), to keep in the transcript; it is never a `tool_call` and never runs locally.
 * - `tool_call`: `signature` is an opaque token the provider wants back with the call
 *   (Gemini's thought signature); `providerMetadata` the same for an AI SDK provider.
 * - `retry`: the request failed before any output and is tried again after `delayMs`.
 */
export type ModelEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  | { type: "reasoning"; block: ReasoningBlock }
  | { type: "server_tool"; block: ServerToolBlock }
  | { type: "tool_input_delta"; id: string; name: string; text: string }
  | {
      type: "tool_call";
      id: string;
      name: string;
      arguments: unknown;
      signature?: string;
      providerMetadata?: Record<string, Record<string, unknown>>;
    }
  | ({ type: "usage" } & ModelUsage)
  | { type: "retry"; attempt: number; delayMs: number; error: ModelError }
  | { type: "finish"; reason: FinishReason };

/** Options of one `Model.stream` call. */
export interface ModelStreamOptions {
  /** Aborting it aborts the provider request (and a retry's wait); the stream errors with
   * `ModelError` `cancelled`. */
  signal?: AbortSignal;
}

/** A language model behind one streaming call. */
export interface Model {
  /** The model's name, as sent to the provider. */
  id: string;
  /** The context window in tokens, when known (compaction uses it). */
  contextWindow?: number;
  /**
   * Who serves the model, as OpenTelemetry's `gen_ai.provider.name` names it: one of the
   * GenAI conventions' well-known values when one applies (`openai`, `anthropic`,
   * `azure.ai.openai`, `gcp.gemini`, `gcp.vertex_ai`, `aws.bedrock`, `groq`, `mistral_ai`,
   * `deepseek`, `x_ai`, …), else a lower-case name of its own (`web-llm`, `ollama`).
   * `toolwire/otel` sets it on the run's and the turns' spans and metrics; a model that names
   * none leaves the attribute unset.
   */
  readonly provider?: string;
  /**
   * Returns the model's output for one request as a stream of events. It never throws: the
   * stream errors with a `ModelError` when the turn fails, and cancelling it aborts the
   * provider request.
   */
  stream(request: ModelRequest, options?: ModelStreamOptions): ReadableStream<ModelEvent>;
}
