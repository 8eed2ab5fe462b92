import { describe, expect, test } from "vitest";
import { capabilities, capabilitiesFromAnnotations } from "../../src/declaration/capabilities.ts";

describe("capabilities", () => {
  test("sets every flag not given to false", () => {
    expect(capabilities()).toEqual({
      privateData: false,
      untrustedInput: false,
      externalSend: false,
      destructive: false,
    });
  });

  test("keeps the flags given and ignores values that are not true", () => {
    expect(capabilities({ destructive: true, privateData: "yes" as never })).toEqual({
      privateData: false,
      untrustedInput: false,
      externalSend: false,
      destructive: true,
    });
  });
});

describe("capabilitiesFromAnnotations", () => {
  test("assumes private data for a remote tool with no hints", () => {
    expect(capabilitiesFromAnnotations({})).toEqual({
      privateData: true,
      untrustedInput: false,
      externalSend: false,
      destructive: false,
    });
  });

  test("maps openWorldHint to untrusted input and external send", () => {
    expect(capabilitiesFromAnnotations({ openWorldHint: true })).toMatchObject({
      untrustedInput: true,
      externalSend: true,
    });
  });

  test("maps destructiveHint to destructive", () => {
    expect(capabilitiesFromAnnotations({ destructiveHint: true }).destructive).toBe(true);
  });
});
