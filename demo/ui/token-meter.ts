import { element } from "./element.ts";

/**
 * Token meter interface: the transcript's size against the compaction threshold
 * (`data-testid="token-meter"`), estimated between runs and as the model counts it during one.
 */
export interface TokenMeter {
  element: HTMLElement;
  /** Redraws with a new size, threshold and the size's source (`estimated` by default). */
  update(tokens: number, threshold: number, source?: string): void;
}

/**
 * Creates the token meter.
 *
 * @returns The meter.
 */
export function createTokenMeter(): TokenMeter {
  const value = element("span", { className: "meter-value" });
  const source = element("p", { className: "meter-source", text: "estimated" });
  const fill = element("div", { className: "meter-fill" });
  const root = element(
    "div",
    {
      className: "token-meter",
      attrs: { "data-testid": "token-meter", role: "meter", "aria-label": "Transcript size" },
    },
    [
      element("div", { className: "meter-head" }, [
        element("span", { className: "meter-label", text: "Transcript size" }),
        value,
      ]),
      element("div", { className: "meter-track", attrs: { "aria-hidden": "true" } }, [fill]),
      // Estimated between runs; during one, the model's own count arrives with each turn.
      source,
    ],
  );
  return {
    element: root,
    update(tokens, threshold, from = "estimated") {
      source.textContent = from;
      const ratio = threshold > 0 ? tokens / threshold : 0;
      const number = new Intl.NumberFormat("en");
      value.textContent = `${number.format(tokens)} / ${number.format(threshold)} tokens`;
      fill.style.width = `${Math.min(100, Math.round(ratio * 100))}%`;
      root.dataset.level = ratio >= 1 ? "over" : ratio >= 0.75 ? "near" : "ok";
      root.setAttribute("aria-valuemin", "0");
      root.setAttribute("aria-valuemax", String(threshold));
      root.setAttribute("aria-valuenow", String(tokens));
      root.setAttribute("aria-valuetext", `${tokens} of ${threshold} tokens, ${from}`);
    },
  };
}
