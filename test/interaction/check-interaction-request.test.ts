import { describe, expect, test } from "vitest";
import { interactionCapabilities } from "../../src/declaration/interaction-capabilities.ts";
import { checkInteractionRequest } from "../../src/interaction/check-interaction-request.ts";

const text = { type: "text", multiline: false } as const;
const multiline = { type: "text", multiline: true } as const;
const form = { type: "form", schema: { type: "object" }, schemaValidation: false } as const;

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
