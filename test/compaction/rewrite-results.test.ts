import { describe, expect, test } from "vitest";
import { rewriteResults } from "../../src/compaction/rewrite-results.ts";
import { assistant, call, ok, results, user } from "./fixtures.ts";

describe("rewriteResults", () => {
  const messages = [
    user("task"),
    assistant(undefined, call("1", "a", {}), call("2", "a", {})),
    results(ok("1", "one"), ok("2", "two")),
  ];

  test("copies only what changes and keeps every block", () => {
    const out = rewriteResults(messages, (r) => (r.toolUseId === "2" ? "TWO" : undefined)) ?? [];
    expect(out[0]).toBe(messages[0]);
    expect(out[1]).toBe(messages[1]);
    expect(out[2]?.content).toEqual([ok("1", "one"), ok("2", "TWO")]);
    expect(messages[2]?.content[1]).toEqual(ok("2", "two"));
  });

  test("returns undefined when the text is unchanged or outside the range", () => {
    expect(
      rewriteResults(messages, (r) => (r.toolUseId === "1" ? "one" : undefined)),
    ).toBeUndefined();
    expect(rewriteResults(messages, () => "x", 0, 2)).toBeUndefined();
  });
});
