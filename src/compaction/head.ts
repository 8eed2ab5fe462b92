// Message 0 after compaction: the task as the user wrote it, then the summaries (one once they
// are folded), then at most one carried-state block. Also where a summary cuts the transcript
// and the check every rebuilt transcript must pass before it is installed.
import type { CarriedState } from "../declaration/carried-state.ts";
import type { Block, Message } from "../models/message.ts";

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

/**
 * The first line of the carried-state block in message 0. Compaction recognises the block by it
 * and replaces the block instead of stacking a second one; a UI can strip it (and the newline
 * after it) to show the carried state alone.
 */
export const CARRIED_STATE_HEADER =
  "[Carried state: live tool state, current as of the latest compaction; it overrides anything the summaries say about it]";

/**
 * Returns the text of the one carried-state block: the header, then for each state a
 * `## <label>` line followed by the body exactly as the tool returned it.
 *
 * The body is kept byte for byte (no trimming), so a tool that rebuilds its state from the
 * transcript reads back precisely what it wrote. Sections are separated by a blank line.
 *
 * @param states The states, in order.
 * @returns The block's text, or `undefined` when there is nothing to carry.
 */
export function carriedBlockText(states: readonly CarriedState[]): string | undefined {
  if (states.length === 0) return undefined;
  const sections = states.map((state) => `## ${state.label}\n${state.body}`);
  return `${CARRIED_STATE_HEADER}\n${sections.join("\n\n")}`;
}

/**
 * Checks whether a block is the carried-state block that compaction keeps in message 0
 * (ignoring leading whitespace). Its text is `CARRIED_STATE_HEADER`, a newline, then one
 * `## <label>` section per tool state.
 *
 * @param block The block to check.
 * @returns Whether it is.
 */
export function isCarriedBlock(block: Block): boolean {
  return block.type === "text" && block.text.trimStart().startsWith(CARRIED_STATE_HEADER);
}

/**
 * The share of the threshold message 0 may fill before its summaries are folded into one. A
 * quarter leaves three quarters for the recent turns a summary keeps verbatim and the turns the
 * run adds before the next compaction; the task and the carried state count against it too.
 */
export const HEAD_BUDGET_FRACTION = 0.25;

/** Message 0 taken apart: what compaction must keep verbatim, and what it wrote. */
export interface HeadParts {
  /** The blocks that are neither a summary nor the carried state (the task), in order. */
  task: Block[];
  /** The summaries, oldest first, marker line removed. */
  summaries: string[];
}

/**
 * Splits message 0 into the task blocks and the summary texts; the carried-state block is
 * dropped (it is rebuilt from the tools' state at every summary).
 *
 * @param head Message 0.
 * @returns Its parts.
 */
export function headParts(head: Message): HeadParts {
  const parts: HeadParts = { task: [], summaries: [] };
  for (const block of head.content) {
    if (isCarriedBlock(block)) continue;
    if (isSummaryBlock(block) && block.type === "text") {
      parts.summaries.push(block.text.trimStart().slice(SUMMARY_MARKER.length).replace(/^\n/, ""));
    } else {
      parts.task.push(block);
    }
  }
  return parts;
}

/**
 * Returns the new message 0 after a summary: the task blocks as they were, the earlier
 * summaries unless this summary folds them, this summary, then exactly one carried-state block
 * when any state is carried.
 *
 * The summary goes into message 0 rather than a message of its own because some providers
 * reject two user messages in a row; carried state goes last because it is the only part known
 * to be current, and the end is where a model reads most carefully.
 *
 * @param head The current message 0.
 * @param summary The new summary.
 * @param states The tools' state, read after the summary came back.
 * @param fold Whether the summary replaces the earlier ones.
 * @returns The new message 0.
 */
export function rebuildHead(
  head: Message,
  summary: string,
  states: readonly CarriedState[],
  fold: boolean,
): Message {
  const content = head.content.filter(
    (block) => !isCarriedBlock(block) && !(fold && isSummaryBlock(block)),
  );
  content.push(summaryBlock(summary));
  const carried = carriedBlockText(states);
  if (carried !== undefined) content.push({ type: "text", text: carried });
  return { ...head, content };
}

/**
 * Returns where a summary cuts the transcript: the first assistant message at or after
 * `max(len − max(1, keepRecent), 1)`. Everything before it (after message 0) is summarised;
 * everything from it on is kept verbatim.
 *
 * Tool results live in the user message right after the assistant turn that asked for
 * them, so resuming at an assistant message never leaves a result whose call is gone.
 *
 * @param messages The transcript.
 * @param keepRecent How many recent messages to keep verbatim.
 * @returns The cut index, or `undefined` when there is nothing worth summarising (no such
 *   message, or the cut would be at index 4 or earlier).
 */
export function summaryCut(messages: readonly Message[], keepRecent: number): number | undefined {
  const start = Math.max(messages.length - Math.max(1, keepRecent), 1);
  for (let i = start; i < messages.length; i++) {
    if (messages[i]?.role === "assistant") return i > 4 ? i : undefined;
  }
  return undefined;
}

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
      // Results must arrive in the user message right after the calls.
      const [id] = open;
      return `the tool_use ${JSON.stringify(id)} before message ${i} has no result`;
    }
  }
  return undefined;
}
