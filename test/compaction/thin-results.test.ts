import { describe, expect, test } from "vitest";
import { thinResults } from "../../src/compaction/thin-results.ts";
import type { Message } from "../../src/models/message.ts";
import { allResults, assistant, call, err, ok, results, textOf, user } from "./fixtures.ts";

function run(turns: number, size: number): Message[] {
  const messages: Message[] = [user("task")];
  for (let i = 0; i < turns; i++) {
    const result = i % 2 ? err(`${i}`, "e".repeat(size)) : ok(`${i}`, `${i}:${"r".repeat(size)}`);
    messages.push(assistant(undefined, call(`${i}`, "read", { path: `${i}` })), results(result));
  }
  return messages;
}

describe("thinResults", () => {
  test("cuts results outside the last 2 × keepRecent messages to 240 characters plus a marker", () => {
    const messages = run(10, 1000);
    const out = thinResults(messages, 3) ?? [];
    const texts = allResults(out).map(textOf);
    // 21 messages, last 6 kept: results at indices 2..14 (7 results) are thinned.
    for (const text of texts.slice(0, 7)) {
      expect(text).toMatch(/^.{240}\n\[thinned: \d+ more characters omitted\]$/s);
    }
    expect(texts[0]).toBe(`0:${"r".repeat(238)}\n[thinned: 762 more characters omitted]`);
    expect(texts.slice(7)).toEqual(allResults(messages.slice(15)).map(textOf));
    expect(allResults(out).map((r) => r.isError)).toEqual(
      allResults(messages).map((r) => r.isError),
    );
  });

  test("never touches tool calls, short results or anything when the window covers all", () => {
    const messages = run(10, 1000);
    const out = thinResults(messages, 3) ?? [];
    out.forEach((message, i) => {
      if (message.role === "assistant") expect(message).toBe(messages[i]);
    });
    expect(thinResults(run(10, 100), 3)).toBeUndefined();
    expect(thinResults(messages, 20)).toBeUndefined();
  });

  test("keeps at least the last 2 messages when keepRecent is 0", () => {
    const messages = run(3, 1000);
    const texts = allResults(thinResults(messages, 0) ?? []).map(textOf);
    expect(texts.slice(0, 2).every((t) => t.includes("[thinned:"))).toBe(true);
    expect(texts[2]).toBe(textOf(allResults(messages)[2]));
  });

  test("is idempotent", () => {
    const once = thinResults(run(10, 1000), 1) ?? [];
    expect(thinResults(once, 1)).toBeUndefined();
  });

  test("never splits a surrogate pair", () => {
    const messages = run(3, 10);
    const text = `${"a".repeat(239)}😀${"b".repeat(300)}`;
    messages[2] = results(ok("0", text));
    const thinned = textOf(allResults(thinResults(messages, 1) ?? [])[0]);
    expect(thinned.startsWith(`${"a".repeat(239)}\n[thinned:`)).toBe(true);
  });

  test("thins every result, the most recent too, when asked to thin all (overflow recovery)", () => {
    const messages = run(3, 1000);
    const out = thinResults(messages, 6, true) ?? [];
    expect(
      allResults(out)
        .map(textOf)
        .every((t) => t.includes("[thinned:")),
    ).toBe(true);
    expect(thinResults(out, 6, true)).toBeUndefined();
    expect(thinResults(run(3, 100), 0, true)).toBeUndefined();
  });
});
