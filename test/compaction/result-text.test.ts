import { describe, expect, test } from "vitest";
import { resultText } from "../../src/compaction/result-text.ts";

describe("resultText", () => {
  test("joins every item's text rendering", () => {
    expect(
      resultText({
        type: "tool_result",
        toolUseId: "1",
        isError: false,
        content: [
          { type: "text", text: "a" },
          { type: "json", value: [1] },
          { type: "image", mimeType: "image/png", data: "AA" },
        ],
      }),
    ).toBe("a\n[1]\n[image: image/png]");
  });
});
