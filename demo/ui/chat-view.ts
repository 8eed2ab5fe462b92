import type { StoreMessage } from "../../src/ui/index.ts";
import type { TranscriptNote } from "../transcript-note.ts";
import { unreachable } from "../unreachable.ts";
import { element } from "./element.ts";
import { richText } from "./rich-text.ts";
import { toolCallCard } from "./tool-call-card.ts";

/**
 * Chat view interface: the visible transcript (`data-testid="transcript"`).
 */
export interface ChatView {
  /** The scrolling transcript element. */
  element: HTMLElement;
  /**
   * Shows the agent store's messages with the page's notes between them. A message or a note
   * that is the same object as last time keeps its elements (the store keeps the identity of
   * what did not change).
   */
  render(messages: readonly StoreMessage[], notes: readonly TranscriptNote[]): void;
}

/**
 * Creates the chat view.
 *
 * @param options What to show while empty, and how to tell whether a tool is read-only.
 * @returns The view.
 */
export function createChatView(options: {
  empty: HTMLElement;
  readOnly(toolName: string): boolean | undefined;
}): ChatView {
  const root = element("div", {
    className: "transcript",
    attrs: {
      "data-testid": "transcript",
      role: "log",
      "aria-live": "polite",
      "aria-label": "Conversation",
      tabindex: 0,
    },
  });
  let drawn = new Map<object, HTMLElement[]>();

  const message = (item: StoreMessage): HTMLElement[] => {
    if (item.role === "user") {
      const text = item.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
      return [
        element("div", { className: "msg msg-user" }, [
          element("div", { className: "bubble", text }),
        ]),
      ];
    }
    return item.parts.flatMap((part) => {
      switch (part.type) {
        case "text":
          return [
            element("div", { className: "msg msg-assistant" }, [
              element("div", { className: "avatar", text: "tw", attrs: { "aria-hidden": "true" } }),
              element("div", { className: "bubble" }, [richText(part.text)]),
            ]),
          ];
        // The model's thinking stays in the Timeline tab.
        case "reasoning":
          return [];
        case "tool":
          return [toolCallCard(part, options.readOnly(part.toolName))];
        default:
          return unreachable(part);
      }
    });
  };

  const note = (item: TranscriptNote): HTMLElement => {
    switch (item.type) {
      case "compaction":
        return element("div", { className: "divider", attrs: { role: "note" } }, [
          element("span", {
            text: `Compacted (${reasonText(item.reason)}): ${item.from} → ${item.to} messages${item.summarized ? ", older ones replaced by a summary" : ", shortened without a summary"}`,
            attrs: {
              title:
                "The transcript grew past the threshold in the Context tab, so the agent shortened what it sends the model. This chat still shows everything.",
            },
          }),
        ]);
      case "notice":
        return element("div", { className: `notice notice-${item.tone}`, text: item.text });
      default:
        return unreachable(item);
    }
  };

  // Follow new output unless the person scrolled up to read; decided on their scroll,
  // not at update time, because a tall new card would otherwise look like "scrolled away".
  let follow = true;
  root.addEventListener("scroll", () => {
    follow = root.scrollHeight - root.scrollTop - root.clientHeight < 80;
  });

  return {
    element: root,
    render(messages, notes) {
      const next = new Map<object, HTMLElement[]>();
      const nodes: HTMLElement[] = [];
      const show = <T extends object>(item: T, draw: (item: T) => HTMLElement[]) => {
        const elements = drawn.get(item) ?? draw(item);
        next.set(item, elements);
        nodes.push(...elements);
      };
      let n = 0;
      const notesUpTo = (count: number) => {
        while (n < notes.length && (notes[n] as TranscriptNote).at <= count) {
          show(notes[n] as TranscriptNote, (item) => [note(item)]);
          n++;
        }
      };
      messages.forEach((item, index) => {
        notesUpTo(index);
        show(item, message);
      });
      notesUpTo(Number.POSITIVE_INFINITY);
      if (nodes.length === 0) nodes.push(options.empty);
      const same =
        nodes.length === root.childElementCount &&
        nodes.every((node, index) => root.children[index] === node);
      if (!same) root.replaceChildren(...nodes);
      if (nodes.length === 1 && nodes[0] === options.empty) follow = true;
      drawn = next;
      if (follow) root.scrollTop = root.scrollHeight;
    },
  };
}

const REASONS: Record<string, string> = {
  threshold: "past the threshold",
  predicted: "the next turn would pass the threshold",
  requested: "the agent asked for it",
  overflow: "the model said the transcript was too long",
  manual: "you pressed Compact now",
};

/**
 * Returns a compaction's reason in plain words.
 *
 * @param reason The reason as the agent's event names it.
 * @returns The words, or the name itself for a reason this page does not know.
 */
export function reasonText(reason: string): string {
  return REASONS[reason] ?? reason;
}
