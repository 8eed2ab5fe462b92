import type { Block, Message } from "../models/message.ts";
import type { ModelToolCall } from "./call-outcome.ts";

/**
 * Creates the assistant message of a turn: its text, then one `tool_use` block per call.
 *
 * @param text The turn's text; left out when empty.
 * @param calls The turn's calls, in order.
 * @returns The message.
 */
export function assistantMessage(text: string, calls: readonly ModelToolCall[]): Message {
  const content: Block[] = text === "" ? [] : [{ type: "text", text }];
  for (const call of calls) {
    content.push({ type: "tool_use", id: call.id, name: call.name, input: call.arguments });
  }
  return { role: "assistant", content };
}
