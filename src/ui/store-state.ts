// What an agent store shows (docs/design.md, "The agent store"): the state a UI renders, and how
// each agent event changes it. Every change makes new objects along the path to what changed
// and keeps the rest, so a UI compares by identity (React's memo, Svelte's and Vue's change
// checks) and re-renders only what moved.

import type { AgentEvent } from "../agent/events.ts";
import type { ApprovalDecision } from "../agent/gates.ts";
import type { StopCause } from "../agent/run-result.ts";
import type { RunSnapshot } from "../agent/snapshot.ts";
import type { ToolCallOutcome } from "../agent/transcript.ts";
import type { CompactedEvent, CompactionReason, Conversation } from "../compaction/conversation.ts";
import type { Capabilities } from "../declaration/capabilities.ts";
import type { ToolProgress } from "../execution/handler-io.ts";
import type { ToolContent } from "../execution/tool-content.ts";
import type { ToolInteractionRequest } from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import type { Message, ToolResultMark } from "../models/message.ts";
import type { ModelUsage } from "../models/model.ts";

/**
 * Where a tool card stands: `streaming` (the model is still writing its arguments), `waiting`
 * (called, before its gates or its turn to run), `approval` (a person is asked), `approved`,
 * `running`, `question` (the tool asks the person something), `done` (see `outcome`).
 */
export type ToolCardStatus =
  | "streaming"
  | "waiting"
  | "approval"
  | "approved"
  | "running"
  | "question"
  | "done";

/** One tool call as a UI shows it. */
export interface ToolCard {
  type: "tool";
  callId: string;
  toolName: string;
  status: ToolCardStatus;
  /** The arguments' JSON text as the model wrote it so far (complete once called). */
  argumentsText: string;
  /** The parsed arguments, once the model completed the call. */
  arguments?: unknown;
  /**
   * How its approval was decided, once it was: `by: "person"` through the store's `approve` /
   * `deny`, `"policy"` when the agent's approver answered without asking (an approver that
   * wraps the store's, say "always allow this tool").
   */
  approval?: { decision: ApprovalDecision; by: "person" | "policy" };
  /** The question the running tool asked, and the person's response once it came. */
  question?: { request: ToolInteractionRequest; response?: ToolInteractionResponse };
  /** The latest progress the running tool reported. */
  progress?: ToolProgress;
  /** How it ended, once `done`. */
  outcome?: ToolCallOutcome;
  /** Whether its result is an error, once `done`. */
  isError?: boolean;
  /** Its result as the model reads it, once `done`. */
  content?: readonly ToolContent[];
}

/** One piece of a message: text, the model's thinking, or a tool call. */
export type StorePart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | ToolCard;

/** One message as a UI shows it: the user's, or an assistant turn with its tool calls. */
export interface StoreMessage {
  /** Stable for the message's life, for a UI's list keys. */
  id: string;
  role: "user" | "assistant";
  parts: readonly StorePart[];
}

/** A call waiting for a person's decision; `approve` or `deny` it through the store. */
export interface PendingApproval {
  callId: string;
  toolName: string;
  arguments: unknown;
  capabilities: Capabilities;
  /** Why the interlock put the call to a person, when it did. */
  interlock?: string;
}

/** A question a running tool asks; `answer` it through the store. */
export interface PendingQuestion {
  callId: string;
  toolName: string;
  request: ToolInteractionRequest;
}

/** A compaction of the transcript between turns, as the run reported it. */
export type CompactionRecord = CompactedEvent & { reason: CompactionReason; summaryError?: string };

/**
 * The state of an agent store. A new object whenever something changed, the same object
 * otherwise; parts that did not change keep their identity.
 */
export interface AgentStoreState {
  /** `running` while a run is in progress, else `idle`. */
  status: "idle" | "running";
  messages: readonly StoreMessage[];
  /** Calls waiting for a decision, in the order they were asked. */
  approvals: readonly PendingApproval[];
  /** Questions waiting for an answer. */
  questions: readonly PendingQuestion[];
  compactions: readonly CompactionRecord[];
  /** The last run's failure (a provider error, a malformed input), until the next run starts. */
  error?: { message: string; error: unknown };
  /** The last model turn's token counts, for a context meter. */
  usage?: ModelUsage;
  /** How the last run ended. */
  stop?: StopCause;
  /** The conversation as of the last finished run: save it to continue after a reload. */
  conversation: Conversation;
  /**
   * The latest snapshot of a run whose turn has calls in progress (an agent with `snapshots`),
   * or of a paused run; save it, and pass it to `restore` after a reload. Absent once the run
   * ends without pausing.
   */
  checkpoint?: RunSnapshot;
}

/** Returns the display messages of a conversation: tool results fill their calls' cards. */
export function messagesOf(messages: readonly Message[]): StoreMessage[] {
  const out: StoreMessage[] = [];
  const cards = new Map<string, ToolCard>();
  messages.forEach((message, n) => {
    const parts: StorePart[] = [];
    for (const block of message.content) {
      if (block.type === "text") parts.push({ type: "text", text: block.text });
      else if (block.type === "reasoning" && block.text !== "") {
        parts.push({ type: "reasoning", text: block.text });
      } else if (block.type === "tool_use") {
        const card: ToolCard = {
          type: "tool",
          callId: block.id,
          toolName: block.name,
          status: "waiting",
          argumentsText:
            typeof block.input === "string" ? block.input : JSON.stringify(block.input),
          arguments: block.input,
        };
        cards.set(block.id, card);
        parts.push(card);
      } else if (block.type === "tool_result") {
        const card = cards.get(block.toolUseId);
        if (card) {
          card.status = "done";
          card.isError = block.isError;
          card.content = block.content;
          card.outcome = block.mark === undefined ? "executed" : OUTCOMES[block.mark];
        }
      }
    }
    if (parts.length > 0) out.push({ id: `m${n}`, role: message.role, parts });
  });
  return out;
}

