import { describe, expect, test } from "vitest";
import { openAIBody, openAIMessages } from "../../src/models/openai-compatible.ts";

describe("openAIMessages", () => {
  test("sends tool results as tool messages, then a user message with tool images and the user's text", () => {
    const messages = openAIMessages({
      tools: [],
      messages: [
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "a", name: "shot", input: "{bad" }],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              toolUseId: "a",
              content: [
                { type: "image", mimeType: "image/png", data: "P" },
                { type: "text", text: "ok" },
              ],
              isError: false,
            },
            { type: "text", text: "now what?" },
          ],
        },
      ],
    });
    expect(messages).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", type: "function", function: { name: "shot", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "a", content: "ok" },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "data:image/png;base64,P" } },
          { type: "text", text: "now what?" },
        ],
      },
    ]);
  });

  test("sends plain text as a string and an empty assistant turn as empty text", () => {
    expect(
      openAIMessages({
        tools: [],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "a" },
              { type: "text", text: "b" },
            ],
          },
          { role: "assistant", content: [] },
        ],
      }),
    ).toEqual([
      { role: "user", content: "a\nb" },
      { role: "assistant", content: "" },
    ]);
  });
});

describe("openAIBody", () => {
  test("leaves out empty tools and max_tokens unless set, the request's bound winning", () => {
    const body = openAIBody({ messages: [], tools: [] }, {}, "m", {
      field: "max_tokens",
      maxTokens: undefined,
    });
    expect(body).toEqual({
      model: "m",
      messages: [],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(
      openAIBody({ messages: [], tools: [] }, {}, "m", { field: "max_tokens", maxTokens: 100 })
        .max_tokens,
    ).toBe(100);
    expect(
      openAIBody({ messages: [], tools: [], maxTokens: 7 }, {}, "m", {
        field: "max_tokens",
        maxTokens: 100,
      }).max_tokens,
    ).toBe(7);
  });

  test("sends tool_choice none with the tools, and nothing for auto or without tools", () => {
    const tools = [{ name: "echo", inputSchema: { type: "object" } }];
    expect(
      openAIBody({ messages: [], tools, toolChoice: "none" }, {}, "m", {
        field: "max_tokens",
        maxTokens: undefined,
      }),
    ).toMatchObject({
      tool_choice: "none",
      tools: [{ type: "function", function: { name: "echo" } }],
    });
    expect(
      openAIBody({ messages: [], tools, toolChoice: "auto" }, {}, "m", {
        field: "max_tokens",
        maxTokens: undefined,
      }),
    ).not.toHaveProperty("tool_choice");
    expect(
      openAIBody({ messages: [], tools: [], toolChoice: "none" }, {}, "m", {
        field: "max_tokens",
        maxTokens: undefined,
      }),
    ).not.toHaveProperty("tool_choice");
  });
});
