import { describe, expect, test } from "vitest";
import { appendInput, appendUserContent } from "../../src/agent/append-input.ts";
import { CANCELLED_PREFIX } from "../../src/agent/index.ts";
import type { Message } from "../../src/models/message.ts";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): Message => ({
  role: "assistant",
  content: [{ type: "text", text }],
});

describe("appendInput", () => {
  test("folds text into a trailing user message, replacing rather than editing it", () => {
    const original = user("first");
    const messages = [original];
    appendInput(messages, "second");
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "first" },
          { type: "text", text: "second" },
        ],
      },
    ]);
    expect(original.content).toHaveLength(1);
  });

  test("adds a user message after an assistant one, and nothing for empty text", () => {
    const messages = [user("q"), assistant("a")];
    appendInput(messages, "");
    expect(messages).toHaveLength(2);
    appendInput(messages, "next");
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  test("answers calls left open by a saved transcript before adding the input", () => {
    const messages: Message[] = [
      user("q"),
      { role: "assistant", content: [{ type: "tool_use", id: "u1", name: "t", input: {} }] },
    ];
    appendInput(messages, "go on");
    expect(messages[2]).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          toolUseId: "u1",
          isError: true,
          content: [{ type: "text", text: `${CANCELLED_PREFIX} this call never ran.` }],
        },
        { type: "text", text: "go on" },
      ],
    });
  });

  test("appends messages, folding adjacent user messages", () => {
    const messages = [user("a")];
    appendInput(messages, [user("b"), assistant("c"), user("d")]);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[0]?.content).toHaveLength(2);
  });
});

describe("appendUserContent", () => {
  test("does nothing for empty content", () => {
    const messages = [assistant("a")];
    appendUserContent(messages, []);
    expect(messages).toHaveLength(1);
  });
});
