// What survives a reload. The store's side: its conversation and the checkpoint of a run in
// progress, saved after every change (synchronously, so a checkpoint is saved before the call
// it covers starts) and restored once. The chat's side: the UI messages, which carry the run's
// id in their metadata; the run itself is in the agent's store (IndexedDB).

import { indexedDbStore } from "toolwire";
import { agentChatTransport } from "toolwire/ai-sdk";
import { type AgentStore, type AgentStoreSaved, createAgentStore } from "toolwire/ui";
import { notesAgent } from "./agent.ts";

const STORE_KEY = "web-ui-store";
const CHAT_KEY = "web-ui-chat";

/** The agent behind a store, restored from what the last page load saved. */
export function createNotesStore(): AgentStore {
  const store = createAgentStore((gates) => notesAgent(gates));
  const saved = localStorage.getItem(STORE_KEY);
  let kept: AgentStoreSaved = {};
  store.subscribe(() => {
    const { conversation, checkpoint } = store.getSnapshot();
    if (conversation === kept.conversation && checkpoint === kept.checkpoint) return;
    kept = checkpoint ? { conversation, checkpoint } : { conversation };
    localStorage.setItem(STORE_KEY, JSON.stringify(kept));
  });
  if (saved) void store.restore(JSON.parse(saved) as AgentStoreSaved);
  return store;
}

/** The agent behind the AI SDK's `useChat`; its runs are kept in this page's IndexedDB. */
export function createNotesTransport() {
  return agentChatTransport({
    agent: (gates) => notesAgent(gates, indexedDbStore({ name: "web-ui" })),
  });
}

/** The chat's messages as the last page load saved them. */
export function savedMessages<M>(): M[] {
  return JSON.parse(localStorage.getItem(CHAT_KEY) ?? "[]") as M[];
}

export function saveMessages(messages: readonly unknown[]): void {
  localStorage.setItem(CHAT_KEY, JSON.stringify(messages));
}