// The outcome a result the agent loop wrote itself stands for (`ToolResultBlock.mark`).
const OUTCOMES: Record<ToolResultMark, ToolCallOutcome> = {
  denied: "refused",
  blocked: "refused",
  unknown: "unknown",
  cancelled: "cancelled",
  interrupted: "interrupted",
};

/**
 * Returns the messages after one agent event, or the same array when the event changes none.
 * `nextId` names a message the event opens; `byPerson` says whether a call's approval was
 * decided through the store.
 */
export function reduceMessages(
  messages: readonly StoreMessage[],
  event: AgentEvent,
  nextId: () => string,
  byPerson: (callId: string) => boolean = () => false,
): readonly StoreMessage[] {
  switch (event.type) {
    case "turn_start":
      return [...messages, { id: nextId(), role: "assistant", parts: [] }];
    case "text_delta":
    case "reasoning_delta": {
      const kind = event.type === "text_delta" ? "text" : "reasoning";
      return editLast(messages, (parts) => {
        const last = parts.at(-1);
        if (last?.type === kind) {
          return [...parts.slice(0, -1), { type: kind, text: last.text + event.text }];
        }
        return [...parts, { type: kind, text: event.text }];
      });
    }
    case "tool_input_delta":
      return editCard(messages, event.callId, event.toolName, (card) => ({
        ...card,
        argumentsText: card.argumentsText + event.text,
      }));
    case "tool_call": {
      const called = editCard(messages, event.callId, event.toolName, (card) => ({
        ...card,
        status: "waiting",
        arguments: event.arguments,
        // A model that did not stream its arguments leaves the text to fill in here.
        argumentsText: card.argumentsText || JSON.stringify(event.arguments) || "",
      }));
      // The turn's stream has ended once its calls are handled: the calls after this one are
      // complete too, only not handled yet.
      return editLast(called, (parts) =>
        parts.some((part) => part.type === "tool" && part.status === "streaming")
          ? parts.map((part) =>
              part.type === "tool" && part.status === "streaming"
                ? { ...part, status: "waiting" }
                : part,
            )
          : parts,
      );
    }
    case "approval_requested":
      return status(messages, event.callId, event.toolName, "approval");
    case "approval_resolved": {
      const approval = {
        decision: event.decision,
        by: byPerson(event.callId) ? "person" : "policy",
      } as const;
      return editCard(messages, event.callId, event.toolName, (card) => ({
        ...card,
        status: event.decision.type === "allow" ? "approved" : card.status,
        approval,
      }));
    }
    case "interaction_requested":
      return editCard(messages, event.callId, event.toolName, (card) => ({
        ...card,
        status: "question",
        question: { request: event.request },
      }));
    case "interaction_resolved":
      return editCard(messages, event.callId, event.toolName, (card) => {
        const next: ToolCard = { ...card, status: "running" };
        if (card.question) next.question = { ...card.question, response: event.response };
        return next;
      });
    case "tool_progress":
      return editCard(messages, event.callId, event.toolName, (card) => ({
        ...card,
        status: card.status === "question" ? "question" : "running",
        progress: event.progress,
      }));
    case "tool_result":
      return editCard(messages, event.callId, event.toolName, (card) => ({
        ...card,
        status: "done",
        outcome: event.outcome,
        isError: event.isError,
        content: event.content,
      }));
    default:
      return messages;
  }
}

function status(
  messages: readonly StoreMessage[],
  callId: string,
  toolName: string,
  to: ToolCardStatus,
): readonly StoreMessage[] {
  return editCard(messages, callId, toolName, (card) =>
    card.status === to ? card : { ...card, status: to },
  );
}

// The last assistant message's parts, edited; a run resumed from a checkpoint has no
// `turn_start` for the turn it continues, so edits land on the last assistant message there is.
function editLast(
  messages: readonly StoreMessage[],
  edit: (parts: readonly StorePart[]) => readonly StorePart[],
): readonly StoreMessage[] {
  let index = messages.length - 1;
  while (index >= 0 && messages[index]?.role !== "assistant") index--;
  if (index === -1) return messages;
  const message = messages[index] as StoreMessage;
  const parts = edit(message.parts);
  if (parts === message.parts) return messages;
  const out = messages.slice();
  out[index] = { ...message, parts };
  return out;
}

// A call's card, edited: searched from the newest message back (the calls of the turn in
// progress, or of a resumed one); a card is opened on the last assistant message when none has
// the id yet.
function editCard(
  messages: readonly StoreMessage[],
  callId: string,
  toolName: string,
  edit: (card: ToolCard) => ToolCard,
): readonly StoreMessage[] {
  for (let m = messages.length - 1; m >= 0; m--) {
    const message = messages[m] as StoreMessage;
    const p = message.parts.findIndex((part) => part.type === "tool" && part.callId === callId);
    if (p === -1) continue;
    const card = message.parts[p] as ToolCard;
    const next = edit(card);
    if (next === card) return messages;
    const parts = message.parts.slice();
    parts[p] = next;
    const out = messages.slice();
    out[m] = { ...message, parts };
    return out;
  }
  const open: ToolCard = { type: "tool", callId, toolName, status: "streaming", argumentsText: "" };
  return editLast(messages, (parts) => [...parts, edit(open)]);
}
