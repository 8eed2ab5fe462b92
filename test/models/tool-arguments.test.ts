import { describe, expect, test } from "vitest";
import { toolArguments } from "../../src/models/tool-arguments.ts";

describe("toolArguments", () => {
  test("parses JSON, treats empty text as no arguments and keeps invalid JSON as text", () => {
    expect(toolArguments('{"a":[1,"☕"]}')).toEqual({ a: [1, "☕"] });
    expect(toolArguments("  ")).toEqual({});
    expect(toolArguments('{"a":')).toBe('{"a":');
  });
});
