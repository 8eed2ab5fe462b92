import type { ToolCard, ToolCardStatus } from "../display-log.ts";
import { element } from "./element.ts";

const STATUS_LABELS: Record<ToolCardStatus, string> = {
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

/**
 * Returns the card for one tool call: name, arguments, approval, progress, the question it
 * asked, and its result. `data-testid="tool-call"`, with `data-tool` and `data-status`.
 *
 * @param card The call's state.
 * @param readOnly Whether the tool is read-only (`undefined` when unknown).
 * @returns The element.
 */
export function toolCallCard(card: ToolCard, readOnly: boolean | undefined): HTMLElement {
  const live = card.status === "running" || card.status === "pending";
  return element(
    "article",
    {
      className: `tool-card status-${card.status}`,
      attrs: {
        "data-testid": "tool-call",
        "data-tool": card.toolName,
        "data-status": card.status,
        "aria-label": `Tool call ${card.toolName}: ${STATUS_LABELS[card.status]}`,
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
        element("span", { className: "tool-status", text: STATUS_LABELS[card.status] }),
      ]),
      element("pre", { className: "tool-args", text: formatArguments(card.arguments) }),
      approvalLine(card),
      progressLine(card),
      interactionLine(card),
      // A denied or blocked call's result only repeats the approval line's reason.
      card.result === undefined || (card.status === "refused" && card.approval !== undefined)
        ? undefined
        : element("pre", { className: "tool-result", text: card.result }),
    ],
  );
}

function approvalLine(card: ToolCard): HTMLElement | undefined {
  const { approval } = card;
  if (!approval) return undefined;
  let text: string;
  if (approval.decision === "allow") {
    text = approval.automatic
      ? "Allowed automatically (you ticked “Allow without asking” in the Tools tab)"
      : "Allowed once by you";
  } else if (approval.decision === "deny") {
    text = `Denied by you: ${approval.reason ?? ""}`;
  } else {
    text = `Blocked by policy: ${approval.reason ?? ""}`;
  }
  return element("p", { className: `tool-approval approval-${approval.decision}`, text });
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

function interactionLine(card: ToolCard): HTMLElement | undefined {
  const { interaction } = card;
  if (!interaction) return undefined;
  const answer = interaction.declined
    ? "(declined)"
    : interaction.answer === undefined
      ? "…"
      : interaction.answer;
  return element("dl", { className: "tool-interaction" }, [
    element("dt", { text: "Asked" }),
    element("dd", { text: interaction.prompt }),
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
