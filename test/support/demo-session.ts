// Drives the demo's session as its page does: through the agent store's snapshots (what waits
// for the person, the cards) and the session's notes.
import type { DemoSession } from "../../demo/demo-session.ts";
import { type CardStatus, cardStatus } from "../../demo/ui/tool-call-card.ts";
import type { AgentStore, PendingApproval, PendingQuestion, ToolCard } from "../../src/ui/index.ts";

/** What waits for the person, first the approvals, as the page's dock shows it. */
export type Waiting =
  | { type: "approval"; pending: PendingApproval }
  | { type: "question"; pending: PendingQuestion };

function waiting(store: AgentStore): Waiting | undefined {
  const { approvals, questions } = store.getSnapshot();
  const approval = approvals[0];
  if (approval) return { type: "approval", pending: approval };
  const question = questions[0];
  return question ? { type: "question", pending: question } : undefined;
}

/** Calls `on` with each new thing that waits for the person; returns the function that stops. */
export function onWaiting(s: DemoSession, on: (item: Waiting) => void): () => void {
  let shown: object | undefined;
  return s.store.subscribe(() => {
    const item = waiting(s.store);
    if (item?.pending === shown) return;
    shown = item?.pending;
    if (item) on(item);
  });
}

/** Resolves with the next thing that waits for the person. */
export function nextWaiting(s: DemoSession): Promise<Waiting> {
  return new Promise((resolve) => {
    const stop = onWaiting(s, (item) => {
      stop();
      resolve(item);
    });
  });
}

/** Resolves when the session is idle next. */
export function idle(s: DemoSession): Promise<void> {
  return new Promise((resolve) => {
    const on = (busy: boolean) => {
      if (busy) return;
      s.off("busy", on);
      resolve();
    };
    s.on("busy", on);
  });
}

/** The transcript's tool cards. */
export function cards(s: DemoSession): ToolCard[] {
  return s.store
    .getSnapshot()
    .messages.flatMap((m) => m.parts.filter((p): p is ToolCard => p.type === "tool"));
}

/** Each card's tool and the status the page shows. */
export function statuses(s: DemoSession): [string, CardStatus][] {
  return cards(s).map((card) => [card.toolName, cardStatus(card)]);
}

/** The visible transcript as one text: messages and notes. */
export function transcriptText(s: DemoSession): string {
  return JSON.stringify({ messages: s.store.getSnapshot().messages, notes: s.notes });
}
