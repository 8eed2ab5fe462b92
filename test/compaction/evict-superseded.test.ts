import { describe, expect, test } from "vitest";
import { evictSuperseded } from "../../src/compaction/evict-superseded.ts";
import { toolUseIndex } from "../../src/compaction/tool-use-index.ts";
import type { Message } from "../../src/models/message.ts";
import { allResults, assistant, call, err, ok, results, textOf, user } from "./fixtures.ts";

function evict(messages: Message[]) {
  return evictSuperseded(messages, toolUseIndex(messages));
}

describe("evictSuperseded", () => {
  test("keeps only the last successful result per path, shared across tools", () => {
    const messages = [
      user("task"),
      assistant(undefined, call("1", "read_file", { path: "a.ts" })),
      results(ok("1", "old a")),
      assistant(undefined, call("2", "write_file", { path: "a.ts", content: "new" })),
      results(ok("2", "wrote a")),
    ];
    const out = evict(messages) ?? [];
    const [first, second] = allResults(out).map(textOf);
    expect(first).toBe(
      "[stale result: a later write_file call on the same target superseded this; call read_file again if you need it]",
    );
    expect(second).toBe("wrote a");
  });

  test("treats different offsets and limits of one path as different targets", () => {
    const messages = [
      user("task"),
      assistant(
        undefined,
        call("1", "read_file", { path: "a.ts", offset: 0, limit: 10 }),
        call("2", "read_file", { path: "a.ts", offset: 10, limit: 10 }),
      ),
      results(ok("1", "lines 0-9"), ok("2", "lines 10-19")),
      assistant(undefined, call("3", "read_file", { path: "a.ts", limit: 10 })),
      results(ok("3", "lines 0-9 again")),
    ];
    const texts = allResults(evict(messages) ?? []).map(textOf);
    expect(texts[0]).toMatch(/^\[stale result/);
    expect(texts.slice(1)).toEqual(["lines 10-19", "lines 0-9 again"]);
  });

  test("keys calls without a path by tool name and canonical arguments", () => {
    const messages = [
      user("task"),
      assistant(undefined, call("1", "search", { q: "x", n: 1 }), call("2", "search", { q: "y" })),
      results(ok("1", "x hits"), ok("2", "y hits")),
      assistant(undefined, call("3", "search", { n: 1, q: "x" }), call("4", "find", { q: "y" })),
      results(ok("3", "x hits again"), ok("4", "found y")),
    ];
    const texts = allResults(evict(messages) ?? []).map(textOf);
    expect(texts[0]).toMatch(/^\[stale result: a later search call/);
    expect(texts.slice(1)).toEqual(["y hits", "x hits again", "found y"]);
  });

  test("never evicts an error and never lets one supersede", () => {
    const messages = [
      user("task"),
      assistant(undefined, call("1", "read_file", { path: "a" })),
      results(ok("1", "content")),
      assistant(undefined, call("2", "read_file", { path: "a" })),
      results(err("2", "EACCES")),
      assistant(undefined, call("3", "read_file", { path: "a" })),
      results(err("3", "EACCES")),
    ];
    expect(evict(messages)).toBeUndefined();
  });

  test("changes nothing on a second run and does not mutate its input", () => {
    const messages = [
      user("task"),
      assistant(undefined, call("1", "read_file", { path: "a" })),
      results(ok("1", "v1")),
      assistant(undefined, call("2", "read_file", { path: "a" })),
      results(ok("2", "v2")),
    ];
    const snapshot = structuredClone(messages);
    const once = evict(messages) ?? [];
    expect(messages).toEqual(snapshot);
    expect(once).toHaveLength(messages.length);
    expect(once[1]).toBe(messages[1]);
    expect(evict(once)).toBeUndefined();
  });
});
