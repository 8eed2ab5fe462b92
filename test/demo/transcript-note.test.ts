import { describe, expect, it } from "vitest";
import { retryText, stopText } from "../../demo/transcript-note.ts";
import { ModelError } from "../../src/models/index.ts";

// What the chat shows while the model adapter retries a request (design.md, "Models"): a 429
// is the provider asking to wait, a 5xx the provider failing; the two read differently.
describe("the demo's retry notice", () => {
  const notice = (error: unknown) => retryText({ attempt: 2, delayMs: 1500, error });

  it("says busy for a 429 and for an overloaded provider", () => {
    const limited = new ModelError({
      type: "rate_limit",
      provider: "openai",
      status: 429,
      message: "slow down",
    });
    expect(notice(limited)).toBe("The model is busy (rate limited, HTTP 429); retry 2 in 1500 ms.");
    const overloaded = new ModelError({
      type: "http",
      provider: "anthropic",
      status: 529,
      code: "overloaded_error",
      message: "Overloaded",
    });
    expect(notice(overloaded)).toContain(
      "The model is busy (the provider is overloaded, HTTP 529)",
    );
  });

  it("says the provider failed for a 5xx, and never calls that busy", () => {
    const failed = new ModelError({
      type: "http",
      provider: "openai",
      status: 502,
      message: "Bad gateway",
    });
    expect(notice(failed)).toBe("The model provider failed (HTTP 502); retry 2 in 1500 ms.");
    expect(notice(failed)).not.toContain("busy");
  });

  it("says the provider could not be reached when no answer came", () => {
    const offline = new ModelError({ type: "http", provider: "openai", message: "fetch failed" });
    expect(notice(offline)).toMatch(/^The model provider could not be reached; retry 2/);
  });
});

describe("the demo's stop notice", () => {
  it("says nothing for an answer or a failure (the error says it), and how any other run stopped", () => {
    expect(stopText("done")).toBeUndefined();
    expect(stopText("error")).toBeUndefined();
    expect(stopText("cancelled")).toBe("Stopped. Everything in flight was cancelled.");
    expect(stopText("compaction_stalled")).toContain("could not bring the transcript under");
  });
});
