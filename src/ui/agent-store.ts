// An agent behind `subscribe` / `getSnapshot` (docs/design.md, "The agent store"): the store
// owns the agent's approver and answerer, so a person decides through `approve`, `deny` and
// `answer`; it runs one run at a time, folds each event into its state and tells its listeners.
// It depends on no UI framework: React's `useSyncExternalStore`, Svelte's `readable` and a Vue
// `shallowRef` all take this shape.

import type { Agent } from "../agent/agent.ts";
import type { InteractionAnswerer } from "../agent/calls.ts";
import type { AgentEvent, AgentEventType } from "../agent/events.ts";
import type { ApprovalDecision, Approver } from "../agent/gates.ts";
import type { AgentRun } from "../agent/run.ts";
import type { RunResult } from "../agent/run-result.ts";
import type { RunSnapshot } from "../agent/snapshot.ts";
import { type Conversation, emptyConversation } from "../compaction/conversation.ts";
import { ToolError } from "../errors.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import type { Message } from "../models/message.ts";
import {
  type AgentStoreState,
  messagesOf,
  type PendingApproval,
  type PendingQuestion,
  reduceMessages,
  type StoreMessage,
} from "./store-state.ts";

/** Every agent event type, checked complete by the type checker. */
const EVENT_TYPES = Object.keys({
  turn_start: true,
  text_delta: true,
  reasoning_delta: true,
  model_retry: true,
  usage: true,
  tool_input_delta: true,
  tool_call: true,
  approval_requested: true,
  approval_resolved: true,
  interaction_requested: true,
  interaction_resolved: true,
  tool_progress: true,
  tool_result: true,
  compacted: true,
  error: true,
  done: true,
} satisfies Record<AgentEventType, true>) as AgentEventType[];

/** What the store hands the agent it builds: the gates through which a person decides. */
export interface AgentStoreGates {
  /** Puts each call that needs approval to the person: pending until `approve` or `deny`. */
  approver: Approver;
  /** Puts each question a tool asks to the person: pending until `answer` or `decline`. */
  onInteraction: InteractionAnswerer;
}

/** Options of `createAgentStore`. */
export interface AgentStoreOptions {
  /**
   * Keeps each checkpoint of a run (an agent with `snapshots`) before the run goes on: awaited
   * before a call starts (A9), so a reload resumes the call rather than running it twice. A
   * throw or a rejection keeps the call from starting (it ends `cancelled`). The checkpoint is
   * in `state.checkpoint` by the time this is called.
   */
  onCheckpoint?(snapshot: RunSnapshot): void | Promise<void>;
  /**
   * Hears every event of every run of the store's agent (and of the agents `reconfigure`
   * builds), once the state has taken it in: for what the state does not keep, such as an
   * event log or a provider's retries.
   */
  onEvent?(event: AgentEvent): void;
}

/** What an app saved to restore a store after a reload. */
export interface AgentStoreSaved {
  /** The conversation of the last finished run (`state.conversation`). */
  conversation?: Conversation;
  /**
   * The messages to show (`state.messages`), for an app that keeps what the person saw apart
   * from what the model reads (compaction rewrites the conversation, not the messages). Default:
   * the messages of the conversation, or of the checkpoint's.
   */
  messages?: readonly StoreMessage[];
  /**
   * The latest checkpoint of a run that was in progress (`state.checkpoint`); the run resumes
   * from it: completed calls keep their results, a call waiting for a decision is asked again.
   */
  checkpoint?: RunSnapshot;
}

/** A framework-neutral store over one agent. */
export interface AgentStore {
  /** The agent the store built. */
  readonly agent: Agent;
  /** Calls `listener` after every change; returns the function that stops it. */
  subscribe(listener: () => void): () => void;
  /** The current state: the same object until something changed. */
  getSnapshot(): AgentStoreState;
  /**
   * Sends the user's message: a run over the store's conversation. The promise settles with
   * the run's result (never rejects).
   *
   * @throws ToolError `unsupported` while a run is in progress.
   */
  send(input: string | readonly Message[]): Promise<RunResult>;
  /** Cancels the run in progress; its pending approvals and questions go away. */
  cancel(): void;
  /**
   * Pauses the run in progress at an approval or a question (an agent with `snapshots`): it
   * ends `paused`, and `state.checkpoint` holds the snapshot to `restore` from later.
   *
   * @throws ToolError `unsupported` when nothing can pause (no run, no snapshots, no call in
   *   progress).
   */
  pause(): void;
  /** Allows a pending call. */
  approve(callId: string): void;
  /** Refuses a pending call: the model reads `Denied by the user: {reason}`. */
  deny(callId: string, reason?: string): void;
  /** Answers a pending question (a string for text, an object for a form). */
  answer(callId: string, content: unknown): void;
  /** Declines a pending question; the tool carries on without the answer. */
  decline(callId: string, reason?: string): void;
  /**
   * Restores what an app saved: the conversation, and with a checkpoint the run it was in
   * (resumed at once; the agent needs the same `snapshots` secret and tools). Returns the
   * resumed run's result, when there is one.
   *
   * @throws ToolError `unsupported` while a run is in progress.
   */
  restore(saved: AgentStoreSaved): Promise<RunResult> | undefined;
  /**
   * Builds the agent again with `create`, for the next run: a model, tools or settings the
   * person changed since take effect, and the state stays as it is. `agent` is the new one.
   *
   * @throws ToolError `unsupported` while a run is in progress.
   */
  reconfigure(): void;
}

