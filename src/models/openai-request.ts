import type { Block, Message } from "./message.ts";
import type { ModelRequest } from "./model.ts";
import { toolContentText } from "./tool-content-text.ts";

/**
 * OpenAI chat message type: one entry of a Chat Completions `messages` array.
 */
export type OpenAIChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | OpenAIContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * OpenAI content part type: a piece of a multi-part user message.
 */
export type OpenAIContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

/**
 * OpenAI tool call interface: a call the assistant made, as sent back in the transcript.
 */
export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * Returns the Chat Completions request body for a model request.
 *
 * @param request The provider-neutral request.
 * @param model The model name.
 * @param maxTokens The adapter's default bound on generated tokens.
 * @returns The JSON body, with `stream: true` and `stream_options.include_usage`.
 */
export function openAIBody(
  request: ModelRequest,
  model: string,
  maxTokens: number | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: openAIMessages(request),
    stream: true,
    stream_options: { include_usage: true },
  };
  // Hint: some compatible servers reject an empty `tools` array, so it is left out instead.
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.inputSchema,
      },
    }));
    if (request.toolChoice === "none") body.tool_choice = "none";
  }
  const limit = request.maxTokens ?? maxTokens;
  if (limit !== undefined) body.max_tokens = limit;
  return body;
}

/**
 * Returns the Chat Completions messages for a request: the system prompt first; `tool_use`
 * blocks become the assistant's `tool_calls`; each `tool_result` becomes a `tool` message, in
 * order, right after the assistant message; images become data URLs.
 *
 * Hint: a `tool` message holds text only, so images a tool returned follow the `tool` messages
 * in one user message, together with that message's own text and images.
 *
 * @param request The provider-neutral request.
 * @returns The messages.
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
      const args =
        typeof block.input === "string" ? block.input : JSON.stringify(block.input ?? {});
      calls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: args },
      });
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
  const hasTools = out.length > 0;
  if (parts.length === 0 && hasTools) return out;
  // Hint: plain text goes as a string, which every compatible server accepts.
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
  if (block.type === "image") return imagePart(block.mediaType, block.data);
  return undefined; // a tool_use block has no place in a user message
}

function imagePart(mediaType: string, data: string): OpenAIContentPart {
  return { type: "image_url", image_url: { url: `data:${mediaType};base64,${data}` } };
}
