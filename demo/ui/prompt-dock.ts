import type { PendingPrompt } from "../prompt-queue.ts";
import { unreachable } from "../unreachable.ts";
import { element } from "./element.ts";
import { formatArguments } from "./tool-call-card.ts";

/**
 * Prompt dock interface: the bar above the composer where the page asks the person something
 * (an approval, or a tool's question).
 */
export interface PromptDock {
  element: HTMLElement;
  /** Shows a prompt, or hides the dock. */
  show(prompt: PendingPrompt | undefined): void;
}

/**
 * Creates the prompt dock. Approval: `approve` ("Allow once") and `deny` (with the optional
 * reason typed in `deny-reason`). Question: `interaction-input`, `interaction-submit`,
 * `interaction-decline`.
 *
 * @returns The dock.
 */
export function createPromptDock(): PromptDock {
  const root = element("div", { className: "dock", attrs: { hidden: true } });
  return {
    element: root,
    show(prompt) {
      root.replaceChildren();
      root.hidden = prompt === undefined;
      if (!prompt) return;
      switch (prompt.type) {
        case "approval":
          root.append(approvalPanel(prompt));
          root.querySelector<HTMLElement>("[data-testid=approve]")?.focus();
          return;
        case "interaction":
          root.append(questionPanel(prompt));
          root.querySelector<HTMLElement>("[data-testid=interaction-input]")?.focus();
          return;
        default:
          return unreachable(prompt);
      }
    },
  };
}

function approvalPanel(prompt: Extract<PendingPrompt, { type: "approval" }>): HTMLElement {
  const { request } = prompt;
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
  const deny = () =>
    prompt.answer({ type: "deny", reason: reason.value.trim() || "no reason given" });
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
          on: { click: () => prompt.answer({ type: "allow" }) },
        }),
      ]),
    ],
  );
}

function questionPanel(prompt: Extract<PendingPrompt, { type: "interaction" }>): HTMLElement {
  const { request } = prompt;
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
    // This page answers text questions only; a form or a sampling request (a remote tool
    // asking to use the model) is declined, so the tool hears "no" instead of a wrong answer.
    if (request.kind.type !== "text") {
      const what = request.kind.type === "form" ? "forms" : "sampling requests";
      prompt.answer({ type: "decline", id: request.id, reason: `${what} are not supported here` });
      return;
    }
    prompt.answer({ type: "submit", id: request.id, content: input.value });
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
          on: { click: () => prompt.answer({ type: "decline", id: request.id }) },
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
