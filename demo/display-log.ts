import type { AgentEvent, RunResult, ToolCallOutcome } from "../src/agent/index.ts";
import type { ToolContent, ToolProgress } from "../src/index.ts";
import { unreachable } from "./unreachable.ts";

/** How a tool call card stands, as an `as const` list. */
export const TOOL_CARD_STATUSES = [
  "pending",
  "awaiting_approval",
  "running",
  "awaiting_input",
  "done",
  "failed",
  "refused",
  "cancelled",
  "interrupted",
] as const;

/** Tool card status type. */
export type ToolCardStatus = (typeof TOOL_CARD_STATUSES)[number];

/**
 * Tool card interface: what the page shows about one tool call.
 */
export interface ToolCard {
  type: "tool";
  /** The call id. */
  id: string;
  toolName: string;
  arguments: unknown;
  status: ToolCardStatus;
  /** The approval decision, and whether a person or the always-allow list made it. */
  approval?: { decision: "allow" | "deny" | "block"; reason?: string; automatic: boolean };
  progress?: ToolProgress;
  /** The question a tool asked, and the answer (or `undefined` while waiting / when declined). */
  interaction?: { prompt: string; answer?: string; declined?: boolean };
  /** The result as text, as the model reads it. */
  result?: string;
}

/**
 * Display item type: one entry of the visible transcript, discriminated by `type`. The visible
 * transcript keeps everything that happened, while compaction rewrites what the model sees.
 */
export type DisplayItem =
  | { type: "user"; id: string; text: string }
  | { type: "assistant"; id: string; text: string }
  | ToolCard
  | {
      type: "compaction";
      id: string;
      before: number;
      after: number;
      summarized: boolean;
      reason: string;
    }
  | { type: "notice"; id: string; tone: "info" | "warning" | "error"; text: string };

/**
 * Display log interface: the visible transcript, and how agent events change it.
 */
export interface DisplayLog {
  /** The items, oldest first. */
  readonly items: DisplayItem[];
  /** Appends an item and returns it. */
  add(item: DisplayItem): DisplayItem;
  /** Starts a run: its assistant text goes into fresh items. */
  startRun(runId: string): void;
  /**
   * Applies one agent event and returns the items it created or changed.
   *
   * @param event The event.
   * @param automatic Whether an approval was decided by the always-allow list.
   */
  apply(event: AgentEvent, automatic?: (callId: string) => boolean): DisplayItem[];
}

/**
 * Creates a display log, optionally restored from saved items.
 *
 * @param saved Items saved earlier.
 * @returns The log.
 */
