import type { Message, ToolResultBlock, ToolUseBlock } from "../../src/models/index.ts";

/**
 * Returns the offline model's answer after a tool turn: one short line per result, in call
 * order, read from the last assistant message's calls and the results that follow it.
 *
 * @param messages The transcript; its last message carries the tool results.
 * @returns The answer.
 */
export function answerResults(messages: readonly Message[]): string {
  const last = messages.at(-1);
  const results = (last?.content ?? []).filter(
    (block): block is ToolResultBlock => block.type === "tool_result",
  );
  const calls = new Map<string, ToolUseBlock>();
  for (const message of messages) {
    for (const block of message.content) if (block.type === "tool_use") calls.set(block.id, block);
  }
  const lines = results.map((result) => {
    const call = calls.get(result.toolUseId);
    return answerOne(call?.name ?? "a tool", result);
  });
  return lines.length > 0 ? lines.join("\n\n") : "Done.";
}

function answerOne(name: string, result: ToolResultBlock): string {
  const text = resultText(result);
  if (result.isError) {
    // The agent marks the results it writes itself; its text is "<Kind>: <reason>".
    const reason = text.slice(text.indexOf(":") + 1).trim();
    switch (result.mark) {
      case "denied":
        return `OK, I did not run \`${name}\`: you denied it${reason ? ` (“${reason}”)` : ""}.`;
      case "blocked":
        return `\`${name}\` was blocked by policy: ${reason}`;
      case "cancelled":
        return `\`${name}\` was cancelled before it finished.`;
      default:
        return `\`${name}\` failed: ${text}`;
    }
  }
  switch (name) {
    case "calculator":
      return `The result is **${text.split(" = ").at(-1) ?? text}** (${text}).`;
    case "save_note":
      return `${text}. It is stored in this browser's IndexedDB.`;
    case "list_notes":
      return `Your notes:\n${text}`;
    case "todo":
      return `The todo list now reads:\n${text}`;
    case "clock":
      return `It is ${text}.`;
    case "ask_user":
      return `Thanks! You said: “${text.replace(/^The user answered:\s*/, "")}”.`;
    case "slow_task":
      return text;
    case "compact":
      return "I asked for the transcript to be compacted before my next turn.";
    default:
      return `\`${name}\` returned: ${text}`;
  }
}

function resultText(result: ToolResultBlock): string {
  return result.content
    .map((item) => {
      switch (item.type) {
        case "text":
          return item.text;
        case "json":
          return JSON.stringify(item.value);
        case "resource_link":
          return item.uri;
        default:
          return `[${item.type}]`;
      }
    })
    .join("\n")
    .trim();
}
