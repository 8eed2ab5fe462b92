import { unreachable } from "../errors.ts";
import type { ToolContent } from "../execution/tool-content.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
import type { Block, Message } from "./message.ts";
import type { ModelRequest } from "./model.ts";
import { toolContentText } from "./tool-content-text.ts";

/** Anthropic requires `max_tokens`; this is the bound used when neither side sets one. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/**
 * Anthropic content block type: one block of a Messages API message.
 */
export type AnthropicBlock =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } }
  | { type: "tool_use"; id: string; name: string; input: object }
  | {
      type: "tool_result";
      tool_use_id: string;
      content?: AnthropicBlock[];
      is_error?: boolean;
    };

/**
 * Anthropic message interface: one entry of a Messages API `messages` array.
 */
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/**
 * Returns the Messages API request body for a model request.
 *
 * @param request The provider-neutral request.
 * @param model The model name.
 * @param maxTokens The adapter's default bound on generated tokens.
 * @returns The JSON body, with `stream: true` and the system prompt at the top level.
 */
export function anthropicBody(
  request: ModelRequest,
  model: string,
  maxTokens: number | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    max_tokens: request.maxTokens ?? maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages: withoutTrailingSpace(request.messages.map(anthropicMessage)),
    stream: true,
  };
  if (request.system) body.system = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      input_schema: tool.inputSchema,
    }));
    // Hint: `auto` is the API's default, so only `none` is sent; without tools there is
    // nothing to choose from and the field is left out.
    if (request.toolChoice === "none") body.tool_choice = { type: "none" };
  }
  return body;
}

/**
 * Returns the Messages API form of one message. `tool_use` and `tool_result` map natively;
 * the tool results are moved before any other block of their message, and empty text blocks
 * are dropped, as the API requires both.
 *
 * @param message The provider-neutral message.
 * @returns The Anthropic message.
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
  // Hint: the API rejects a message with no content; a placeholder keeps the turn order valid.
  if (content.length === 0) content.push({ type: "text", text: "(empty)" });
  return { role: message.role, content };
}

function anthropicBlock(block: Block): AnthropicBlock | undefined {
  switch (block.type) {
    case "text":
      return block.text.trim() === "" ? undefined : { type: "text", text: block.text };
    case "image":
      return imageBlock(block.mediaType, block.data);
    case "tool_use":
      // Hint: `input` must be an object; arguments kept as raw text (they were not valid
      // JSON) are sent as `{}`, and the tool's error result tells the model what went wrong.
      return { type: "tool_use", id: block.id, name: block.name, input: objectOr(block.input) };
    case "tool_result": {
      const content = block.content.flatMap(resultBlock);
      return {
        type: "tool_result",
        tool_use_id: block.toolUseId,
        ...(content.length > 0 ? { content } : {}),
        ...(block.isError ? { is_error: true } : {}),
      };
    }
    default:
      return unreachable(block);
  }
}

function withoutTrailingSpace(messages: AnthropicMessage[]): AnthropicMessage[] {
  // Hint: a transcript may end on an assistant message (a partial answer kept after a
  // cancellation or a failure, then resumed); the API takes it as a prefill and rejects one
  // whose last text ends in whitespace.
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

function imageBlock(mediaType: string, data: string): AnthropicBlock {
  return { type: "image", source: { type: "base64", media_type: mediaType, data } };
}

function objectOr(input: unknown): object {
  return isJsonObject(input) ? input : {};
}
