/**
 * Transcript size interface: a message count and a token figure.
 */
export interface TranscriptSize {
  /** How many messages. */
  messages: number;
  /** Tokens: the provider's reading when known, else an estimate. */
  tokens: number;
}

/**
 * Compacted event interface: a compaction changed the transcript, with sizes before and after so
 * a UI can show what it saved.
 */
export interface CompactedEvent {
  type: "compacted";
  /** The transcript before the rewrite. */
  before: TranscriptSize;
  /** The transcript after the rewrite. */
  after: TranscriptSize;
  /** Whether a summary was installed (otherwise only lossless passes ran). */
  summarized: boolean;
}