export function createDisplayLog(saved: readonly DisplayItem[] = []): DisplayLog {
  const items: DisplayItem[] = saved.map((item) => structuredClone(item));
  let runId = "run";
  let sequence = 0;
  const cards = new Map<string, ToolCard>();
  for (const item of items) if (item.type === "tool") cards.set(item.id, item);

  const add = (item: DisplayItem): DisplayItem => {
    items.push(item);
    if (item.type === "tool") cards.set(item.id, item);
    return item;
  };
  const card = (callId: string): ToolCard[] => {
    const found = cards.get(callId);
    return found ? [found] : [];
  };
  const notice = (tone: "info" | "warning" | "error", text: string): DisplayItem[] => [
    add({ type: "notice", id: `${runId}-n${++sequence}`, tone, text }),
  ];

  return {
    items,
    add,
    startRun(id) {
      runId = id;
      sequence = 0;
    },
    apply(event, automatic = () => false) {
      switch (event.type) {
        case "turn_start":
        case "usage":
          return [];
        case "text_delta": {
          const id = `${runId}-t${event.turn}`;
          const last = items.at(-1);
          if (last?.type === "assistant" && last.id === id) {
            last.text += event.text;
            return [last];
          }
          return [add({ type: "assistant", id, text: event.text })];
        }
        case "tool_call": {
          // A run resumed after a reload announces its calls again: the card is the same one.
          const known = cards.get(event.callId);
          if (known) {
            known.status = "pending";
            return [known];
          }
          return [
            add({
              type: "tool",
              id: event.callId,
              toolName: event.toolName,
              arguments: event.arguments,
              status: "pending",
            }),
          ];
        }
        case "approval_requested":
          return card(event.callId).map((c) => Object.assign(c, { status: "awaiting_approval" }));
        case "approval_resolved":
          return card(event.callId).map((c) => {
            const { decision } = event;
            c.approval =
              decision.type === "allow"
                ? { decision: "allow", automatic: automatic(event.callId) }
                : { decision: decision.type, reason: decision.reason, automatic: false };
            c.status = decision.type === "allow" ? "pending" : "refused";
            return c;
          });
        case "interaction_requested":
          return card(event.callId).map((c) => {
            c.interaction = { prompt: event.request.prompt };
            c.status = "awaiting_input";
            return c;
          });
        case "interaction_resolved":
          return card(event.callId).map((c) => {
            const { response } = event;
            const prompt = c.interaction?.prompt ?? "";
            c.interaction =
              response.type === "submit"
                ? { prompt, answer: String(response.content) }
                : { prompt, declined: true };
            c.status = "running";
            return c;
          });
        case "tool_progress":
          return card(event.callId).map((c) => {
            c.progress = event.progress;
            if (c.status === "pending") c.status = "running";
            return c;
          });
        case "tool_result":
          return card(event.callId).map((c) => {
            c.result = contentText(event.content);
            c.status = resultStatus(event.outcome, event.isError);
            return c;
          });
        case "compacted":
          return [
            add({
              type: "compaction",
              id: `${runId}-c${++sequence}`,
              before: event.before.messages,
              after: event.after.messages,
              summarized: event.summarized,
              reason: event.reason,
            }),
          ];
        case "reasoning_delta":
        case "tool_input_delta":
          return [];
        case "model_retry":
          return notice(
            "info",
            `The model is busy; retry ${event.attempt} in ${event.delayMs} ms.`,
          );
        case "error":
          return notice("error", `The model failed: ${event.message}`);
        case "done":
          return doneNotice(event.result, notice);
        default:
          return unreachable(event);
      }
    },
  };
}

/**
 * Returns tool content as plain text, one line per item.
 *
 * @param content The content.
 * @returns The text.
 */
export function contentText(content: readonly ToolContent[]): string {
  return content
    .map((item) => {
      switch (item.type) {
        case "text":
          return item.text;
        case "json":
          return JSON.stringify(item.value, null, 2);
        case "image":
        case "audio":
          return `[${item.type} ${item.mimeType}]`;
        case "resource_link":
          return item.title ? `${item.title} <${item.uri}>` : item.uri;
        case "embedded_resource":
          return item.resource.text ?? `[resource ${item.resource.uri}]`;
        default:
          return unreachable(item);
      }
    })
    .join("\n");
}

function resultStatus(outcome: ToolCallOutcome, isError: boolean): ToolCardStatus {
  if (outcome === "refused") return "refused";
  if (outcome === "cancelled") return "cancelled";
  if (outcome === "interrupted") return "interrupted";
  return isError ? "failed" : "done";
}

function doneNotice(
  result: RunResult,
  notice: (tone: "info" | "warning" | "error", text: string) => DisplayItem[],
): DisplayItem[] {
  switch (result.stop) {
    case "done":
    case "error":
      return [];
    case "cancelled":
      return notice("warning", "Stopped. Everything in flight was cancelled.");
    case "paused":
      return notice("warning", "Paused; the run resumes where it stopped.");
    case "max_turns":
      return notice("warning", "The run reached its turn limit.");
    case "loop":
      return notice("warning", "The model repeated itself after a compaction, so the run stopped.");
    case "no_output":
      return notice("warning", "The model returned nothing, so the run stopped.");
    case "length":
      return notice("warning", "The answer was cut off at the token limit.");
    case "content_filter":
      return notice("warning", "The provider withheld the answer (content filter).");
    case "refusal":
      return notice("warning", "The model declined to answer.");
    case "compaction_stalled":
      return notice(
        "warning",
        "Compaction could not bring the transcript under the threshold, so the run stopped.",
      );
    default:
      return unreachable(result.stop);
  }
}
