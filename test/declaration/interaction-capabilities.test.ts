import { describe, expect, test } from "vitest";
import { interactionCapabilities } from "../../src/declaration/interaction-capabilities.ts";

describe("interactionCapabilities", () => {
  test("declares no interactions by default", () => {
    expect(interactionCapabilities()).toEqual({
      form: false,
      formSchemaValidation: false,
      text: false,
      multilineText: false,
      sampling: false,
      roots: false,
    });
  });

  test("keeps the kinds given", () => {
    expect(interactionCapabilities({ text: true, form: true })).toEqual({
      form: true,
      formSchemaValidation: false,
      text: true,
      multilineText: false,
      sampling: false,
      roots: false,
    });
    expect(interactionCapabilities({ sampling: true }).sampling).toBe(true);
    expect(interactionCapabilities({ roots: true }).roots).toBe(true);
  });

  test("only a literal true turns a kind on (untyped callers cannot smuggle values)", () => {
    const loose = { sampling: "yes", form: 1 } as unknown as Parameters<
      typeof interactionCapabilities
    >[0];
    expect(interactionCapabilities(loose)).toMatchObject({ sampling: false, form: false });
  });
});
