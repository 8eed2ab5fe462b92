import type { Block } from "../models/message.ts";

/**
 * The line that opens every summary folded into message 0; the summary follows it after a
 * newline, so a UI can strip it to show the summary alone.
 */
export const SUMMARY_MARKER = "[Earlier turns were compacted. Summary of those turns:]";

/**
 * Returns the text block that carries one summary in message 0.
 *
 * @param summary The summary text.
 * @returns The block.
 */
export function summaryBlock(summary: string): Block {
  return { type: "text", text: `${SUMMARY_MARKER}\n${summary.trim()}` };
}

/**
 * Checks whether a block is a summary folded into message 0 by an earlier compaction (ignoring
 * leading whitespace). Message 0 holds the task, then the summaries oldest first, then at most
 * one carried-state block (`isCarriedBlock`).
 *
 * @param block The block to check.
 * @returns Whether it is.
 */
export function isSummaryBlock(block: Block): boolean {
  return block.type === "text" && block.text.trimStart().startsWith(SUMMARY_MARKER);
}
