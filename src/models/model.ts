import type { Message } from "./message.ts";

/**
 * Model tool interface: what a model is told about one tool it may call.
 */
export interface ModelTool {
  /** The tool's name. */
  name: string;
  /** What the tool does, for the model to read. */
  description?: string;
  /** JSON Schema of the tool's arguments. */
  inputSchema: object;
}

/**
 * Model request interface: one turn's input, independent of any provider.
 */
export interface ModelRequest {
  /** The system prompt. */
  system?: string;
  /** The transcript so far. */
  messages: Message[];
  /** The tools the model may call, in the order they are sent. */
  tools: ModelTool[];
  /** Upper bound on generated tokens; overrides the adapter's `maxTokens`. */
  maxTokens?: number;
  /**
   * Whether the model may call the tools: `auto` (the default) lets it choose, `none` forbids
   * calls for this turn while still declaring the tools.
   *
   * Hint: to get an answer without tool calls from a transcript that holds `tool_use` and
   * `tool_result` blocks, send the tools with `none` rather than no tools; the Anthropic API
   * (and some compatible servers) reject such a transcript when no tools are defined.
   */
  toolChoice?: ToolChoice;
}

/** The tool choices of a request, as an `as const` list. */
export const TOOL_CHOICES = ["auto", "none"] as const;

/** Tool choice type: whether the model may call the request's tools (`auto`) or not (`none`). */
export type ToolChoice = (typeof TOOL_CHOICES)[number];

/**
 * Model usage interface: the token counts of one turn.
 *
 * Hint: `inputTokens` counts every input token, cached or not (Anthropic reports cache reads
 * and writes apart from `input_tokens`, so its adapter adds them up). That makes it a measure of
 * how full the context window is, which is what compaction needs.
 */
export interface ModelUsage {
  /** Input tokens, including those read from or written to a prompt cache. */
  inputTokens: number;
  /** Generated tokens. */
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache, when reported. */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache, when reported. */
  cacheWriteTokens?: number;
}

/** The reasons a model turn ends, as an `as const` list. */
export const FINISH_REASONS = ["stop", "tool_calls", "length", "error"] as const;

/**
 * Finish reason type: why a model turn ended.
 */
export type FinishReason = (typeof FINISH_REASONS)[number];

/**
 * Model event type: one item of a model's output stream, discriminated by `type`.
 *
 * A stream carries `text_delta` and `tool_call` events, then at most one `usage`, then
 * exactly one `finish`; a failure errors the stream with a `ModelError` instead.
 */
export type ModelEvent =
  | { type: "text_delta"; text: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | ({ type: "usage" } & ModelUsage)
  | { type: "finish"; reason: FinishReason };

/**
 * Model stream options interface.
 */
export interface ModelStreamOptions {
  /** Aborting it aborts the provider request; the stream errors with `ModelError` `cancelled`. */
  signal?: AbortSignal;
}

/**
 * Model interface: a language model behind one streaming call.
 */
export interface Model {
  /** The model's name, as sent to the provider. */
  id: string;
  /** The context window in tokens, when known (compaction uses it). */
  contextWindow?: number;
  /**
   * Returns the model's output for one request as a stream of events.
   *
   * @param request The turn's input.
   * @param options The abort signal.
   * @returns The events; the stream errors with a `ModelError` when the turn fails, and
   *   cancelling it aborts the provider request.
   */
  stream(request: ModelRequest, options?: ModelStreamOptions): ReadableStream<ModelEvent>;
}
