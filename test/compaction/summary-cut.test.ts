import { describe, expect, test } from "vitest";
import { summaryCut } from "../../src/compaction/summary-cut.ts";
import type { Message } from "../../src/models/message.ts";
import { assistant, user } from "./fixtures.ts";

function alternating(n: number): Message[] {
  return Array.from({ length: n }, (_, i) => (i % 2 ? assistant(`${i}`) : user(`${i}`)));
}

describe("summaryCut", () => {
  test("is the first assistant message at or after len − keepRecent", () => {
    expect(summaryCut(alternating(20), 6)).toBe(15); // target 14 is a user message
    expect(summaryCut(alternating(21), 6)).toBe(15);
  });

  test("uses max(1, keepRecent), so keepRecent 0 keeps the last message", () => {
    expect(summaryCut(alternating(20), 0)).toBe(19);
    expect(summaryCut(alternating(21), 0)).toBeUndefined();
  });

  test("is undefined when the cut would be at 4 or earlier, or no assistant follows", () => {
    expect(summaryCut(alternating(10), 6)).toBe(5);
    expect(summaryCut(alternating(9), 6)).toBeUndefined(); // target 3 is an assistant: too early
    expect(summaryCut(alternating(5), 1)).toBeUndefined();
    const users = [user("a"), assistant("b"), ...Array.from({ length: 10 }, () => user("c"))];
    expect(summaryCut(users, 6)).toBeUndefined();
  });
});
