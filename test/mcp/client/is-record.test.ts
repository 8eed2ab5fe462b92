import { describe, expect, it } from "vitest";
import { isRecord } from "../../../src/mcp/client/is-record.ts";

describe("isRecord", () => {
  it("accepts JSON objects only", () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord({ a: 1 })).toBe(true);
    for (const value of [null, undefined, [], "x", 1, true]) expect(isRecord(value)).toBe(false);
  });
});
