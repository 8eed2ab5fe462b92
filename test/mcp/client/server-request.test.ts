// What a server may ask during a call (design.md M6): ping, form and text elicitations,
// sampling, and the replies that go back in MCP's shape.
import { describe, expect, it } from "vitest";
import { toolName } from "../../../src/declaration/tool-name.ts";
import type { ToolInteractionRequest } from "../../../src/interaction/interaction-request.ts";
import { InteractionResponse } from "../../../src/interaction/interaction-response.ts";
import {
  handleServerRequest,
  interactionFromElicitation,
  interactionFromSampling,
  replyToServer,
  SAMPLING_REFUSED,
  samplingReplyFor,
} from "../../../src/mcp/client/server-request.ts";
import { JSON_RPC_ERROR, jsonRpcRequest } from "../../../src/mcp/json-rpc.ts";

const context = { toolName: toolName("t"), callId: undefined };
const both = { formInteractions: true, samplingInteractions: true };
const none = { formInteractions: false, samplingInteractions: false };
const elicit = jsonRpcRequest(1, "elicitation/create", {
  message: "Name?",
  requestedSchema: { type: "object" },
});
const sample = jsonRpcRequest(2, "sampling/createMessage", {
  messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
  maxTokens: 5,
});

describe("handleServerRequest", () => {
  it("answers ping at once", () => {
    expect(handleServerRequest(jsonRpcRequest(9, "ping"), none, context)).toEqual({
      type: "reply",
      message: { jsonrpc: "2.0", id: 9, result: {} },
    });
  });

  it("turns elicitation and sampling into questions when enabled", () => {
    const form = handleServerRequest(elicit, both, context);
    expect(form).toMatchObject({ type: "ask", request: { kind: { type: "form" } } });
    const sampling = handleServerRequest(sample, both, context);
    expect(sampling).toMatchObject({
      type: "ask",
      request: { prompt: "Hi", kind: { type: "sampling", maxTokens: 5 } },
    });
  });

  it("declines an elicitation and refuses sampling with method-not-found when disabled", () => {
    expect(handleServerRequest(elicit, none, context)).toEqual({
      type: "reply",
      message: { jsonrpc: "2.0", id: 1, result: { action: "decline" } },
    });
    expect(handleServerRequest(sample, none, context)).toMatchObject({
      type: "reply",
      message: { id: 2, error: { code: JSON_RPC_ERROR.methodNotFound } },
    });
  });

  it("refuses a sampling request it cannot represent with invalid params", () => {
    const withTools = jsonRpcRequest(3, "sampling/createMessage", { ...sample.params, tools: [] });
    expect(handleServerRequest(withTools, both, context)).toMatchObject({
      type: "reply",
      message: { id: 3, error: { code: JSON_RPC_ERROR.invalidParams } },
    });
  });

  it("answers any other method with method-not-found", () => {
    expect(handleServerRequest(jsonRpcRequest(4, "roots/list"), both, context)).toMatchObject({
      type: "reply",
      message: { id: 4, error: { code: JSON_RPC_ERROR.methodNotFound } },
    });
  });
});

describe("replyToServer", () => {
  const question = (kind: ToolInteractionRequest["kind"]): ToolInteractionRequest => ({
    id: "i",
    toolName: toolName("t"),
    prompt: "",
    kind,
  });

  it("answers a form with an elicitation result and sampling with a result or error", () => {
    const form = question({ type: "form", schema: {}, schemaValidation: true });
    expect(replyToServer(form, 1, InteractionResponse.submit("i", { a: 1 }))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { action: "accept", content: { a: 1 } },
    });
    expect(replyToServer(form, 1, InteractionResponse.decline("i"))).toMatchObject({
      result: { action: "decline" },
    });
    const sampling = question({
      type: "sampling",
      messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
      maxTokens: 5,
    });
    const reply = { role: "assistant", content: { type: "text", text: "Yo" }, model: "m" };
    expect(replyToServer(sampling, 2, InteractionResponse.submit("i", reply))).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: reply,
    });
    expect(replyToServer(sampling, 2, InteractionResponse.decline("i"))).toMatchObject({
      error: { code: -1 },
    });
  });
});

const bookContext = { toolName: toolName("book"), callId: "c1" };
const schema = { type: "object", properties: { city: { type: "string" } } };

