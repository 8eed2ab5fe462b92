import { describe, expect, test } from "vitest";
import { toolName } from "../../src/declaration/tool-name.ts";
import {
  checkInteractionResponse as checkWith,
  noPendingInteraction,
} from "../../src/interaction/check-interaction-response.ts";
import type { ToolInteractionRequest } from "../../src/interaction/interaction-request.ts";
import {
  InteractionResponse,
  type ToolInteractionResponse,
} from "../../src/interaction/interaction-response.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { caught } from "../support/caught.ts";

const checkInteractionResponse = (
  request: ToolInteractionRequest,
  response: ToolInteractionResponse,
) => checkWith(request, response, jsonSchemaValidator);

const text: ToolInteractionRequest = {
  id: "i-1",
  toolName: toolName("ask"),
  prompt: "City?",
  kind: { type: "text", multiline: false },
};

const schema = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
};

function form(schemaValidation: boolean): ToolInteractionRequest {
  return { ...text, kind: { type: "form", schema, schemaValidation } };
}

describe("checkInteractionResponse", () => {
  test("accepts a text reply that echoes the id", async () => {
    await expect(
      checkInteractionResponse(text, InteractionResponse.submit("i-1", "Chicago")),
    ).resolves.toBeUndefined();
  });

  test("rejects a reply with a different id with invalid_interaction", async () => {
    const error = await caught(
      checkInteractionResponse(text, InteractionResponse.submit("i-2", "Chicago")),
    );
    expect(error.data).toMatchObject({ type: "invalid_interaction", id: "i-2" });
  });

  test.each([
    ["a number", 7],
    ["an object", { city: "Chicago" }],
    ["null", null],
  ])("rejects a text reply that is %s", async (_label, content) => {
    const error = await caught(
      checkInteractionResponse(text, InteractionResponse.submit("i-1", content)),
    );
    expect(error.type).toBe("invalid_interaction");
  });

  test.each([
    ["a string", "Chicago"],
    ["an array", [1]],
    ["null", null],
  ])("rejects a form reply that is %s", async (_label, content) => {
    const error = await caught(
      checkInteractionResponse(form(false), InteractionResponse.submit("i-1", content)),
    );
    expect(error.type).toBe("invalid_interaction");
  });

  test("validates a form reply against its schema when schemaValidation is set", async () => {
    const error = await caught(
      checkInteractionResponse(form(true), InteractionResponse.submit("i-1", { city: 3 })),
    );
    expect(error.type).toBe("invalid_interaction");
    expect(error.message).toContain("/city");
    await expect(
      checkInteractionResponse(form(true), InteractionResponse.submit("i-1", { city: "Oslo" })),
    ).resolves.toBeUndefined();
  });

  test("does not validate a form reply against its schema when schemaValidation is off", async () => {
    await expect(
      checkInteractionResponse(form(false), InteractionResponse.submit("i-1", { city: 3 })),
    ).resolves.toBeUndefined();
  });

  test("accepts decline and cancel with the pending id", async () => {
    await expect(checkInteractionResponse(text, InteractionResponse.decline("i-1"))).resolves.toBe(
      undefined,
    );
    await expect(checkInteractionResponse(text, InteractionResponse.cancel("i-1"))).resolves.toBe(
      undefined,
    );
  });

  test.each([
    ["null", null],
    ["a string", "submit"],
    ["an unknown reply type", { type: "accept", id: "i-1" }],
  ])("rejects a malformed reply (%s) with invalid_interaction", async (_label, reply) => {
    const error = await caught(
      checkInteractionResponse(text, reply as unknown as ToolInteractionResponse),
    );
    expect(error.type).toBe("invalid_interaction");
  });
});

describe("checkInteractionResponse without a JSON Schema validator", () => {
  test("leaves the form's schema to the asker but still checks the reply's shape", async () => {
    await expect(
      checkWith(form(true), InteractionResponse.submit("i-1", { city: 3 }), undefined),
    ).resolves.toBeUndefined();
    const error = await caught(
      checkWith(form(true), InteractionResponse.submit("i-1", "Oslo"), undefined),
    );
    expect(error.type).toBe("invalid_interaction");
  });
});

describe("checkInteractionResponse with a request schema it cannot apply", () => {
  test("fails with invalid_configuration, since the asker is at fault, not the reply", async () => {
    const broken: ToolInteractionRequest = {
      id: "i-1",
      toolName: toolName("ask"),
      prompt: "Who?",
      kind: { type: "form", schema: { $ref: "#/nowhere" }, schemaValidation: true },
    };
    await expect(
      checkInteractionResponse(broken, InteractionResponse.submit("i-1", { a: 1 })),
    ).rejects.toMatchObject({ type: "invalid_configuration" });
  });
});

describe("checkInteractionResponse for sampling", () => {
  const sampling: ToolInteractionRequest = {
    ...text,
    kind: {
      type: "sampling",
      messages: [{ role: "user", content: { type: "text", text: "City?" } }],
      maxTokens: 10,
    },
  };
  const reply = { role: "assistant", content: { type: "text", text: "Oslo" }, model: "m" };

  test("accepts a SamplingResult, and decline or cancel", async () => {
    for (const response of [
      InteractionResponse.submit("i-1", reply),
      InteractionResponse.submit("i-1", { ...reply, stopReason: "endTurn" }),
      InteractionResponse.decline("i-1", "not now"),
      InteractionResponse.cancel("i-1"),
    ]) {
      await expect(checkInteractionResponse(sampling, response)).resolves.toBeUndefined();
    }
  });

  test.each([
    ["a plain string", "Oslo", "is not an object"],
    ["a form-style object", { city: "Oslo" }, "`role` must be `assistant`"],
    ["no model", { role: "assistant", content: reply.content }, "`model` must be a string"],
    ["string content", { ...reply, content: "Oslo" }, "`content` must be one"],
  ])("rejects %s with invalid_interaction naming the problem", async (_label, content, why) => {
    const error = await caught(
      checkInteractionResponse(sampling, InteractionResponse.submit("i-1", content)),
    );
    expect(error.type).toBe("invalid_interaction");
    expect(error.message).toContain("a sampling reply is malformed");
    expect(error.message).toContain(why);
  });
});

describe("noPendingInteraction", () => {
  test("names the handler's state and keeps the reply's id", () => {
    const error = noPendingInteraction(InteractionResponse.decline("i-9"), "running");
    expect(error.data).toMatchObject({ type: "invalid_interaction", id: "i-9" });
    expect(error.message).toContain("the handler is running");
  });

  test("copes with a reply that is not an object", () => {
    expect(noPendingInteraction(null, "finished").data).toMatchObject({ id: "undefined" });
  });
});
