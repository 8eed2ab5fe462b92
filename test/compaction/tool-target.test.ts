import { describe, expect, test } from "vitest";
import { toolTarget } from "../../src/compaction/tool-target.ts";

describe("toolTarget", () => {
  test("keys a string path with offset and limit (0 when absent), across tools", () => {
    expect(toolTarget("read", { path: "a" })).toBe(
      toolTarget("write", { path: "a", content: "x" }),
    );
    expect(toolTarget("read", { path: "a" })).toBe(
      toolTarget("read", { path: "a", offset: 0, limit: 0 }),
    );
    expect(toolTarget("read", { path: "a", offset: 5 })).not.toBe(
      toolTarget("read", { path: "a" }),
    );
  });

  test("otherwise keys by name and canonical arguments", () => {
    expect(toolTarget("s", { a: 1, b: 2 })).toBe(toolTarget("s", { b: 2, a: 1 }));
    expect(toolTarget("s", { a: 1 })).not.toBe(toolTarget("t", { a: 1 }));
    expect(toolTarget("s", { path: 3 })).not.toBe(toolTarget("t", { path: 3 }));
  });
});
