// toolwire's messages in the shape the GenAI conventions give `gen_ai.input.messages` and
// `gen_ai.output.messages` (a MUST once they are recorded): a list of `{ role, parts }`, each
// part discriminated by `type`, an output message with its `finish_reason`. Tool results, which
// toolwire keeps in user messages, become `tool` messages, as the conventions put them.

import type { ModelToolCall } from "../agent/transcript.ts";
import type { Block, Message } from "../models/message.ts";

/** One message of the conventions' schema. */
export interface GenAiMessage {
  role: "user" | "assistant" | "tool";
  parts: Record<string, unknown>[];
  finish_reason?: string;
}

/**
 * A run's input or a turn's transcript as input messages: text (a run's `input`) is one user
 * message; each transcript message keeps its order, a user message's tool results split off into
 * `tool` messages where they stand.
 */
export function inputMessages(input: unknown): GenAiMessage[] {
  if (typeof input === "string") return [{ role: "user", parts: [textPart(input)] }];
  if (!Array.isArray(input)) return [];
  const messages: GenAiMessage[] = [];
  for (const message of input as Message[]) {
    let last: GenAiMessage | undefined;
    for (const block of message.content) {
      const role = block.type === "tool_result" ? "tool" : message.role;
      if (last?.role !== role) {
        last = { role, parts: [] };
        messages.push(last);
      }
      last.parts.push(partOf(block));
    }
  }
  return messages;
}

/**
 * What a turn or a run answered, as one assistant output message: a turn's `before` (reasoning,
 * server tools), the text, a turn's tool calls. Its `finish_reason` is the model's
 * (`FinishReason`), else what ended the turn or run (`ended`: its `end` or `stop`).
 */
export function outputMessages(
  answer: { text: string; toolCalls?: unknown; before?: unknown },
  finish: unknown,
  ended: unknown,
): GenAiMessage[] {
  const before = Array.isArray(answer.before) ? (answer.before as Block[]) : [];
  const calls = Array.isArray(answer.toolCalls) ? (answer.toolCalls as ModelToolCall[]) : [];
  const parts = before.map(partOf);
  if (answer.text !== "") parts.push(textPart(answer.text));
  for (const call of calls) {
    parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments });
  }
  return [{ role: "assistant", parts, finish_reason: finishReasonOf(finish, ended) }];
}

// The conventions' values where toolwire has one of the same meaning (`tool_call`, `error`;
// `stop`, `length` and `content_filter` are the same words), else toolwire's own, which their
// schema allows: `refusal`, `pause`, a run's `max_turns`, `cancelled`, ….
function finishReasonOf(finish: unknown, ended: unknown): string {
  if (finish === "tool_calls") return "tool_call";
  if (typeof finish === "string") return finish;
  if (ended === "failed" || ended === "error") return "error";
  if (ended === "complete" || ended === "done") return "stop";
  return typeof ended === "string" ? ended : "error";
}

function textPart(content: string): Record<string, unknown> {
  return { type: "text", content };
}

function partOf(block: Block): Record<string, unknown> {
  switch (block.type) {
    case "text":
      return textPart(block.text);
    case "tool_use":
      return { type: "tool_call", id: block.id, name: block.name, arguments: block.input };
    case "tool_result": {
      // Text only, as most tools answer (an untrusted tool's between its markers), is the text
      // as a chat API sends it, one line per item; anything else the content list itself.
      const { content } = block;
      const response = content.every((item) => item.type === "text")
        ? content.map((item) => item.text).join("\n")
        : content;
      return { type: "tool_call_response", id: block.toolUseId, response };
    }
    case "image":
      return { type: "blob", modality: "image", mime_type: block.mimeType, content: block.data };
    case "reasoning":
      // Never the encrypted thinking of `redacted`: it is the provider's, not readable content.
      return { type: "reasoning", content: block.text };
    case "server_tool": {
      // A provider's own tool: its call names the tool, its result answers the call's id.
      const { data } = block;
      return typeof data.name === "string"
        ? { type: "server_tool_call", id: data.id, name: data.name, server_tool_call: data }
        : {
            type: "server_tool_call_response",
            id: data.tool_use_id,
            server_tool_call_response: data,
          };
    }
  }
}
