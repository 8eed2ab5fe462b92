import type { Message } from "../models/message.ts";

/**
 * Returns where a summary cuts the transcript: the first assistant message at or after
 * `max(len − max(1, keepRecent), 1)`. Everything before it (after message 0) is summarised;
 * everything from it on is kept verbatim.
 *
 * Hint: tool results live in the user message right after the assistant turn that asked for
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
