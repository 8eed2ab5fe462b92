import type { Message, ToolResultBlock } from "../models/message.ts";

/**
 * Result rewriter type: the new text for a result, or `undefined` to leave it as it is.
 *
 * @param result The result block.
 * @param position Its message index.
 */
export type ResultRewriter = (result: ToolResultBlock, position: number) => string | undefined;

/**
 * Returns a transcript with some tool results' content replaced by one text item, copying only
 * the messages that change. The input is never mutated and no block is removed.
 *
 * @param messages The transcript.
 * @param rewrite Decides each result's new text.
 * @param from The first message index to visit.
 * @param to The message index to stop before.
 * @returns The new transcript, or `undefined` when nothing changed.
 */
export function rewriteResults(
  messages: readonly Message[],
  rewrite: ResultRewriter,
  from = 0,
  to = messages.length,
): Message[] | undefined {
  let out: Message[] | undefined;
  for (let i = from; i < to; i++) {
    const message = messages[i];
    if (message === undefined || message.role !== "user") continue;
    let content: Message["content"] | undefined;
    for (let j = 0; j < message.content.length; j++) {
      const block = message.content[j];
      if (block?.type !== "tool_result") continue;
      const text = rewrite(block, i);
      if (text === undefined || isSameText(block, text)) continue;
      content ??= message.content.slice();
      content[j] = { ...block, content: [{ type: "text", text }] };
    }
    if (content === undefined) continue;
    out ??= messages.slice();
    out[i] = { ...message, content };
  }
  return out;
}

function isSameText(block: ToolResultBlock, text: string): boolean {
  const only = block.content.length === 1 ? block.content[0] : undefined;
  return only?.type === "text" && only.text === text;
}
