import type { Message, ToolUseBlock } from "../models/message.ts";

/**
 * Returns every `tool_use` block of a transcript by its id, so a result finds its call in one
 * lookup.
 *
 * @param messages The transcript.
 * @returns The calls by id; a repeated id keeps its first call.
 */
export function toolUseIndex(messages: readonly Message[]): Map<string, ToolUseBlock> {
  const index = new Map<string, ToolUseBlock>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type === "tool_use" && !index.has(block.id)) index.set(block.id, block);
    }
  }
  return index;
}
