import type { Message } from "../models/message.ts";

/**
 * Returns the first way a transcript breaks the compaction invariants, or `undefined` when it
 * keeps them: message 0 is a user message, no two user messages are adjacent, every
 * `tool_result` answers a `tool_use` found in an earlier assistant message, and every
 * `tool_use` gets a result later (except in a trailing assistant message, whose calls may still
 * be running).
 *
 * @param messages The transcript.
 * @returns What is wrong, for a person to read, or `undefined`.
 */
export function checkTranscript(messages: readonly Message[]): string | undefined {
  if (messages.length > 0 && messages[0]?.role !== "user") return "message 0 is not a user message";
  const open = new Set<string>();
  const called = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message;
    if (message.role === "user" && messages[i - 1]?.role === "user") {
      return `messages ${i - 1} and ${i} are both user messages`;
    }
    for (const block of message.content) {
      if (block.type === "tool_use" && message.role === "assistant") {
        open.add(block.id);
        called.add(block.id);
      } else if (block.type === "tool_result") {
        if (!called.has(block.toolUseId)) {
          return `message ${i} has a tool_result for ${JSON.stringify(block.toolUseId)} with no earlier tool_use`;
        }
        open.delete(block.toolUseId);
      }
    }
    if (message.role === "user" && open.size > 0 && i > 0) {
      // Hint: results must arrive in the user message right after the calls.
      const [id] = open;
      return `the tool_use ${JSON.stringify(id)} before message ${i} has no result`;
    }
  }
  return undefined;
}
