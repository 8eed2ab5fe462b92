import type { Message } from "../models/message.ts";
import { transcriptBytes } from "./transcript-bytes.ts";

/**
 * Returns a rough token count for a transcript: a quarter of its JSON size in bytes, image
 * payloads excluded. Compaction falls back to it when no provider measurement is available; a
 * UI can use it to show a saved conversation's size before any model has read it.
 *
 * @param messages The transcript.
 * @returns The estimated token count.
 */
export function estimateTokens(messages: readonly Message[]): number {
  return Math.ceil(transcriptBytes(messages) / 4);
}
