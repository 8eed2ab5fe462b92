import type { Message, ToolUseBlock } from "../models/message.ts";
import { isCompactionMarker, isRefusal, repeatMarker } from "./result-markers.ts";
import { resultText } from "./result-text.ts";
import { rewriteResults } from "./rewrite-results.ts";
import { toolTarget } from "./tool-target.ts";

/**
 * Returns a transcript in which, among identical failures (same target, same trimmed error
 * text), only the newest keeps its text and older ones become a repeat marker. Refusals are
 * never collapsed, because they are human or policy evidence; a different error on the same
 * target is a separate fact.
 *
 * @param messages The transcript.
 * @param uses Its `tool_use` blocks by id.
 * @returns The new transcript, or `undefined` when nothing changed.
 */
export function collapseFailures(
  messages: readonly Message[],
  uses: ReadonlyMap<string, ToolUseBlock>,
): Message[] | undefined {
  const newest = new Map<string, number>();
  const keys: (string | undefined)[] = [];
  rewriteResults(messages, (result) => {
    const key = failureKey(result.isError, resultText(result), uses.get(result.toolUseId));
    if (key !== undefined) newest.set(key, keys.length);
    keys.push(key);
    return undefined;
  });
  let block = 0;
  return rewriteResults(messages, () => {
    const key = keys[block];
    const mine = block++;
    if (key === undefined || newest.get(key) === mine) return undefined;
    return repeatMarker();
  });
}

function failureKey(
  isError: boolean,
  text: string,
  use: ToolUseBlock | undefined,
): string | undefined {
  // Hint: markers (including thinned texts) are skipped, so a second run sees exactly the keys
  // the first one left, one result each: that is what makes the pass idempotent.
  if (!isError || !use || isRefusal(text) || isCompactionMarker(text)) return undefined;
  return `${toolTarget(use.name, use.input)}\u0000${text.trim()}`;
}
