import type { ToolContent } from "../execution/tool-content.ts";

/** Prose written by the user or the model. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** One tool call the model made, kept in the assistant message. */
export interface ToolUseBlock {
  type: "tool_use";
  /** The provider's call id; the matching `tool_result` echoes it. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments, as the model sent them (parsed JSON, or the raw text when it was not JSON). */
  input: unknown;
  /** An opaque token the provider asked to get back with this call (Gemini's thought
   * signature); adapters that have no use for it leave it out. */
  signature?: string;
  /** Provider data to send back with this block, as an AI SDK provider reported it
   * (`providerMetadata`, returned as `providerOptions`); only `toolwire/ai-sdk` reads it. */
  providerMetadata?: Record<string, Record<string, unknown>>;
}

/** The outcome of one tool call, sent back in a user message. */
export interface ToolResultBlock {
  type: "tool_result";
  /** The `id` of the `tool_use` block this answers. */
  toolUseId: string;
  /** What the tool returned. */
  content: ToolContent[];
  /** Whether the tool failed (the model sees the failure and can react). */
  isError: boolean;
  /**
   * Set by the agent loop on a result it wrote in place of the tool (see `ToolResultMark`);
   * absent on what a tool returned. Provider adapters never send it.
   */
  mark?: ToolResultMark;
}

/**
 * Why the agent loop wrote a result itself: `denied` (a person refused the call), `blocked`
 * (policy or the interlock refused it, nobody asked), `unknown` (no tool has that name),
 * `cancelled` (the run's cancellation stopped the call, or it never ran), `interrupted` (a
 * resumed run found the call running and did not run it again). Passes over a transcript read
 * this, not the result's wording, which a tool's own error text could imitate: compaction
 * keeps every `denied` and `blocked` result as human or policy evidence.
 */
export type ToolResultMark = (typeof TOOL_RESULT_MARKS)[number];

/** Every `ToolResultMark`, for checking a transcript read from storage. */
export const TOOL_RESULT_MARKS = [
  "denied",
  "blocked",
  "unknown",
  "cancelled",
  "interrupted",
] as const;

/** A base64 image the user attached. */
export interface ImageBlock {
  type: "image";
  /** The image's media type, such as `image/png` (the same name as `ToolContent`'s). */
  mimeType: string;
  /** The image bytes, base64-encoded. */
  data: string;
}

/**
 * The model's thinking, kept in the assistant message so it can be sent back: Anthropic
 * requires its thinking blocks, signatures intact, in the turn that called tools when thinking
 * is on. It never counts as answer text, and adapters of providers that take no reasoning
 * input drop it.
 */
export interface ReasoningBlock {
  type: "reasoning";
  /** The thinking as text (empty for redacted thinking). */
  text: string;
  /** The provider's signature over the thinking (Anthropic), sent back unchanged. */
  signature?: string;
  /** Encrypted thinking the provider withheld (Anthropic `redacted_thinking`), sent back as is. */
  redacted?: string;
  /** Provider data to send back with this block, as an AI SDK provider reported it
   * (`providerMetadata`, returned as `providerOptions`); only `toolwire/ai-sdk` reads it. */
  providerMetadata?: Record<string, Record<string, unknown>>;
}

/**
 * Content a provider's own tools produced inside the model's turn (Anthropic's server tools:
 * `web_search`, `web_fetch`, `code_execution`, `tool_search`, `advisor`, MCP connector calls):
 * the call (`server_tool_use`) and its result (`web_search_tool_result`, …) as two blocks of the
 * assistant message. The provider ran them; the agent never does. The adapter of the provider
 * that produced a block sends it back unchanged, as that provider requires; other adapters leave
 * it out of their requests.
 */
export interface ServerToolBlock {
  type: "server_tool";
  /** The provider that produced the block (`anthropic`). */
  provider: string;
  /** The block exactly as the provider sent it (JSON), such as `{ type: "server_tool_use",
   * id: "srvtoolu_…", name: "web_search", input: { query } }`. */
  data: Record<string, unknown>;
}

/** One piece of a message's content, discriminated by `type`. */
export type Block =
  | TextBlock
  | ToolUseBlock
  | ToolResultBlock
  | ImageBlock
  | ReasoningBlock
  | ServerToolBlock;

/**
 * One provider-neutral, JSON-serialisable transcript entry. There is no `system` role: the
 * system prompt travels beside the messages (`ModelRequest.system`).
 */
export interface Message {
  /** Who wrote it; tool results travel in `user` messages. */
  role: "user" | "assistant";
  /** The content blocks, in order. */
  content: Block[];
}
