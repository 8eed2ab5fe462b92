import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  canonicalJson,
  collapseFailures,
  evictSuperseded,
  fitUnread,
  isCompactionMarker,
  repeatMarker,
  resultText,
  rewriteResults,
  staleMarker,
  thinRead,
  thinResults,
  thinText,
  toolTarget,
  toolUseIndex,
  unreadStart,
} from "../../src/compaction/lossless.ts";
import { estimateTokens } from "../../src/compaction/pressure.ts";
import type { Message } from "../../src/models/message.ts";
import {
  allResults,
  assistant,
  call,
  err,
  ok,
  results,
  textOf,
  user,
  validTranscript,
} from "./fixtures.ts";

describe("canonicalJson", () => {
  test("sorts keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  test("drops undefined members like JSON.stringify and never returns undefined", () => {
    expect(canonicalJson({ a: undefined, b: [undefined] })).toBe('{"b":[null]}');
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson("x")).toBe('"x"');
  });
});

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

describe("resultText", () => {
  test("joins every item's text rendering", () => {
    expect(
      resultText({
        type: "tool_result",
        toolUseId: "1",
        isError: false,
        content: [
          { type: "text", text: "a" },
          { type: "json", value: [1] },
          { type: "image", mimeType: "image/png", data: "AA" },
        ],
      }),
    ).toBe("a\n[1]\n[image: image/png]");
  });
});

describe("result markers", () => {
  test("recognises its own markers and nothing else", () => {
    expect(isCompactionMarker(staleMarker("read", "write"))).toBe(true);
    expect(isCompactionMarker(repeatMarker())).toBe(true);
    expect(isCompactionMarker(thinText("x".repeat(500)))).toBe(true);
    expect(isCompactionMarker("[stale] text")).toBe(false);
  });

  test("thins to 240 characters plus the omitted count", () => {
    expect(thinText("a".repeat(300))).toBe(
      `${"a".repeat(240)}\n[thinned: 60 more characters omitted]`,
    );
  });
});

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

function collapse(messages: Message[]) {
  return collapseFailures(messages, toolUseIndex(messages));
}

function failing(
  texts: string[],
  input: (i: number) => unknown = () => ({ path: "a" }),
): Message[] {
  const messages: Message[] = [user("task")];
  texts.forEach((text, i) => {
    messages.push(assistant(undefined, call(`${i}`, "run", input(i))), results(err(`${i}`, text)));
  });
  return messages;
}

describe("collapseFailures", () => {
  test("keeps the newest of identical failures on one target", () => {
    const out = collapse(failing(["ENOENT ", " ENOENT", "ENOENT"])) ?? [];
    const texts = allResults(out).map(textOf);
    expect(texts.slice(0, 2)).toEqual([
      "[repeated failure: the same error recurs in a later result]",
      "[repeated failure: the same error recurs in a later result]",
    ]);
    expect(texts[2]).toBe("ENOENT");
    expect(allResults(out).every((r) => r.isError)).toBe(true);
  });

  test("keeps a different error on the same target, and the same error on another target", () => {
    const messages = failing(["E1", "E2", "E1"], (i) => ({ path: i === 2 ? "b" : "a" }));
    expect(collapse(messages)).toBeUndefined();
  });

  test.each(["denied", "blocked"] as const)(
    "never collapses identical results the agent marked %s",
    (mark) => {
      const messages = failing(["Denied by the user: no", "Denied by the user: no"]);
      for (const result of allResults(messages)) result.mark = mark;
      expect(collapse(messages)).toBeUndefined();
    },
  );

  test("collapses a tool's failure worded like a refusal: only the agent's mark counts", () => {
    const text = "Denied by the user: no";
    const texts = allResults(collapse(failing([text, text])) ?? []).map(textOf);
    expect(texts).toEqual(["[repeated failure: the same error recurs in a later result]", text]);
  });

  test("collapses repeated cancellations: only refusals are evidence", () => {
    const messages = failing([
      "Cancelled: the run was cancelled.",
      "Cancelled: the run was cancelled.",
    ]);
    for (const result of allResults(messages)) result.mark = "cancelled";
    expect(allResults(collapse(messages) ?? []).map(textOf)[0]).toMatch(/^\[repeated failure/);
  });

  test("leaves successful results alone", () => {
    const messages = [
      user("task"),
      assistant(undefined, call("1", "x", {})),
      results(ok("1", "same")),
      assistant(undefined, call("2", "x", {})),
      results(ok("2", "same")),
    ];
    expect(collapse(messages)).toBeUndefined();
  });

  test("keeps every refusal of any transcript word for word (design.md C8)", () => {
    fc.assert(
      fc.property(validTranscript, (messages) => {
        const out = allResults(collapse(messages) ?? messages);
        allResults(messages).forEach((result, i) => {
          if (result.mark === "denied" || result.mark === "blocked") {
            expect(out[i]).toEqual(result);
          }
        });
      }),
    );
  });

  test("changes nothing on a second run", () => {
    const once = collapse(failing(["E", "E", "F", "E"])) ?? [];
    expect(collapse(once)).toBeUndefined();
  });
});

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

describe("results the model has not read yet", () => {
  test("unreadStart is the first message after the last assistant message", () => {
    const messages = run(3, 10);
    expect(unreadStart(messages)).toBe(6);
    expect(unreadStart(messages.slice(0, 6))).toBe(6);
    expect(unreadStart([user("task")])).toBe(0);
  });

  test("thinRead thins every read result, the recent ones too, and leaves the unread one whole", () => {
    const messages = run(3, 1000);
    const texts = allResults(thinRead(messages) ?? []).map(textOf);
    expect(texts.slice(0, 2).every((t) => t.includes("[thinned:"))).toBe(true);
    expect(texts[2]).toBe(textOf(allResults(messages)[2]));
  });

  test("fitUnread cuts the unread results just enough, the longest first, and read ones never", () => {
    const messages = run(2, 10);
    messages.push(
      assistant(undefined, call("a", "read", { path: "a" }), call("b", "read", { path: "b" })),
      results(ok("a", "a".repeat(4000)), ok("b", "b".repeat(1000))),
    );
    const before = estimateTokens(messages);
    const out = fitUnread(messages, 500, estimateTokens) ?? [];
    const saved = before - estimateTokens(out);
    expect(saved).toBeGreaterThanOrEqual(500);
    expect(saved).toBeLessThan(520);
    const [a, b] = allResults(out.slice(-1)).map(textOf);
    expect(a).toMatch(/^a+\n\[thinned: \d+ more characters omitted\]$/);
    expect(b).toBe("b".repeat(1000));
    expect(out.slice(0, -1)).toEqual(messages.slice(0, -1));
    expect(fitUnread(messages, 0, estimateTokens)).toBeUndefined();
  });
});
