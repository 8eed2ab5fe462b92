import { describe, expect, test } from "vitest";
import { jsonPointer } from "../../src/schema/json-pointer.ts";

describe("jsonPointer", () => {
  test("returns the empty pointer for the value itself", () => {
    expect(jsonPointer([])).toBe("");
  });

  test("joins keys and indexes outermost first", () => {
    expect(jsonPointer(["items", 0, "name"])).toBe("/items/0/name");
  });

  test("escapes ~ and / as RFC 6901 requires", () => {
    expect(jsonPointer(["a/b", "c~d", "~/"])).toBe("/a~1b/c~0d/~0~1");
  });
});
