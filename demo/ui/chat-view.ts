import type { DisplayItem } from "../display-log.ts";
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
  /** Adds new items and redraws changed ones. */
  upsert(items: readonly DisplayItem[]): void;
  /** Replaces everything (restore, new conversation). */
  reset(items: readonly DisplayItem[]): void;
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
  const nodes = new Map<string, HTMLElement>();

  const render = (item: DisplayItem): HTMLElement => {
    switch (item.type) {
      case "user":
        return element("div", { className: "msg msg-user" }, [
          element("div", { className: "bubble", text: item.text }),
        ]);
      case "assistant":
        return element("div", { className: "msg msg-assistant" }, [
          element("div", { className: "avatar", text: "tw", attrs: { "aria-hidden": "true" } }),
          element("div", { className: "bubble" }, [richText(item.text)]),
        ]);
      case "tool":
        return toolCallCard(item, options.readOnly(item.toolName));
      case "compaction":
        return element("div", { className: "divider", attrs: { role: "note" } }, [
          element("span", {
            text: `Compacted (${reasonText(item.reason)}): ${item.before} → ${item.after} messages${item.summarized ? ", older ones replaced by a summary" : ", shortened without a summary"}`,
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
  const sync = () => {
    const empty = nodes.size === 0;
    if (empty && !options.empty.isConnected) root.append(options.empty);
    if (!empty) options.empty.remove();
  };

  return {
    element: root,
    upsert(items) {
      for (const item of items) {
        const next = render(item);
        const current = nodes.get(item.id);
        if (current) current.replaceWith(next);
        else root.append(next);
        nodes.set(item.id, next);
      }
      sync();
      if (follow) root.scrollTop = root.scrollHeight;
    },
    reset(items) {
      root.replaceChildren();
      nodes.clear();
      follow = true;
      this.upsert(items);
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
