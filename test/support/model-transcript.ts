import type { Message } from "../../src/models/message.ts";

/**
 * Returns why a provider would reject a transcript, or nothing when it is valid: every
 * `tool_use` needs a `tool_result` with its id in the very next (user) message, every result
 * needs a `tool_use` in the message before, and no two messages in a row share a role.
 *
 * @param messages The transcript.
 * @returns The problems found, in order; empty when none.
 */
export function transcriptProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    const previous = messages[index - 1];
    if (previous?.role === message.role) problems.push(`${index}: two ${message.role} messages`);
    const next = messages[index + 1];
    for (const block of message.content) {
      if (block.type === "tool_use") {
        const answered = next?.content.some(
          (b) => b.type === "tool_result" && b.toolUseId === block.id,
        );
        if (!answered) problems.push(`${index}: tool_use ${block.id} has no result after it`);
      }
      if (block.type === "tool_result") {
        const asked = previous?.content.some(
          (b) => b.type === "tool_use" && b.id === block.toolUseId,
        );
        if (!asked) problems.push(`${index}: tool_result ${block.toolUseId} answers no tool_use`);
      }
    }
  });
  return problems;
}