describe("interactionFromElicitation", () => {
  it("makes a form elicitation a validated form interaction with a fresh id", () => {
    const a = interactionFromElicitation(
      { message: "Where?", requestedSchema: schema },
      bookContext,
    );
    const b = interactionFromElicitation(
      { mode: "form", message: "Where?", requestedSchema: schema },
      { toolName: toolName("book"), callId: undefined },
    );
    expect(a).toMatchObject({
      toolName: "book",
      callId: "c1",
      prompt: "Where?",
      kind: { type: "form", schema, schemaValidation: true },
    });
    expect(b && "callId" in b).toBe(false);
    expect(a?.id).not.toBe(b?.id);
  });

  // Issue 23, item 4: a schema the server nests 100,000 levels would overflow the stack of
  // whatever shows or checks the question.
  it("returns nothing for a requestedSchema nested deeper than maxSchemaDepth (default 128)", () => {
    const nest = (levels: number) =>
      JSON.parse(`${'{"items":'.repeat(levels)}{}${"}".repeat(levels)}`) as Record<string, unknown>;
    const ask = (levels: number, max?: number) =>
      interactionFromElicitation({ message: "m", requestedSchema: nest(levels) }, bookContext, max);
    expect(ask(100_000)).toBe(undefined);
    expect(ask(128)).toBe(undefined);
    expect(ask(127)?.kind.type).toBe("form");
    expect(ask(10, 8)).toBe(undefined);
  });

  it("returns nothing for URL mode or a missing schema, which the client declines", () => {
    expect(
      interactionFromElicitation({ mode: "url", url: "https://x", message: "m" }, bookContext),
    ).toBe(undefined);
    expect(interactionFromElicitation({ message: "m" }, bookContext)).toBeUndefined();
    expect(
      interactionFromElicitation({ message: "m", requestedSchema: [1] }, bookContext),
    ).toBeUndefined();
  });

  it("uses an empty prompt when the message is not a string", () => {
    expect(
      interactionFromElicitation({ message: 5, requestedSchema: schema }, bookContext)?.prompt,
    ).toBe("");
  });
});

describe("replyToServer for elicitations", () => {
  const form = interactionFromElicitation(
    { message: "Where?", requestedSchema: schema },
    bookContext,
  ) as ToolInteractionRequest;

  it("maps submit, decline and cancel to accept, decline and cancel", () => {
    expect(
      replyToServer(form, 4, { type: "submit", id: form.id, content: { city: "Oslo" } }),
    ).toEqual({ jsonrpc: "2.0", id: 4, result: { action: "accept", content: { city: "Oslo" } } });
    expect(replyToServer(form, 4, { type: "decline", id: form.id })).toMatchObject({
      result: { action: "decline" },
    });
    expect(replyToServer(form, 4, { type: "cancel", id: form.id, reason: "no" })).toMatchObject({
      result: { action: "cancel" },
    });
  });
});

describe("text questions", () => {
  // How a toolwire server (and others) send a tool's text question: a form of one required
  // string field named `text`.
  const textSchema = {
    type: "object",
    properties: { text: { type: "string", title: "Your name?" } },
    required: ["text"],
  };

  it("arrive as text interactions and are answered with a string, sent back as { text }", () => {
    const ask = interactionFromElicitation(
      { mode: "form", message: "Your name?", requestedSchema: textSchema },
      bookContext,
    ) as ToolInteractionRequest;
    expect(ask.kind).toEqual({ type: "text", multiline: false });
    expect(replyToServer(ask, 9, { type: "submit", id: ask.id, content: "Ada" })).toEqual({
      jsonrpc: "2.0",
      id: 9,
      result: { action: "accept", content: { text: "Ada" } },
    });
  });

  it("stay forms when the schema asks for more or other than one required string", () => {
    const variants = [
      { ...textSchema, required: [] },
      { ...textSchema, properties: { text: { type: "number" } } },
      { ...textSchema, properties: { ...textSchema.properties, other: { type: "string" } } },
    ];
    for (const requestedSchema of variants) {
      const ask = interactionFromElicitation({ message: "m", requestedSchema }, bookContext);
      expect(ask?.kind.type).toBe("form");
    }
  });
});

const sumContext = { toolName: toolName("summarise"), callId: "c1" };
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
    const a = interactionFromSampling(params, sumContext);
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
    expect(interactionFromSampling({ messages, maxTokens: 5, tools: [] }, sumContext)).toContain(
      "sampling.tools",
    );
    expect(
      interactionFromSampling({ messages, maxTokens: 5, toolChoice: { mode: "auto" } }, sumContext),
    ).toContain("sampling.tools");
    expect(interactionFromSampling({ messages }, sumContext)).toBe(
      "`maxTokens` must be a positive integer",
    );
    const array = [{ role: "user", content: [messages[0]?.content] }];
    expect(interactionFromSampling({ messages: array, maxTokens: 5 }, sumContext)).toContain(
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
