import type { ToolContent } from "../execution/tool-content.ts";

/**
 * Text block interface: prose written by the user or the model.
 */
export interface TextBlock {
  type: "text";
  /** The text. */
  text: string;
}

/**
 * Tool use block interface: one tool call the model made, kept in the assistant message.
 */
export interface ToolUseBlock {
  type: "tool_use";
  /** The provider's call id; the matching `tool_result` echoes it. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments, as the model sent them (parsed JSON, or the raw text when it was not JSON). */
  input: unknown;
}

/**
 * Tool result block interface: the outcome of one tool call, sent back in a user message.
 */
export interface ToolResultBlock {
  type: "tool_result";
  /** The `id` of the `tool_use` block this answers. */
  toolUseId: string;
  /** What the tool returned. */
  content: ToolContent[];
  /** Whether the tool failed (the model sees the failure and can react). */
  isError: boolean;
}

/**
 * Image block interface: a base64 image the user attached.
 */
export interface ImageBlock {
  type: "image";
  /** The image's media type, such as `image/png`. */
  mediaType: string;
  /** The image bytes, base64-encoded. */
  data: string;
}

/**
 * Block type: one piece of a message's content, discriminated by `type`.
 */
export type Block = TextBlock | ToolUseBlock | ToolResultBlock | ImageBlock;

/**
 * Message interface: one provider-neutral, JSON-serialisable transcript entry.
 *
 * Hint: there is no `system` role; the system prompt travels beside the messages
 * (`ModelRequest.system`), as both the Anthropic and the OpenAI mapping need it apart.
 */
export interface Message {
  /** Who wrote it; tool results travel in `user` messages. */
  role: "user" | "assistant";
  /** The content blocks, in order. */
  content: Block[];
}
