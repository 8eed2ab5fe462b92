import { describe, expect, test } from "vitest";
import { samplingPrompt } from "../../src/interaction/sampling.ts";

describe("samplingPrompt", () => {
  test("is the text of the last text message, so a person sees what the model is asked", () => {
    expect(
      samplingPrompt([
        { role: "user", content: { type: "text", text: "first" } },
        { role: "assistant", content: { type: "text", text: "reply" } },
        { role: "user", content: { type: "text", text: "last" } },
        { role: "user", content: { type: "image", mimeType: "image/png", data: "AA==" } },
      ]),
    ).toBe("last");
  });

  test("is empty without any text, and never throws on malformed messages", () => {
    expect(samplingPrompt([])).toBe("");
    expect(samplingPrompt([{ role: "user", content: { type: "audio" } }])).toBe("");
    expect(samplingPrompt([null, 3, { content: null }])).toBe("");
    expect(samplingPrompt("not an array")).toBe("");
    expect(samplingPrompt(undefined)).toBe("");
  });
});
