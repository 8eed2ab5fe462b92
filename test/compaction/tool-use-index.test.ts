import { describe, expect, test } from "vitest";
import { toolUseIndex } from "../../src/compaction/tool-use-index.ts";
import { assistant, call, user } from "./fixtures.ts";

describe("toolUseIndex", () => {
  test("maps each call id to its first tool_use block", () => {
    const first = call("1", "a", { n: 1 });
    const index = toolUseIndex([
      user("t"),
      assistant(undefined, first),
      assistant(undefined, call("1", "b", {})),
    ]);
    expect(index.get("1")).toBe(first);
    expect(index.size).toBe(1);
  });
});
