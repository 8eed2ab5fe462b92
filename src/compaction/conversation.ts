import type { Message } from "../models/message.ts";

/**
 * Taint interface: what has entered a conversation. It only ever grows: not a turn boundary,
 * a compaction nor a resume resets it.
 */
export interface Taint {
  /** Data the user considers private has entered. */
  private: boolean;
  /** Content a third party can influence has entered. */
  untrusted: boolean;
}

/**
 * Conversation interface: a provider-neutral, JSON-serialisable transcript plus its taint and
 * the pre-rewrite copies kept by compaction.
 */
export interface Conversation {
  /** The live transcript; message 0 is the original task. */
  messages: Message[];
  /** What has entered the conversation. */
  taint: Taint;
  /** Each transcript as it was before a rewrite that changed it, oldest first. */
  rewritten: Message[][];
}

/**
 * Creates an empty conversation with no taint.
 *
 * @returns The conversation.
 */
export function emptyConversation(): Conversation {
  return { messages: [], taint: { private: false, untrusted: false }, rewritten: [] };
}
