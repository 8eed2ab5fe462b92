import { describe, expect, it } from "vitest";
import { toolName } from "../../../src/declaration/tool-name.ts";
import { InteractionResponse } from "../../../src/interaction/interaction-response.ts";
import {
  interactionFromSampling,
  SAMPLING_REFUSED,
  samplingReplyFor,
} from "../../../src/mcp/client/sampling.ts";

const context = { toolName: toolName("summarise"), callId: "c1" };
const messages = [
  { role: "user", content: { type: "text", text: "Summarise the report" } },
  { role: "user", content: { type: "image", mimeType: "image/png", data: "AA==" } },
];
const reply = { role: "assistant", content: { type: "text", text: "Short." }, model: "m" };

describe("interactionFromSampling", () => {
  it("makes a sampling request a sampling interaction with a fresh id and a readable prompt", () => {
    const params = {
      messages,
      maxTokens: 40,
      temperature: 0.5,
      modelPreferences: { hints: [{ name: "claude" }] },
      includeContext: "none",
      metadata: { trace: "t" },
    };
    const a = interactionFromSampling(params, context);
    const b = interactionFromSampling(params, {
      toolName: toolName("summarise"),
      callId: undefined,
    });
    expect(a).toEqual({
      id: expect.any(String),
      toolName: "summarise",
      callId: "c1",
      prompt: "Summarise the report",
      kind: { type: "sampling", messages, maxTokens: 40, temperature: 0.5 },
    });
    expect(typeof b === "object" && "callId" in b).toBe(false);
    expect(typeof a === "object" && typeof b === "object" && a.id !== b.id).toBe(true);
  });

  it("refuses tool use, which toolwire does not declare, and malformed requests", () => {
    expect(interactionFromSampling({ messages, maxTokens: 5, tools: [] }, context)).toContain(
      "sampling.tools",
    );
    expect(
      interactionFromSampling({ messages, maxTokens: 5, toolChoice: { mode: "auto" } }, context),
    ).toContain("sampling.tools");
    expect(interactionFromSampling({ messages }, context)).toBe(
      "`maxTokens` must be a positive integer",
    );
    const array = [{ role: "user", content: [messages[0]?.content] }];
    expect(interactionFromSampling({ messages: array, maxTokens: 5 }, context)).toContain(
      "`messages[0]`",
    );
  });
});

describe("samplingReplyFor", () => {
  it("answers a submit with the model's reply, stripped to the result's fields", () => {
    const submit = InteractionResponse.submit("i", { ...reply, stopReason: "endTurn", x: 1 });
    expect(samplingReplyFor(7, submit)).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { ...reply, stopReason: "endTurn" },
    });
  });

  it("refuses with error -1 on decline (with the reason) and on cancel", () => {
    expect(samplingReplyFor("s", InteractionResponse.decline("i"))).toEqual({
      jsonrpc: "2.0",
      id: "s",
      error: { code: SAMPLING_REFUSED, message: "User rejected sampling request" },
    });
    expect(samplingReplyFor("s", InteractionResponse.decline("i", "too costly"))).toMatchObject({
      error: { code: -1, message: "User rejected sampling request: too costly" },
    });
    expect(samplingReplyFor("s", InteractionResponse.cancel("i"))).toMatchObject({
      error: { code: -1, message: "User cancelled the tool call" },
    });
  });
});
