import { describe, expect, test } from "vitest";
import {
  appendAssistant,
  appendInput,
  appendUserContent,
  assistantMessage,
  CANCELLED_PREFIX,
  checkInput,
  checkSomethingToAnswer,
  copyConversation,
} from "../../src/agent/transcript.ts";
import type { Conversation } from "../../src/compaction/conversation.ts";
import { isToolError } from "../../src/index.ts";
import type { Message } from "../../src/models/message.ts";

describe("appending input", () => {
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
            mark: "cancelled",
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
});

describe("checking and copying input", () => {
  const user: Message = { role: "user", content: [{ type: "text", text: "hi" }] };

  function failure(run: () => unknown): string {
    try {
      run();
    } catch (error) {
      expect(isToolError(error, "invalid_configuration")).toBe(true);
      return (error as Error).message;
    }
    throw new Error("did not throw");
  }

  describe("copyConversation", () => {
    test("returns a fresh empty conversation when there is none", () => {
      const a = copyConversation(undefined);
      expect(a).toEqual({
        messages: [],
        taint: { private: false, untrusted: false },
        rewritten: [],
      });
      expect(copyConversation(undefined)).not.toBe(a);
    });

    test("copies the lists and the taint, so the run cannot change the caller's", () => {
      const saved: Conversation = {
        messages: [user],
        taint: { private: true, untrusted: false },
        rewritten: [[user]],
      };
      const copy = copyConversation(saved);
      copy.messages.push(user);
      copy.taint.untrusted = true;
      copy.rewritten.length = 0;
      expect(saved).toEqual({
        messages: [user],
        taint: { private: true, untrusted: false },
        rewritten: [[user]],
      });
    });

    test("reads a missing rewritten as empty", () => {
      const saved = { messages: [user], taint: { private: false, untrusted: true } };
      expect(copyConversation(saved as unknown as Conversation).rewritten).toEqual([]);
    });

    test.each([
      [null, "conversation must be an object"],
      [{ messages: [], taint: { private: "yes", untrusted: false } }, "conversation.taint"],
      [
        { messages: {}, taint: { private: false, untrusted: false } },
        "conversation.messages must be",
      ],
      [
        { messages: [], taint: { private: false, untrusted: false }, rewritten: "x" },
        "conversation.rewritten must be an array",
      ],
      [
        {
          messages: [{ role: "user", content: [{ type: "tool_result", toolUseId: "a" }] }],
          taint: { private: false, untrusted: false },
        },
        "conversation.messages[0].content[0] must be",
      ],
      [
        {
          messages: [
            {
              role: "user",
              content: [
                { type: "tool_result", toolUseId: "a", isError: true, content: [], mark: "nope" },
              ],
            },
          ],
          taint: { private: false, untrusted: false },
        },
        "conversation.messages[0].content[0] must be",
      ],
    ])("refuses a malformed conversation %#", (value, message) => {
      expect(failure(() => copyConversation(value as unknown as Conversation))).toContain(message);
    });
  });

  describe("checkInput", () => {
    test("accepts text and well-formed messages of every block kind", () => {
      expect(checkInput("")).toBe("");
      const messages: Message[] = [
        { role: "user", content: [{ type: "image", mimeType: "image/png", data: "AA" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "a", name: "t", input: {} }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              toolUseId: "a",
              isError: false,
              content: [{ type: "text", text: "x" }],
            },
            { type: "tool_result", toolUseId: "b", isError: true, content: [], mark: "denied" },
          ],
        },
      ];
      expect(checkInput(messages)).toBe(messages);
    });

    test.each([
      [42, "input must be an array of messages"],
      [[{ role: "tool", content: [] }], "input[0].role"],
      [[{ role: "user", content: "hi" }], "input[0].content must be an array"],
      [[{ role: "user", content: [{ type: "text" }] }], "input[0].content[0] must be"],
      [
        [{ role: "assistant", content: [{ type: "tool_use", id: 1, name: "t" }] }],
        "input[0].content[0]",
      ],
      [[{ role: "user", content: [{ type: "image", data: "AA" }] }], "input[0].content[0]"],
    ])("refuses malformed input %#", (value, message) => {
      expect(failure(() => checkInput(value))).toContain(message);
    });
  });

  describe("checkSomethingToAnswer", () => {
    const assistant: Message = { role: "assistant", content: [{ type: "text", text: "hello" }] };
    const calling: Message = {
      role: "assistant",
      content: [{ type: "tool_use", id: "c1", name: "t", input: {} }],
    };
    const conversation = (...messages: Message[]) => ({
      ...copyConversation(undefined),
      messages,
    });

    test("accepts input that adds a user message, and any input once there is one", () => {
      const passes: [Conversation, string | Message[]][] = [
        [conversation(), "hi"],
        [conversation(), [assistant, user]],
        [conversation(user, assistant), ""],
        [conversation(user, assistant), []],
        // The open call gets a `Cancelled:` result, which is a user message.
        [conversation(calling), ""],
      ];
      for (const [saved, input] of passes) {
        expect(() => checkSomethingToAnswer(saved, input)).not.toThrow();
      }
    });

    test("refuses a run that would send no user message, leaving the conversation as it was", () => {
      const refused: [Conversation, string | Message[]][] = [
        [conversation(), ""],
        [conversation(), []],
        [conversation(), [assistant]],
        [conversation(), [{ role: "user", content: [] }]],
        [conversation(assistant), ""],
      ];
      for (const [saved, input] of refused) {
        const before = JSON.stringify(saved);
        expect(failure(() => checkSomethingToAnswer(saved, input))).toContain(
          "input must be non-empty text or hold a user message",
        );
        expect(JSON.stringify(saved)).toBe(before);
      }
    });
  });
});

describe("the assistant message", () => {
  describe("appendAssistant", () => {
    test("joins a trailing assistant message (a paused turn carried on), replacing it", () => {
      const paused: Message = { role: "assistant", content: [{ type: "text", text: "a" }] };
      const messages: Message[] = [
        { role: "user", content: [{ type: "text", text: "q" }] },
        paused,
      ];
      appendAssistant(messages, { role: "assistant", content: [{ type: "text", text: "b" }] });
      expect(messages).toHaveLength(2);
      expect(messages[1]?.content).toEqual([
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ]);
      expect(paused.content).toHaveLength(1);
      appendUserContent(messages, [{ type: "text", text: "more" }]);
      appendAssistant(messages, { role: "assistant", content: [] });
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    });
  });

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
});
