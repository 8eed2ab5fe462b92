import { describe, expect, test } from "vitest";
import { anthropicBody, anthropicMessage } from "../../src/models/anthropic.ts";

describe("anthropicMessage", () => {
  test("sends arguments kept as raw text as an empty input object", () => {
    expect(
      anthropicMessage({
        role: "assistant",
        content: [{ type: "tool_use", id: "t", name: "f", input: "{bad" }],
      }),
    ).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "t", name: "f", input: {} }],
    });
  });

  test("renders non-image tool content as text, drops empty text and omits empty result content", () => {
    expect(
      anthropicMessage({
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "a",
            content: [
              { type: "json", value: [1] },
              { type: "text", text: "" },
            ],
            isError: false,
          },
          { type: "tool_result", toolUseId: "b", content: [], isError: false },
        ],
      }),
    ).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "a", content: [{ type: "text", text: "[1]" }] },
        { type: "tool_result", tool_use_id: "b" },
      ],
    });
  });

  test("puts a placeholder in a message left without content", () => {
    expect(anthropicMessage({ role: "assistant", content: [{ type: "text", text: " " }] })).toEqual(
      {
        role: "assistant",
        content: [{ type: "text", text: "(empty)" }],
      },
    );
  });
});

describe("anthropicBody", () => {
  test("always sets max_tokens, the request's bound winning over the adapter's", () => {
    expect(anthropicBody({ messages: [], tools: [] }, {}, { model: "m" })).toEqual({
      model: "m",
      max_tokens: 4096,
      messages: [],
      stream: true,
    });
    expect(
      anthropicBody({ messages: [], tools: [] }, {}, { model: "m", maxTokens: 100 }).max_tokens,
    ).toBe(100);
    expect(
      anthropicBody({ messages: [], tools: [], maxTokens: 9 }, {}, { model: "m", maxTokens: 100 })
        .max_tokens,
    ).toBe(9);
  });

  test("forbids tool calls with tool_choice none, sending the tools the transcript refers to", () => {
    const tools = [{ name: "echo", inputSchema: { type: "object" } }];
    const body = anthropicBody({ messages: [], tools, toolChoice: "none" }, {}, { model: "m" });
    expect(body.tool_choice).toEqual({ type: "none" });
    expect(body.tools).toEqual([{ name: "echo", input_schema: { type: "object" } }]);
    expect(
      anthropicBody({ messages: [], tools, toolChoice: "auto" }, {}, { model: "m", maxTokens: 1 }),
    ).not.toHaveProperty("tool_choice");
    expect(
      anthropicBody(
        { messages: [], tools: [], toolChoice: "none" },
        {},
        { model: "m", maxTokens: 1 },
      ),
    ).not.toHaveProperty("tool_choice");
  });

  test("trims trailing whitespace off a final assistant message, which the API rejects", () => {
    const partial = {
      role: "assistant" as const,
      content: [{ type: "text" as const, text: "Half an \n" }],
    };
    const user = { role: "user" as const, content: [{ type: "text" as const, text: "go " }] };
    const body = anthropicBody({ messages: [user, partial], tools: [] }, {}, { model: "m" });
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "go " }] },
      { role: "assistant", content: [{ type: "text", text: "Half an" }] },
    ]);
    expect(partial.content[0]?.text).toBe("Half an \n");
    const earlier = anthropicBody({ messages: [partial, user], tools: [] }, {}, { model: "m" });
    expect((earlier.messages as { content: { text: string }[] }[])[0]?.content[0]?.text).toBe(
      "Half an \n",
    );
  });
});
