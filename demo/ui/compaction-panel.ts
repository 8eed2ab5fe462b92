import type { CompactionRecord } from "../compaction-record.ts";
import { reasonText } from "./chat-view.ts";
import { element } from "./element.ts";
import { createTokenMeter } from "./token-meter.ts";
import { transcriptText } from "./transcript-text.ts";

/**
 * Compaction view state interface: what the panel draws.
 */
export interface CompactionViewState {
  tokens: number;
  /** Where `tokens` came from: `estimated`, or what the model reported. */
  tokenSource: string;
  threshold: number;
  messages: number;
  running: boolean;
  records: readonly CompactionRecord[];
  /** The summaries in message 0, oldest first. */
  summaries: readonly string[];
  /** The carried-state block in message 0, header excluded. */
  carried: string | undefined;
}

/**
 * Compaction panel interface.
 */
export interface CompactionPanel {
  element: HTMLElement;
  update(state: CompactionViewState): void;
  /** Redraws the token meter alone (live, during a run). */
  updateTokens(tokens: number, source: string, threshold: number): void;
}

/** The threshold slider's range, in tokens. */
export const THRESHOLD_RANGE = { min: 400, max: 16_000, step: 100 } as const;

/**
 * Creates the compaction panel: the token meter, the threshold slider, "Compact now", the
 * count (`compaction-count`), the carried-state block (`carried-state`), the summaries in
 * message 0, and the log with expandable pre-rewrite transcripts.
 *
 * @param options What the slider and the button do.
 * @returns The panel.
 */
export function createCompactionPanel(options: {
  setThreshold(tokens: number): void;
  compactNow(): void;
}): CompactionPanel {
  const meter = createTokenMeter();
  const thresholdValue = element("output", { attrs: { for: "threshold" } });
  const slider = element("input", {
    attrs: {
      id: "threshold",
      type: "range",
      ...THRESHOLD_RANGE,
      "aria-describedby": "threshold-help",
    },
    on: {
      input: () => {
        thresholdValue.textContent = `${slider.value} tokens`;
        options.setThreshold(Number(slider.value));
      },
    },
  });
  const compactNow = element("button", {
    className: "button",
    text: "Compact now",
    attrs: { type: "button", "data-testid": "compact-now" },
    on: { click: () => options.compactNow() },
  });
  const count = element("strong", {
    className: "stat-value",
    attrs: { "data-testid": "compaction-count" },
    text: "0",
  });
  const messages = element("strong", { className: "stat-value", text: "0" });
  const carried = element("pre", {
    className: "carried",
    attrs: { "data-testid": "carried-state" },
  });
  const summaries = element("div", { className: "summaries" });
  const log = element("ol", { className: "compaction-log", attrs: { reversed: true } });
  const entries = new Map<string, HTMLElement>();

  const root = element("div", { className: "panel-body" }, [
    meter.element,
    element("div", { className: "field" }, [
      element("label", { attrs: { for: "threshold" } }, ["Compaction threshold ", thresholdValue]),
      slider,
      element("p", {
        className: "help",
        attrs: { id: "threshold-help" },
        text: "Set low on purpose so you can watch it. Past it, the agent shortens what it sends before its next turn: first by dropping old tool results a newer one replaced and collapsing repeated failures, then, if that is not enough, by summarising older messages.",
      }),
    ]),
    element("div", { className: "stats" }, [
      element("div", { className: "stat" }, [
        count,
        element("span", { className: "stat-label", text: "compactions" }),
      ]),
      element("div", { className: "stat" }, [
        messages,
        element("span", { className: "stat-label", text: "messages the model sees" }),
      ]),
      compactNow,
    ]),
    element("h3", { text: "Kept word for word" }),
    element("p", {
      className: "help",
      attrs: { "data-testid": "carried-help" },
      text: "A summary loses detail, so a tool's own state (here, the todo list) is not summarised: the agent re-reads it from the tool at each summary and keeps it as it is, in the first message the model sees.",
    }),
    carried,
    element("h3", { text: "Summaries" }),
    element("p", {
      className: "help",
      text: "What the agent wrote to replace older messages. They sit at the start of the transcript, in the first message the model sees.",
    }),
    summaries,
    element("h3", { text: "Compaction log" }),
    log,
  ]);

  return {
    element: root,
    updateTokens: (tokens, source, threshold) => meter.update(tokens, threshold, source),
    update(state) {
      meter.update(state.tokens, state.threshold, state.tokenSource);
      if (document.activeElement !== slider) slider.value = String(state.threshold);
      thresholdValue.textContent = `${state.threshold} tokens`;
      compactNow.disabled = state.running;
      count.textContent = String(state.records.length);
      messages.textContent = String(state.messages);
      carried.textContent =
        state.carried ?? "Nothing yet: add todos, then keep chatting until it compacts.";
      carried.classList.toggle("is-empty", state.carried === undefined);
      summaries.replaceChildren(
        ...(state.summaries.length === 0
          ? [element("p", { className: "help", text: "No summary yet." })]
          : state.summaries.map((text, index) =>
              element(
                "details",
                { className: "summary", attrs: { open: index === state.summaries.length - 1 } },
                [element("summary", { text: `Summary ${index + 1}` }), element("pre", { text })],
              ),
            )),
      );
      // Entries are kept by id, so an expanded transcript stays open across updates.
      const ids = new Set(state.records.map((record) => record.id));
      for (const [id, node] of entries) {
        if (!ids.has(id)) {
          node.remove();
          entries.delete(id);
        }
      }
      state.records.forEach((record, index) => {
        if (entries.has(record.id)) return;
        const node = logEntry(record, index + 1);
        entries.set(record.id, node);
        log.prepend(node);
      });
    },
  };
}

function logEntry(record: CompactionRecord, number: number): HTMLElement {
  const time = new Date(record.at).toLocaleTimeString();
  const tokens = `${record.before.tokens} → ${record.after.tokens} tokens`;
  return element("li", { className: "log-entry" }, [
    element("div", { className: "log-head" }, [
      element("strong", { text: `#${number}` }),
      element("span", {
        className: "badge",
        text: record.reason,
        attrs: { title: `Why: ${reasonText(record.reason)}` },
      }),
      element("span", { text: `${record.before.messages} → ${record.after.messages} messages` }),
      element("span", { className: "muted", text: `${tokens} · ${time}` }),
    ]),
    element("p", {
      className: "help",
      text: record.folded
        ? "Summary added at the start of the transcript; it also absorbed the earlier summaries, so only one is kept."
        : record.summarized
          ? "Summary added at the start of the transcript."
          : "Shortened without a summary (old tool results dropped or trimmed; nothing the model still needs).",
    }),
    record.summary === undefined
      ? undefined
      : element("details", {}, [
          element("summary", { text: "Summary it wrote" }),
          element("pre", { text: record.summary }),
        ]),
    element("details", {}, [
      element("summary", {
        text: `Transcript before the rewrite (${record.transcript.length} messages)`,
      }),
      element("pre", { className: "transcript-text", text: transcriptText(record.transcript) }),
    ]),
  ]);
}
