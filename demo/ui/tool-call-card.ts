import type { ToolContent } from "../../src/index.ts";
import type { ToolCard } from "../../src/ui/index.ts";
import { unreachable } from "../unreachable.ts";
import { element } from "./element.ts";

/** How a tool call card stands on the page (its `data-status`). */
export type CardStatus =
  | "pending"
  | "awaiting_approval"
  | "running"
  | "awaiting_input"
  | "done"
  | "failed"
  | "refused"
  | "cancelled"
  | "interrupted";

const STATUS_LABELS: Record<CardStatus, string> = {
  pending: "queued",
  awaiting_approval: "waiting for your approval",
  running: "running",
  awaiting_input: "waiting for your answer",
  done: "done",
  failed: "failed",
  refused: "not run",
  cancelled: "cancelled",
  interrupted: "interrupted, not run again",
};

/** Returns the page's status of an agent store's card: how it ended, once `done`. */
export function cardStatus(card: ToolCard): CardStatus {
  switch (card.status) {
    case "streaming":
    case "waiting":
    case "approved":
      return "pending";
    case "approval":
      return "awaiting_approval";
    case "question":
      return "awaiting_input";
    case "running":
      return "running";
    case "done":
      if (card.outcome === "refused") return "refused";
      if (card.outcome === "cancelled") return "cancelled";
      if (card.outcome === "interrupted") return "interrupted";
      return card.isError ? "failed" : "done";
    default:
      return unreachable(card.status);
  }
}

/**
 * Returns the card for one tool call: name, arguments, approval, progress, the question it
 * asked, and its result. `data-testid="tool-call"`, with `data-tool` and `data-status`.
 *
 * @param card The call as the agent store shows it.
 * @param readOnly Whether the tool is read-only (`undefined` when unknown).
 * @returns The element.
 */
export function toolCallCard(card: ToolCard, readOnly: boolean | undefined): HTMLElement {
  const status = cardStatus(card);
  const live = status === "running" || status === "pending";
  const result = card.content === undefined ? undefined : contentText(card.content);
  return element(
    "article",
    {
      className: `tool-card status-${status}`,
      attrs: {
        "data-testid": "tool-call",
        "data-tool": card.toolName,
        "data-status": status,
        "aria-label": `Tool call ${card.toolName}: ${STATUS_LABELS[status]}`,
        "aria-busy": live,
      },
    },
    [
      element("header", { className: "tool-head" }, [
        element("span", { className: "tool-dot", attrs: { "aria-hidden": "true" } }),
        element("code", { className: "tool-name", text: card.toolName }),
        readOnly === undefined
          ? undefined
          : element("span", {
              className: `badge ${readOnly ? "badge-read" : "badge-write"}`,
              text: readOnly ? "read-only" : "writes",
            }),
        element("span", { className: "tool-status", text: STATUS_LABELS[status] }),
      ]),
      element("pre", {
        className: "tool-args",
        // While the model still writes them, the arguments as they stream in.
        text: card.status === "streaming" ? card.argumentsText : formatArguments(card.arguments),
      }),
      approvalLine(card),
      // Progress is news only while the tool runs.
      status === "running" ? progressLine(card) : undefined,
      questionLine(card),
      // A denied or blocked call's result only repeats the approval line's reason.
      result === undefined || (status === "refused" && card.approval !== undefined)
        ? undefined
        : element("pre", { className: "tool-result", text: result }),
    ],
  );
}

function approvalLine(card: ToolCard): HTMLElement | undefined {
  const { approval } = card;
  if (!approval) return undefined;
  const { decision } = approval;
  let text: string;
  if (decision.type === "allow") {
    // The page's only policy is the Tools tab's list.
    text =
      approval.by === "policy"
        ? "Allowed automatically (you ticked “Allow without asking” in the Tools tab)"
        : "Allowed once by you";
  } else if (decision.type === "deny") {
    text = `Denied by you: ${decision.reason}`;
  } else {
    text = `Blocked by policy: ${decision.reason}`;
  }
  return element("p", { className: `tool-approval approval-${decision.type}`, text });
}

function progressLine(card: ToolCard): HTMLElement | undefined {
  const { progress } = card;
  if (!progress) return undefined;
  const total = progress.total ?? 0;
  const label =
    progress.message ??
    (total > 0 ? `${progress.progress} of ${total}` : String(progress.progress));
  return element("div", { className: "tool-progress" }, [
    total > 0
      ? element("progress", {
          attrs: {
            max: total,
            value: progress.progress,
            "aria-label": `${card.toolName} progress`,
          },
        })
      : undefined,
    element("span", { text: label }),
  ]);
}

function questionLine(card: ToolCard): HTMLElement | undefined {
  const { question } = card;
  if (!question) return undefined;
  const { response } = question;
  const answer =
    response === undefined
      ? "…"
      : response.type === "submit"
        ? String(response.content)
        : "(declined)";
  return element("dl", { className: "tool-interaction" }, [
    element("dt", { text: "Asked" }),
    element("dd", { text: question.request.prompt }),
    element("dt", { text: "You answered" }),
    element("dd", { text: answer }),
  ]);
}

/**
 * Returns arguments as compact, readable JSON.
 *
 * @param value The arguments.
 * @returns The text.
 */
export function formatArguments(value: unknown): string {
  const compact = JSON.stringify(value);
  if (compact === undefined) return String(value);
  return compact.length <= 80 ? compact : JSON.stringify(value, null, 2);
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
