import { describe, expect, test } from "vitest";
import { assistantMessage } from "../../src/agent/turn-message.ts";

describe("assistantMessage", () => {
  test("puts the text first, then one tool_use per call in call order", () => {
    const calls = [
      { id: "a", name: "read", arguments: { path: "x" } },
      { id: "b", name: "write", arguments: "not json" },
    ];
    expect(assistantMessage("Let me look.", calls)).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "a", name: "read", input: { path: "x" } },
        { type: "tool_use", id: "b", name: "write", input: "not json" },
      ],
    });
  });

  test("leaves out empty text, so a calls-only turn has no empty block", () => {
    const message = assistantMessage("", [{ id: "a", name: "read", arguments: {} }]);
    expect(message.content.map((block) => block.type)).toEqual(["tool_use"]);
    expect(assistantMessage("", [])).toEqual({ role: "assistant", content: [] });
  });
});
