import { type Conversation, emptyConversation } from "../src/agent/index.ts";
import type { StoreMessage } from "../src/ui/index.ts";
import type { CompactionRecord } from "./compaction-record.ts";
import type { Store } from "./store.ts";
import type { TranscriptNote } from "./transcript-note.ts";

/**
 * Saved session interface: what survives a reload.
 */
export interface SavedSession {
  /** What the model sees (its `rewritten` copies live in the compaction records instead). */
  conversation: Conversation;
  /** The visible transcript: the agent store's messages, and the page's notes between them. */
  transcript: SavedTranscript;
  /** The compaction log. */
  compactions: CompactionRecord[];
}

/** The visible transcript, which compaction never shortens. */
export interface SavedTranscript {
  messages: readonly StoreMessage[];
  notes: readonly TranscriptNote[];
}

// `transcript` replaced the earlier pages' `display` list, which this page no longer reads.
const KEYS = {
  conversation: "conversation",
  transcript: "transcript",
  compactions: "compactions",
} as const;

/**
 * Returns the saved session, or an empty one.
 *
 * @param store The store.
 * @returns The session.
 */
export async function loadSession(store: Store): Promise<SavedSession> {
  const [conversation, transcript, compactions] = await Promise.all([
    store.get<Conversation>(KEYS.conversation),
    store.get<SavedTranscript>(KEYS.transcript),
    store.get<CompactionRecord[]>(KEYS.compactions),
  ]);
  return {
    conversation: conversation ? { ...conversation, rewritten: [] } : emptyConversation(),
    transcript: {
      messages: transcript?.messages ?? [],
      notes: transcript?.notes ?? [],
    },
    compactions: compactions ?? [],
  };
}

/**
 * Saves the session.
 *
 * @param store The store.
 * @param session The session.
 */
export async function saveSession(store: Store, session: SavedSession): Promise<void> {
  const { messages, taint } = session.conversation;
  await Promise.all([
    store.set(KEYS.conversation, { messages, taint, rewritten: [] }),
    saveTranscript(store, session.transcript),
    store.set(KEYS.compactions, session.compactions),
  ]);
}

/**
 * Saves the visible transcript alone: what changes while a run works (the conversation and the
 * compaction log change when it ends), so a reload mid-run finds the person's message and the
 * cards as they stood.
 *
 * @param store The store.
 * @param transcript The transcript.
 */
export async function saveTranscript(store: Store, transcript: SavedTranscript): Promise<void> {
  await store.set(KEYS.transcript, transcript);
}
