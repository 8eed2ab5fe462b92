import { describe, expect, test } from "vitest";
import { createLoopGuard } from "../../src/compaction/loop-guard.ts";

const read = (path: string, result = "same") => ({ name: "read", arguments: { path }, result });

describe("createLoopGuard", () => {
  test("stays dormant until armed", () => {
    const guard = createLoopGuard();
    expect(guard.armed).toBe(false);
    expect(guard.recordTurn([read("a")])).toBe(false);
    expect(guard.recordTurn([read("a")])).toBe(false);
    guard.arm();
    expect(guard.armed).toBe(true);
  });

  test("detects an identical call, arguments and result in a later turn", () => {
    const guard = createLoopGuard();
    guard.arm();
    expect(guard.recordTurn([read("a")])).toBe(false);
    expect(guard.recordTurn([{ name: "read", arguments: { path: "a" }, result: "same" }])).toBe(
      true,
    );
  });

  test("compares canonical arguments, whatever their key order", () => {
    const guard = createLoopGuard();
    guard.arm();
    guard.recordTurn([{ name: "s", arguments: { a: 1, b: 2 }, result: "r" }]);
    expect(guard.recordTurn([{ name: "s", arguments: { b: 2, a: 1 }, result: "r" }])).toBe(true);
  });

  test("looks back only at the last 3 fingerprints from earlier turns", () => {
    const guard = createLoopGuard();
    guard.arm();
    guard.recordTurn([read("a")]);
    guard.recordTurn([read("b"), read("c")]);
    guard.recordTurn([read("d")]);
    expect(guard.recordTurn([read("a")])).toBe(false);
    expect(guard.recordTurn([read("c")])).toBe(true);
  });

  test("does not trip on duplicates within one batch or on polling", () => {
    const guard = createLoopGuard();
    guard.arm();
    expect(guard.recordTurn([read("a"), read("a"), read("a")])).toBe(false);
    const poll = createLoopGuard();
    poll.arm();
    for (let i = 0; i < 5; i++) expect(poll.recordTurn([read("status", `${i}%`)])).toBe(false);
  });
});
