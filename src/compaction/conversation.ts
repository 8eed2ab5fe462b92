import type { Message } from "../models/message.ts";

/**
 * What has entered a conversation. It only ever grows: not a turn boundary, a compaction nor a
 * resume resets it.
 */
export interface Taint {
  /** Data the user considers private has entered. */
  private: boolean;
  /** Content a third party can influence has entered. */
  untrusted: boolean;
}

/**
 * A provider-neutral, JSON-serialisable transcript plus its taint and, when asked for, the
 * transcripts compaction replaced.
 */
export interface Conversation {
  /** The live transcript; message 0 is the original task. */
  messages: Message[];
  /** What has entered the conversation. */
  taint: Taint;
  /**
   * Each transcript as it was before a rewrite that changed it, oldest first. Empty unless the
   * compaction was asked to keep them (`keepRewritten: true`): a full copy per compaction would
   * grow without bound over a long run. The agent loop clears it when a run starts.
   */
  rewritten: Message[][];
}

/**
 * Creates an empty conversation with no taint.
 *
 * @returns `{ messages: [], taint: { private: false, untrusted: false }, rewritten: [] }`.
 */
export function emptyConversation(): Conversation {
  return { messages: [], taint: { private: false, untrusted: false }, rewritten: [] };
}

/**
 * Why the agent loop compacted: `threshold` (the provider-reported prompt size reached it),
 * `predicted` (the next prompt is predicted to), `requested` (the model called the `compact`
 * tool), `overflow` (the provider rejected the prompt as too long).
 */
export type CompactionReason = "threshold" | "predicted" | "requested" | "overflow";

/** A message count and a token figure. */
export interface TranscriptSize {
  /** How many messages. */
  messages: number;
  /** Tokens: the provider's reading when known, else an estimate. */
  tokens: number;
}

/**
 * A compaction changed the transcript. Sizes before and after let a UI show what it saved;
 * `summary` is what a summary installed (an application that logs every compaction keeps it
 * from here rather than from `rewritten`).
 */
export interface CompactedEvent {
  type: "compacted";
  /** The transcript before the rewrite. */
  before: TranscriptSize;
  /** The transcript after the rewrite. */
  after: TranscriptSize;
  /** Whether a summary was installed (otherwise only lossless passes ran). */
  summarized: boolean;
  /** The summary text installed in message 0 (marker line excluded), when `summarized`. */
  summary?: string;
  /** Present when the summary was a fold: it replaced every earlier summary in message 0. */
  folded?: true;
  /**
   * Why the prompt is still at or over the threshold after this compaction (for example the
   * task and carried state alone fill it). The agent loop gives it one more turn (the
   * provider's next reading may show it under); if the next compaction says so too, the run
   * ends with stop reason `compaction_stalled` instead of compacting again on every turn.
   */
  overThreshold?: string;
}
