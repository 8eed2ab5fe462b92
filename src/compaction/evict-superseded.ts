import type { Message, ToolUseBlock } from "../models/message.ts";
import { staleMarker } from "./result-markers.ts";
import { rewriteResults } from "./rewrite-results.ts";
import { toolTarget } from "./tool-target.ts";

/**
 * Returns a transcript in which every successful result superseded by a later successful call
 * on the same target is replaced, in place, by a stale marker. Lossless in the sense that the
 * model can call the tool again; errors are never evicted and never supersede anything.
 *
 * @param messages The transcript.
 * @param uses Its `tool_use` blocks by id.
 * @returns The new transcript, or `undefined` when nothing changed.
 */
export function evictSuperseded(
  messages: readonly Message[],
  uses: ReadonlyMap<string, ToolUseBlock>,
): Message[] | undefined {
  // Hint: one map keyed by target, filled in one forward scan, keeps the pass O(n); each
  // result's key is computed once and reused by the second scan.
  const newest = new Map<string, { block: number; name: string }>();
  const keys: (string | undefined)[] = [];
  rewriteResults(messages, (result) => {
    const use = result.isError ? undefined : uses.get(result.toolUseId);
    const key = use ? toolTarget(use.name, use.input) : undefined;
    if (use && key !== undefined) newest.set(key, { block: keys.length, name: use.name });
    keys.push(key);
    return undefined;
  });
  let block = 0;
  return rewriteResults(messages, (result) => {
    const key = keys[block];
    const latest = key === undefined ? undefined : newest.get(key);
    const mine = block++;
    if (!latest || latest.block === mine) return undefined;
    const use = uses.get(result.toolUseId);
    return use ? staleMarker(use.name, latest.name) : undefined;
  });
}
