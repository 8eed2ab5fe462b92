import { describe, expect, it } from "vitest";
import { isJsonObject } from "../../src/schema/is-json-object.ts";

describe("isJsonObject", () => {
  it("accepts JSON objects only", () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject({ a: 1 })).toBe(true);
    for (const value of [null, undefined, [], "x", 1, true]) {
      expect(isJsonObject(value)).toBe(false);
    }
  });
});
