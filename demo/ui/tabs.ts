import { element } from "./element.ts";

/**
 * Tab interface: one sidebar tab.
 */
export interface Tab {
  id: string;
  label: string;
  panel: HTMLElement;
}

/**
 * Tabs interface: accessible tabs (arrow keys move between them).
 */
export interface Tabs {
  element: HTMLElement;
  /** Shows a tab. */
  select(id: string): void;
}

/**
 * Creates accessible tabs over panels.
 *
 * @param tabs The tabs, in order; the first is selected.
 * @returns The tabs.
 */
export function createTabs(tabs: readonly Tab[]): Tabs {
  const buttons = tabs.map((tab) =>
    element("button", {
      className: "tab",
      text: tab.label,
      attrs: {
        type: "button",
        role: "tab",
        id: `tab-${tab.id}`,
        "aria-controls": `panel-${tab.id}`,
      },
    }),
  );
  const panels = tabs.map((tab) =>
    element(
      "section",
      {
        className: "tab-panel",
        attrs: { role: "tabpanel", id: `panel-${tab.id}`, "aria-labelledby": `tab-${tab.id}` },
      },
      [tab.panel],
    ),
  );
  const select = (index: number, focus = false) => {
    buttons.forEach((button, i) => {
      const on = i === index;
      button.setAttribute("aria-selected", String(on));
      button.tabIndex = on ? 0 : -1;
      (panels[i] as HTMLElement).hidden = !on;
    });
    if (focus) buttons[index]?.focus();
  };
  buttons.forEach((button, index) => {
    button.addEventListener("click", () => {
      select(index);
      // On a phone the panel sits below the chat: bring it up under its tab row.
      const list = button.parentElement;
      if (list && list.getBoundingClientRect().bottom > window.innerHeight * 0.6) {
        list.scrollIntoView({ block: "start" });
      }
    });
    button.addEventListener("keydown", (event) => {
      const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      if (step !== 0) select((index + step + tabs.length) % tabs.length, true);
    });
  });
  select(0);
  return {
    element: element("div", { className: "tabs" }, [
      element(
        "div",
        { className: "tab-list", attrs: { role: "tablist", "aria-label": "Inspector" } },
        buttons,
      ),
      ...panels,
    ]),
    select: (id) =>
      select(
        Math.max(
          0,
          tabs.findIndex((tab) => tab.id === id),
        ),
      ),
  };
}
