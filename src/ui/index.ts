/**
 * toolwire/ui — an agent behind a framework-neutral store for any web UI.
 *
 * `createAgentStore` runs an `Agent` behind `subscribe` / `getSnapshot`, the shape React's
 * `useSyncExternalStore`, Svelte's `readable` and Vue's `shallowRef` consume: the messages with
 * their streaming text, reasoning and tool cards (status, progress, arguments as the model
 * writes them), the approvals and questions waiting for a person (`approve`, `deny`, `answer`),
 * compactions and errors, and a checkpoint to restore a paused run after a reload. No UI
 * framework is a dependency; a program that does not import this entry pays nothing for it.
 *
 * @example
 * ```ts
 * import { Agent } from "toolwire/agent";
 * import { scriptedModel } from "toolwire/models";
 * import { createAgentStore } from "toolwire/ui";
 *
 * const store = createAgentStore((gates) =>
 *   new Agent({ model: scriptedModel([{ text: "Hello!" }]), ...gates }),
 * );
 * store.subscribe(() => console.log(store.getSnapshot().messages.length));
 * await store.send("Hi");
 * ```
 *
 * @module
 */

export {
  type AgentStore,
  type AgentStoreGates,
  type AgentStoreOptions,
  type AgentStoreSaved,
  createAgentStore,
} from "./agent-store.ts";
export type {
  AgentStoreState,
  CompactionRecord,
  PendingApproval,
  PendingQuestion,
  StoreMessage,
  StorePart,
  ToolCard,
  ToolCardStatus,
} from "./store-state.ts";
