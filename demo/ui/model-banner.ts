import type { InBrowserState } from "../model/in-browser-choice.ts";
import { unreachable } from "../unreachable.ts";
import { element } from "./element.ts";

/** Model banner options interface. */
export interface ModelBannerOptions {
  /** The visitor agreed to download the offered model (or to try again after a failure). */
  accept(): void;
}

/**
 * Creates the banner above the chat that says which in-browser model this device can run, what
 * it costs to download before anything is fetched, how the download goes, and when it is ready.
 *
 * @param options What the Download button does.
 * @returns The element and its update function.
 */
export function createModelBanner(options: ModelBannerOptions): {
  element: HTMLElement;
  update(state: InBrowserState): void;
} {
  const text = element("p", {
    className: "model-banner-text",
    attrs: { "data-testid": "model-status", role: "status" },
  });
  const button = element("button", {
    className: "button button-primary",
    attrs: { type: "button", "data-testid": "model-download" },
    on: { click: () => options.accept() },
  });
  const banner = element("div", { className: "model-banner", attrs: { hidden: "" } }, [
    text,
    button,
  ]);
  const update = (state: InBrowserState) => {
    banner.hidden = state.type === "none";
    button.hidden = state.type !== "offer" && state.type !== "failed";
    switch (state.type) {
      case "none":
        text.textContent = "";
        break;
      case "offer":
        text.textContent = `This device can run ${state.label} in the page: ${state.size} to download once, then cached for your next visit. Until then the offline script answers.`;
        button.textContent = "Download and use it";
        break;
      case "loading":
        text.textContent = `Loading ${state.label}: ${state.progress}`;
        break;
      case "ready":
        text.textContent = `${state.label} runs on this device; nothing you type leaves the page.`;
        break;
      case "failed":
        text.textContent = `${state.label} could not start: ${state.message}. The offline script answers instead.`;
        button.textContent = "Try again";
        break;
      default:
        unreachable(state);
    }
  };
  return { element: banner, update };
}
