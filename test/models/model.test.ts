import { describe, expect, test } from "vitest";
import { anthropicBody } from "../../src/models/anthropic-request.ts";
import { FINISH_REASONS, type ModelRequest, TOOL_CHOICES } from "../../src/models/model.ts";
import { openAIBody } from "../../src/models/openai-request.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { collect } from "../support/model-collect.ts";

const request: ModelRequest = {
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [{ name: "echo", inputSchema: { type: "object" } }],
};

describe("FINISH_REASONS", () => {
  test("lists the four reasons a model stream can finish with", async () => {
    expect(FINISH_REASONS).toEqual(["stop", "tool_calls", "length", "error"]);
    const { events } = await collect(scriptedModel([{ text: "x" }]).stream(request));
    const finish = events.at(-1);
    expect(finish?.type === "finish" && FINISH_REASONS.includes(finish.reason)).toBe(true);
  });
});

describe("TOOL_CHOICES", () => {
  test("lists auto and none; both adapters send none and leave auto to the provider default", () => {
    expect(TOOL_CHOICES).toEqual(["auto", "none"]);
    const sent = TOOL_CHOICES.map((toolChoice) => ({
      anthropic: anthropicBody({ ...request, toolChoice }, "m", undefined).tool_choice,
      openai: openAIBody({ ...request, toolChoice }, "m", undefined).tool_choice,
    }));
    expect(sent).toEqual([
      { anthropic: undefined, openai: undefined },
      { anthropic: { type: "none" }, openai: "none" },
    ]);
  });
});
