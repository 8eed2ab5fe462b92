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
  test("untrusted annotations assume every capability, whatever they say", () => {
    const all = { privateData: true, untrustedInput: true, externalSend: true, destructive: true };
    expect(capabilitiesFromAnnotations({})).toEqual(all);
    expect(
      capabilitiesFromAnnotations({
        readOnlyHint: true,
        openWorldHint: false,
        destructiveHint: false,
      }),
    ).toEqual(all);
  });

  test("trusted annotations with no hints take MCP's defaults: destructive and open-world", () => {
    expect(capabilitiesFromAnnotations({}, { trusted: true })).toEqual({
      privateData: true,
      untrustedInput: true,
      externalSend: true,
      destructive: true,
    });
    expect(
      capabilitiesFromAnnotations(
        { openWorldHint: false, destructiveHint: false },
        { trusted: true },
      ),
    ).toEqual({
      privateData: true,
      untrustedInput: false,
      externalSend: false,
      destructive: false,
    });
    expect(capabilitiesFromAnnotations({ readOnlyHint: true }, { trusted: true })).toMatchObject({
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
