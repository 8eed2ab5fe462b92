import type { Message } from "../models/message.ts";
import { isCompactionMarker, THIN_CHARS, thinText } from "./result-markers.ts";
import { resultText } from "./result-text.ts";
import { rewriteResults } from "./rewrite-results.ts";

/**
 * Returns a transcript in which every tool result outside the last `max(1, keepRecent) × 2`
 * messages is cut to its first 240 characters plus a marker. Tool calls are never touched (the
 * sequence of calls records where the agent had got to); results already thinned or already
 * short are left alone, so the pass is idempotent.
 *
 * @param messages The transcript.
 * @param keepRecent How many recent messages the summary keeps verbatim.
 * @param all Thin every result, the recent ones too (overflow recovery).
 * @returns The new transcript, or `undefined` when nothing changed.
 */
export function thinResults(
  messages: readonly Message[],
  keepRecent: number,
  all = false,
): Message[] | undefined {
  // Hint: when a request does not fit, the oversized recent result is the problem, so overflow
  // recovery thins the recent window as well.
  const end = all ? messages.length : messages.length - Math.max(1, keepRecent) * 2;
  if (end <= 0) return undefined;
  return rewriteResults(
    messages,
    (result) => {
      const text = resultText(result);
      if (text.length <= THIN_CHARS || isCompactionMarker(text)) return undefined;
      return thinText(text);
    },
    0,
    end,
  );
}
