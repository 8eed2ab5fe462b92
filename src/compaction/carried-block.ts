import type { CarriedState } from "../declaration/carried-state.ts";
import type { Block } from "../models/message.ts";

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
 * Hint: the body is kept byte for byte (no trimming), so a tool that rebuilds its state from the
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