/**
 * Creates a store over the agent `create` builds with the store's gates: every call that needs
 * approval, and every question a tool asks, waits in the state until the person decides. Wrap
 * the approver to let a policy decide first.
 *
 * @example
 * ```ts
 * const store = createAgentStore((gates) => new Agent({ model, tools, ...gates }));
 * const state = useSyncExternalStore(store.subscribe, store.getSnapshot); // React
 * store.send("Write the report");
 * store.approve(state.approvals[0].callId);
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function createAgentStore(
  create: (gates: AgentStoreGates) => Agent,
  options: AgentStoreOptions = {},
): AgentStore {
  let state: AgentStoreState = {
    status: "idle",
    messages: [],
    approvals: [],
    questions: [],
    compactions: [],
    conversation: emptyConversation(),
  };
  const listeners = new Set<() => void>();
  const decide = new Map<string, (decision: ApprovalDecision) => void>();
  const reply = new Map<string, (response: ToolInteractionResponse) => void>();
  // Calls whose approval a person decided through `approve` / `deny`, until the agent reports it.
  const decided = new Set<string>();
  let controller: AbortController | undefined;
  let current: AgentRun | undefined;
  let sequence = 0;
  const nextId = () => `a${++sequence}`;
  // Messages an app saved keep their ids; the ones the store opens next must not repeat them.
  const shown = (messages: readonly StoreMessage[]) => {
    for (const { id } of messages) {
      const n = /^a(\d+)$/.exec(id)?.[1];
      if (n !== undefined) sequence = Math.max(sequence, Number(n));
    }
    return messages;
  };

  // Each listener on its own, as the agent calls its own (A7): one that throws is reported and
  // neither stops the others nor the run.
  const notify = () => {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        console.error(error);
      }
    }
  };

  const set = (patch: Partial<AgentStoreState>) => {
    state = { ...state, ...patch };
    notify();
  };

  const approver: Approver = (request, signal) =>
    new Promise((resolve) => {
      const { callId } = request;
      const pending: PendingApproval = {
        callId,
        toolName: request.toolName,
        arguments: request.arguments,
        capabilities: request.capabilities,
      };
      if (request.interlock !== undefined) pending.interlock = request.interlock;
      const settle = (decision?: ApprovalDecision) => {
        signal.removeEventListener("abort", drop);
        decide.delete(callId);
        set({ approvals: state.approvals.filter((item) => item !== pending) });
        if (decision) resolve(decision);
      };
      // A cancelled run stops waiting by itself (its call ends `cancelled`); the card goes.
      const drop = () => settle();
      signal.addEventListener("abort", drop, { once: true });
      decide.set(callId, settle);
      set({ approvals: [...state.approvals, pending] });
    });

  const onInteraction: InteractionAnswerer = (request, signal) =>
    new Promise((resolve) => {
      const key = request.callId ?? request.id;
      const pending: PendingQuestion = { callId: key, toolName: request.toolName, request };
      const settle = (response?: ToolInteractionResponse) => {
        signal.removeEventListener("abort", drop);
        reply.delete(key);
        set({ questions: state.questions.filter((item) => item !== pending) });
        if (response) resolve(response);
      };
      const drop = () => settle();
      signal.addEventListener("abort", drop, { once: true });
      reply.set(key, settle);
      set({ questions: [...state.questions, pending] });
    });

  const apply = (event: AgentEvent) => {
    const messages = reduceMessages(state.messages, event, nextId, (callId) =>
      decided.delete(callId),
    );
    switch (event.type) {
      case "compacted": {
        const { type: _, ...record } = event;
        return set({
          messages,
          compactions: [...state.compactions, { type: "compacted", ...record }],
        });
      }
      case "usage":
        return set({ messages, usage: event.usage });
      case "error":
        return set({ messages, error: { message: event.message, error: event.error } });
      default:
        if (messages !== state.messages) set({ messages });
    }
  };

  const end = (result: RunResult) => {
    controller = undefined;
    current = undefined;
    const ended: Partial<AgentStoreState> = {
      status: "idle",
      stop: result.stop,
      conversation: result.conversation,
      approvals: [],
      questions: [],
    };
    const next = { ...state, ...ended };
    if (result.snapshot) next.checkpoint = result.snapshot;
    else delete next.checkpoint;
    state = next;
    notify();
  };

  // The agent's listeners, not a run's stream: they hear each event as it is emitted, so the
  // card of a call is in `approval` before the approver is asked, never a microtask later.
  const listen = (event: AgentEvent) => {
    if (event.type === "done") end(event.result);
    else apply(event);
    options.onEvent?.(event);
  };
  const build = () => {
    const built = create({ approver, onInteraction });
    for (const type of EVENT_TYPES) built.on(type, listen);
    return built;
  };
  let agent = build();

  const idle = (operation: string) => {
    if (controller) throw new ToolError({ type: "unsupported", operation });
  };

  const start = (
    begin: (options: {
      signal: AbortSignal;
      onCheckpoint: (snapshot: RunSnapshot) => void;
    }) => AgentRun,
    patch: Partial<AgentStoreState>,
  ): Promise<RunResult> => {
    idle("starting a run while one is in progress (cancel it, or wait for it to end)");
    controller = new AbortController();
    const next: AgentStoreState = { ...state, ...patch, status: "running" };
    delete next.error;
    delete next.stop;
    state = next;
    const run = begin({
      signal: controller.signal,
      onCheckpoint: (snapshot) => {
        set({ checkpoint: snapshot });
        return options.onCheckpoint?.(snapshot);
      },
    });
    // A run that ended at once (a refused input) is already over; only one still going counts.
    if (controller) current = run;
    notify();
    return run.result;
  };

  const pending = <T>(map: Map<string, (value: T) => void>, callId: string, value: T) => {
    const settle = map.get(callId);
    if (!settle) {
      throw new ToolError({
        type: "invalid_interaction",
        id: callId,
        message: `nothing is pending for call \`${callId}\``,
      });
    }
    settle(value);
  };

  return {
    get agent() {
      return agent;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    getSnapshot: () => state,
    send(input) {
      const user = messagesOf(typeof input === "string" ? [userMessage(input)] : input);
      const added = user.map((message) => ({ ...message, id: nextId() }));
      return start(
        (options) => agent.run(input, { ...options, conversation: state.conversation }),
        {
          messages: [...state.messages, ...added],
        },
      );
    },
    cancel() {
      controller?.abort();
    },
    pause() {
      if (!current) {
        throw new ToolError({ type: "unsupported", operation: "pause with no run in progress" });
      }
      current.pause();
    },
    approve(callId) {
      pending(decide, callId, { type: "allow" });
      decided.add(callId);
    },
    deny(callId, reason = "not approved") {
      pending(decide, callId, { type: "deny", reason });
      decided.add(callId);
    },
    answer(callId, content) {
      const id = state.questions.find((question) => question.callId === callId)?.request.id ?? "";
      pending(reply, callId, { type: "submit", id, content });
    },
    decline(callId, reason) {
      const id = state.questions.find((question) => question.callId === callId)?.request.id ?? "";
      const response: ToolInteractionResponse =
        reason === undefined ? { type: "decline", id } : { type: "decline", id, reason };
      pending(reply, callId, response);
    },
    restore(saved) {
      const { checkpoint } = saved;
      if (!checkpoint) {
        idle("restoring while a run is in progress");
        const conversation = saved.conversation ?? emptyConversation();
        set({
          conversation,
          messages: saved.messages ? shown(saved.messages) : messagesOf(conversation.messages),
        });
        return undefined;
      }
      // Unverified until the resume checks its signature; a malformed one shows nothing and
      // the resume refuses it.
      const body = checkpoint.body as Partial<RunSnapshot["body"]> | undefined;
      const conversation = Array.isArray(body?.conversation?.messages)
        ? body.conversation
        : emptyConversation();
      return start((options) => agent.resume(checkpoint, options), {
        conversation,
        messages: saved.messages ? shown(saved.messages) : messagesOf(conversation.messages),
        checkpoint,
      });
    },
    reconfigure() {
      idle("reconfiguring while a run is in progress");
      for (const type of EVENT_TYPES) agent.off(type, listen);
      agent = build();
    },
  };
}

function userMessage(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}
