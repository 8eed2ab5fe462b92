import { describe, expect, it } from "vitest";
import { toolName } from "../../../src/declaration/tool-name.ts";
import type { ToolInteractionRequest } from "../../../src/interaction/interaction-request.ts";
import { InteractionResponse } from "../../../src/interaction/interaction-response.ts";
import { handleServerRequest, replyToServer } from "../../../src/mcp/client/server-request.ts";
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
