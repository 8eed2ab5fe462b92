import { describe, expect, test } from "vitest";
import { interactionCapabilities } from "../../src/declaration/interaction-capabilities.ts";

describe("interactionCapabilities", () => {
  test("declares no interactions by default", () => {
    expect(interactionCapabilities()).toEqual({
      form: false,
      formSchemaValidation: false,
      text: false,
      multilineText: false,
    });
  });

  test("keeps the kinds given", () => {
    expect(interactionCapabilities({ text: true, form: true })).toEqual({
      form: true,
      formSchemaValidation: false,
      text: true,
      multilineText: false,
    });
  });
});
