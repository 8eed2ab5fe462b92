import type { CarriedState } from "../declaration/carried-state.ts";
import type { Message } from "../models/message.ts";
import { carriedBlockText, isCarriedBlock } from "./carried-block.ts";
import { summaryBlock } from "./summary-block.ts";

/**
 * Returns the new message 0 after a summary: the original task and earlier summaries as they
 * were, the old carried-state block removed, then this summary, then exactly one carried-state
 * block when any state is carried.
 *
 * Hint: the summary is folded into message 0 rather than sent as a message of its own because
 * some providers reject two user messages in a row; carried state goes last because it is the
 * only part known to be current, and the end is where a model reads most carefully.
 *
 * @param head The current message 0.
 * @param summary The new summary.
 * @param states The tools' state, read after the summary came back.
 * @returns The new message 0.
 */
export function rebuildHead(
  head: Message,
  summary: string,
  states: readonly CarriedState[],
): Message {
  const content = withoutCarriedState(head).content;
  content.push(summaryBlock(summary));
  const carried = carriedBlockText(states);
  if (carried !== undefined) content.push({ type: "text", text: carried });
  return { ...head, content };
}

/**
 * Returns a copy of a message without its carried-state block.
 *
 * @param message The message.
 * @returns The copy, with a fresh content array.
 */
export function withoutCarriedState(message: Message): Message {
  return { ...message, content: message.content.filter((block) => !isCarriedBlock(block)) };
}
