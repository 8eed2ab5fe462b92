import { describe, expect, test } from "vitest";
import { interactionCapabilities } from "../../src/declaration/interaction-capabilities.ts";
import { checkInteractionRequest } from "../../src/interaction/check-interaction-request.ts";

const text = { type: "text", multiline: false } as const;
const multiline = { type: "text", multiline: true } as const;
const form = { type: "form", schema: { type: "object" }, schemaValidation: false } as const;
const sampling = {
  type: "sampling",
  messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
  maxTokens: 10,
} as const;

describe("checkInteractionRequest", () => {
  test("allows each kind its capability declares", () => {
    expect(checkInteractionRequest("t", interactionCapabilities({ text: true }), text)).toBe(
      undefined,
    );
    const many = interactionCapabilities({ multilineText: true });
    expect(checkInteractionRequest("t", many, multiline)).toBe(undefined);
    expect(checkInteractionRequest("t", interactionCapabilities({ form: true }), form)).toBe(
      undefined,
    );
    const samples = interactionCapabilities({ sampling: true });
    expect(checkInteractionRequest("t", samples, sampling as never)).toBe(undefined);
  });

  test("does not let other kinds stand in for sampling, nor sampling for them", () => {
    const all = interactionCapabilities({ text: true, multilineText: true, form: true });
    expect(checkInteractionRequest("t", all, sampling as never)?.data).toEqual({
      type: "undeclared_interaction",
      tool: "t",
      kind: "sampling",
    });
    const samples = interactionCapabilities({ sampling: true });
    expect(checkInteractionRequest("t", samples, text)?.type).toBe("undeclared_interaction");
    expect(checkInteractionRequest("t", samples, form)?.type).toBe("undeclared_interaction");
  });

  test("refuses a malformed sampling request with invalid_configuration naming the problem", () => {
    const samples = interactionCapabilities({ sampling: true });
    const error = checkInteractionRequest("t", samples, { ...sampling, maxTokens: 0 } as never);
    expect(error?.data).toEqual({
      type: "invalid_configuration",
      message: "t asked for sampling, but `maxTokens` must be a positive integer",
    });
    const none = checkInteractionRequest("t", samples, { ...sampling, messages: [] } as never);
    expect(none?.message).toContain("`messages` must be a non-empty array");
  });

  test("lets multilineText cover a single line, but not text cover several", () => {
    const many = interactionCapabilities({ multilineText: true });
    expect(checkInteractionRequest("t", many, text)).toBe(undefined);
    const one = interactionCapabilities({ text: true });
    expect(checkInteractionRequest("t", one, multiline)?.data).toEqual({
      type: "undeclared_interaction",
      tool: "t",
      kind: "multiline_text",
    });
  });

  test.each([
    ["text", text],
    ["multiline_text", multiline],
    ["form", form],
  ])("names an undeclared %s request", (kind, request) => {
    const error = checkInteractionRequest("t", interactionCapabilities(), request);
    expect(error?.data).toEqual({ type: "undeclared_interaction", tool: "t", kind });
  });

  test.each([
    ["no schema", undefined],
    ["a string", "object"],
    ["an array", []],
    ["null", null],
  ])("refuses a form with %s as its schema with invalid_configuration", (_l, schema) => {
    const error = checkInteractionRequest("t", interactionCapabilities({ form: true }), {
      ...form,
      schema: schema as never,
    });
    expect(error?.type).toBe("invalid_configuration");
  });
});
