import { type Conversation, emptyConversation } from "../src/agent/index.ts";
import type { CompactionRecord } from "./compaction-record.ts";
import type { DisplayItem } from "./display-log.ts";
import type { Store } from "./store.ts";

/**
 * Saved session interface: what survives a reload.
 */
export interface SavedSession {
  /** What the model sees (its `rewritten` copies live in the compaction records instead). */
  conversation: Conversation;
  /** The visible transcript. */
  items: DisplayItem[];
  /** The compaction log. */
  compactions: CompactionRecord[];
}

const KEYS = {
  conversation: "conversation",
  items: "display",
  compactions: "compactions",
} as const;

/**
 * Returns the saved session, or an empty one.
 *
 * @param store The store.
 * @returns The session.
 */
export async function loadSession(store: Store): Promise<SavedSession> {
  const [conversation, items, compactions] = await Promise.all([
    store.get<Conversation>(KEYS.conversation),
    store.get<DisplayItem[]>(KEYS.items),
    store.get<CompactionRecord[]>(KEYS.compactions),
  ]);
  return {
    conversation: conversation ? { ...conversation, rewritten: [] } : emptyConversation(),
    items: items ?? [],
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
    store.set(KEYS.items, session.items),
    store.set(KEYS.compactions, session.compactions),
  ]);
}

/**
 * Saves the visible transcript alone: what changes while a run works (the conversation and the
 * compaction log change when it ends), so a reload mid-run finds the person's message and the
 * cards as they stood.
 *
 * @param store The store.
 * @param items The transcript.
 */
export async function saveItems(store: Store, items: readonly DisplayItem[]): Promise<void> {
  await store.set(KEYS.items, items);
}
