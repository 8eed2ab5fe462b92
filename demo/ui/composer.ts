import { element } from "./element.ts";

/** The suggested prompts: in order, they walk through every feature of the page. */
export const SUGGESTED_PROMPTS = [
  "calculate 2+3*4",
  "add todos: draft the post, review it, publish",
  "add a note: buy oat milk",
  "what time is it?",
  "ask me my favourite colour",
  "run the slow task",
  "start todo 1",
  "list my notes",
  "compact the conversation",
] as const;

/**
 * Composer interface: the prompt box (`prompt`), Send (`send`), Stop (`stop`) and the
 * suggested prompt chips.
 */
export interface Composer {
  element: HTMLElement;
  /** Enables Send or Stop to match whether a run is in flight. */
  setRunning(running: boolean): void;
  /** Focuses the prompt box. */
  focus(): void;
}

/**
 * Creates the composer.
 *
 * @param options What Send and Stop do.
 * @returns The composer.
 */
export function createComposer(options: { send(text: string): void; stop(): void }): Composer {
  let running = false;
  const prompt = element("textarea", {
    className: "prompt",
    attrs: {
      "data-testid": "prompt",
      rows: 1,
      placeholder: "Message the agent…",
      title: "Enter sends; Shift+Enter starts a new line",
      "aria-label": "Message",
      autocomplete: "off",
    },
  });
  const send = element("button", {
    className: "button button-primary",
    text: "Send",
    attrs: { type: "submit", "data-testid": "send" },
  });
  const stop = element("button", {
    className: "button button-stop",
    text: "Stop",
    attrs: {
      type: "button",
      "data-testid": "stop",
      disabled: true,
      title: "Cancel everything in flight",
    },
    on: { click: () => options.stop() },
  });
  const submit = () => {
    const text = prompt.value.trim();
    if (running || text === "") return;
    prompt.value = "";
    resize();
    options.send(text);
  };
  const resize = () => {
    prompt.style.height = "auto";
    prompt.style.height = `${Math.min(prompt.scrollHeight, 160)}px`;
  };
  prompt.addEventListener("input", resize);
  prompt.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
  const chips = element(
    "div",
    { className: "chips", attrs: { role: "list", "aria-label": "Suggested prompts" } },
    SUGGESTED_PROMPTS.map((text) =>
      element("button", {
        className: "chip",
        text,
        attrs: { type: "button", role: "listitem", title: `Send “${text}”` },
        on: {
          click: () => {
            prompt.value = text;
            submit();
          },
        },
      }),
    ),
  );
  const form = element(
    "form",
    {
      className: "composer",
      on: {
        submit: (event) => {
          event.preventDefault();
          submit();
        },
      },
    },
    [prompt, stop, send],
  );
  return {
    element: element("div", { className: "composer-wrap" }, [chips, form]),
    setRunning(value) {
      running = value;
      send.disabled = value;
      stop.disabled = !value;
      for (const chip of chips.querySelectorAll("button")) chip.disabled = value;
    },
    focus: () => prompt.focus(),
  };
}
