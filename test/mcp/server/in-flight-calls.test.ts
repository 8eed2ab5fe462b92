import { describe, expect, it } from "vitest";
import { createInFlightCalls } from "../../../src/mcp/server/in-flight-calls.ts";

describe("createInFlightCalls", () => {
  it("cancels a session's call by id, and only that session's", () => {
    const calls = createInFlightCalls();
    const mine = new AbortController();
    const theirs = new AbortController();
    calls.add("s1", 1, mine);
    calls.add("s2", 1, theirs);
    expect(calls.cancel("s1", 1, "stop")).toBe(true);
    expect(mine.signal.reason).toBe("stop");
    expect(theirs.signal.aborted).toBe(false);
  });

  it("keeps string and number ids apart, and ignores unknown ids", () => {
    const calls = createInFlightCalls();
    const numeric = new AbortController();
    calls.add(undefined, 7, numeric);
    expect(calls.cancel(undefined, "7", undefined)).toBe(false);
    expect(calls.cancel(undefined, 99, undefined)).toBe(false);
    expect(numeric.signal.aborted).toBe(false);
  });

  it("ignores an ambiguous stateless id rather than risk another client's call", () => {
    const calls = createInFlightCalls();
    const a = new AbortController();
    const b = new AbortController();
    calls.add(undefined, 1, a);
    const unregisterB = calls.add(undefined, 1, b);
    expect(calls.cancel(undefined, 1, undefined)).toBe(false);
    unregisterB();
    expect(calls.cancel(undefined, 1, undefined)).toBe(true);
    expect(a.signal.aborted).toBe(true);
  });

  it("tracks which sessions have calls running and empties when they finish", () => {
    const calls = createInFlightCalls();
    const unregister = calls.add("s1", 1, new AbortController());
    const second = calls.add("s1", 2, new AbortController());
    expect(calls.running("s1")).toBe(true);
    unregister();
    unregister();
    expect(calls.running("s1")).toBe(true);
    second();
    expect(calls.running("s1")).toBe(false);
    expect(calls.cancel("s1", 1, undefined)).toBe(false);
  });

  it("cancels every call of a deleted session", () => {
    const calls = createInFlightCalls();
    const one = new AbortController();
    const two = new AbortController();
    const other = new AbortController();
    calls.add("s1", 1, one);
    calls.add("s1", "x", two);
    calls.add("s10", 1, other);
    calls.cancelAll("s1");
    expect([one.signal.aborted, two.signal.aborted, other.signal.aborted]).toEqual([
      true,
      true,
      false,
    ]);
  });
});
