import type {
  AgentStore,
  AgentStoreState,
  PendingApproval,
  PendingQuestion,
} from "../../src/ui/index.ts";
import { element } from "./element.ts";
import { formatArguments } from "./tool-call-card.ts";

/**
 * Prompt dock interface: the bar above the composer where the page asks the person something
 * (an approval, or a tool's question).
 */
export interface PromptDock {
  element: HTMLElement;
  /**
   * Shows the first approval or question waiting in the agent store, or hides the dock; the
   * same one as last time is left as it is (with what the person typed).
   */
  show(state: AgentStoreState): void;
}

/**
 * Creates the prompt dock. Approval: `approve` ("Allow once") and `deny` (with the optional
 * reason typed in `deny-reason`). Question: `interaction-input`, `interaction-submit`,
 * `interaction-decline`.
 *
 * @returns The dock.
 */
export function createPromptDock(store: AgentStore): PromptDock {
  const root = element("div", { className: "dock", attrs: { hidden: true } });
  let shown: PendingApproval | PendingQuestion | undefined;
  return {
    element: root,
    show(state) {
      const approval = state.approvals[0];
      const question = approval ? undefined : state.questions[0];
      if ((approval ?? question) === shown) return;
      shown = approval ?? question;
      root.replaceChildren();
      root.hidden = shown === undefined;
      if (approval) {
        root.append(approvalPanel(store, approval));
        root.querySelector<HTMLElement>("[data-testid=approve]")?.focus();
      } else if (question) {
        root.append(questionPanel(store, question));
        root.querySelector<HTMLElement>("[data-testid=interaction-input]")?.focus();
      }
    },
  };
}

function approvalPanel(store: AgentStore, request: PendingApproval): HTMLElement {
  const caps = Object.entries(request.capabilities)
    .filter(([, on]) => on)
    .map(([name]) => name);
  const reason = element("input", {
    className: "input",
    attrs: {
      type: "text",
      "data-testid": "deny-reason",
      placeholder: "Reason, if you deny (the model reads it)",
      "aria-label": "Reason for denying",
    },
  });
  const deny = () => store.deny(request.callId, reason.value.trim() || "no reason given");
  reason.addEventListener("keydown", (event) => {
    if (event.key === "Enter") deny();
  });
  return element(
    "section",
    {
      className: "dock-panel dock-approval",
      attrs: { role: "group", "aria-labelledby": "dock-title" },
    },
    [
      element("h2", { className: "dock-title", attrs: { id: "dock-title" } }, [
        "Allow ",
        element("code", { text: request.toolName }),
        " to run? It writes.",
      ]),
      element("pre", { className: "dock-args", text: formatArguments(request.arguments) }),
      caps.length > 0
        ? element("p", { className: "dock-caps", text: `Declared risk: ${caps.join(", ")}` })
        : undefined,
      request.capabilities.externalSend
        ? element("p", {
            className: "dock-caps",
            text: "It can send data out of this page. If the conversation holds private data and untrusted content, a prompt injection could use it to leak that data.",
          })
        : undefined,
      element("div", { className: "dock-actions" }, [
        reason,
        element("button", {
          className: "button button-danger",
          text: "Deny",
          attrs: { type: "button", "data-testid": "deny" },
          on: { click: deny },
        }),
        element("button", {
          className: "button button-primary",
          text: "Allow once",
          attrs: { type: "button", "data-testid": "approve" },
          on: { click: () => store.approve(request.callId) },
        }),
      ]),
    ],
  );
}

function questionPanel(store: AgentStore, pending: PendingQuestion): HTMLElement {
  const { request, callId } = pending;
  const multiline = request.kind.type === "text" && request.kind.multiline;
  const input = element(multiline ? "textarea" : "input", {
    className: "input",
    attrs: {
      "data-testid": "interaction-input",
      "aria-labelledby": "dock-title",
      rows: multiline ? 3 : undefined,
    },
  });
  const submit = () => {
    // This page answers text questions only; a form, a sampling request (a remote tool
    // asking to use the model) or a request for roots is declined, so the tool hears "no"
    // instead of a wrong answer.
    if (request.kind.type !== "text") {
      const what = { form: "forms", sampling: "sampling requests", roots: "roots" }[
        request.kind.type
      ];
      store.decline(callId, `${what} are not supported here`);
      return;
    }
    store.answer(callId, input.value);
  };
  input.addEventListener("keydown", (event) => {
    const key = event as KeyboardEvent;
    if (key.key === "Enter" && !key.shiftKey) {
      event.preventDefault();
      submit();
    }
  });
  return element(
    "section",
    {
      className: "dock-panel dock-question",
      attrs: { role: "group", "aria-labelledby": "dock-title" },
    },
    [
      element("h2", { className: "dock-title", attrs: { id: "dock-title" } }, [
        element("code", { text: request.toolName }),
        ` asks: ${request.prompt}`,
      ]),
      element("div", { className: "dock-actions" }, [
        input,
        element("button", {
          className: "button",
          text: "Decline",
          attrs: { type: "button", "data-testid": "interaction-decline" },
          on: { click: () => store.decline(callId) },
        }),
        element("button", {
          className: "button button-primary",
          text: "Reply",
          attrs: { type: "button", "data-testid": "interaction-submit" },
          on: { click: submit },
        }),
      ]),
    ],
  );
}
