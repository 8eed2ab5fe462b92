import type { AgentEvent } from "../../src/agent/index.ts";
import type { TimelineEntry } from "../demo-session.ts";
import { unreachable } from "../unreachable.ts";
import { element } from "./element.ts";
import { formatArguments } from "./tool-call-card.ts";

const MAX_ENTRIES = 400;

/**
 * Timeline panel interface: every `AgentEvent`, in order, with its time since the run began.
 */
export interface TimelinePanel {
  element: HTMLElement;
  /** Adds an event, or a run separator for `undefined`. */
  add(entry: TimelineEntry | undefined): void;
  /** Empties the timeline. */
  clear(): void;
}

/**
 * Creates the timeline panel.
 *
 * @returns The panel.
 */
export function createTimelinePanel(): TimelinePanel {
  const list = element("ol", { className: "timeline", attrs: { "aria-label": "Agent events" } });
  const empty = element("p", { className: "help", text: "Events of the next run appear here." });
  const root = element("div", { className: "panel-body" }, [empty, list]);
  let runs = 0;
  // A run's header waits for the run's first event, so a reset or a run that never started
  // leaves no empty "Run n".
  let headerDue = false;
  return {
    element: root,
    add(entry) {
      if (!entry) {
        headerDue = true;
      } else {
        empty.remove();
        if (headerDue) {
          headerDue = false;
          runs += 1;
          list.append(element("li", { className: "timeline-run", text: `Run ${runs}` }));
        }
        // Text deltas are merged into one line per turn, so streaming does not flood it.
        const last = list.lastElementChild as HTMLElement | null;
        if (entry.event.type === "text_delta" && last?.dataset.type === "text_delta") {
          const detail = last.querySelector(".timeline-detail");
          if (detail) detail.textContent = `${detail.textContent ?? ""}${entry.event.text}`;
          return;
        }
        list.append(
          element("li", { className: "timeline-item", attrs: { "data-type": entry.event.type } }, [
            element("span", {
              className: "timeline-time",
              text: `+${(entry.ms / 1000).toFixed(2)}s`,
            }),
            element("span", {
              className: `timeline-type type-${entry.event.type}`,
              text: entry.event.type,
            }),
            element("span", { className: "timeline-detail", text: describeEvent(entry.event) }),
          ]),
        );
      }
      while (list.childElementCount > MAX_ENTRIES) list.firstElementChild?.remove();
      root.scrollTop = root.scrollHeight;
    },
    clear() {
      list.replaceChildren();
      runs = 0;
      headerDue = false;
      root.prepend(empty);
    },
  };
}

/**
 * Returns a one-line description of an agent event.
 *
 * @param event The event.
 * @returns The description.
 */
export function describeEvent(event: AgentEvent): string {
  switch (event.type) {
    case "turn_start":
      return `turn ${event.turn}${event.final ? " (final answer)" : ""}`;
    case "text_delta":
    case "reasoning_delta":
      return event.text;
    case "tool_input_delta":
      return `${event.toolName} ${event.text}`;
    case "model_retry":
      return `retry ${event.attempt} in ${event.delayMs} ms: ${event.message}`;
    case "usage":
      return `turn ${event.turn}: ${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens${event.usage.cacheReadTokens ? ` (${event.usage.cacheReadTokens} cached)` : ""}`;
    case "tool_call":
      return `${event.toolName} ${formatArguments(event.arguments)}`;
    case "approval_requested":
      return `${event.toolName} needs approval`;
    case "approval_resolved":
      return `${event.toolName}: ${event.decision.type}${"reason" in event.decision ? ` (${event.decision.reason})` : ""}`;
    case "interaction_requested":
      return `${event.toolName} asks: ${event.request.prompt}`;
    case "interaction_resolved":
      return `${event.toolName}: ${event.response.type}`;
    case "tool_progress":
      return `${event.toolName} ${event.progress.progress}${event.progress.total ? `/${event.progress.total}` : ""}${event.progress.message ? ` ${event.progress.message}` : ""}`;
    case "tool_result":
      return `${event.toolName}: ${event.outcome}${event.isError ? ", error" : ""}`;
    case "compacted":
      return `${event.reason}: ${event.before.messages} → ${event.after.messages} messages, ${event.before.tokens} → ${event.after.tokens} tokens${event.summarized ? ", summarized" : ""}${event.summaryError ? ` (${event.summaryError})` : ""}`;
    case "error":
      return event.message;
    case "done":
      return `stop: ${event.result.stop}, ${event.result.turns} turns, ${event.result.usage.inputTokens} in / ${event.result.usage.outputTokens} out tokens`;
    default:
      return unreachable(event);
  }
}
