import { describe, expect, test } from "vitest";
import {
  CARRIED_STATE_HEADER,
  carriedBlockText,
  checkTranscript,
  isCarriedBlock,
  isSummaryBlock,
  rebuildHead,
  SUMMARY_MARKER,
  summaryBlock,
  summaryCut,
} from "../../src/compaction/head.ts";
import type { Message } from "../../src/models/message.ts";
import { assistant, call, ok, results, user } from "./fixtures.ts";

describe("summaryBlock", () => {
  test("prefixes the trimmed summary with the stable marker", () => {
    expect(summaryBlock("  facts \n")).toEqual({ type: "text", text: `${SUMMARY_MARKER}\nfacts` });
    expect(isSummaryBlock(summaryBlock("x"))).toBe(true);
    expect(isSummaryBlock({ type: "text", text: "x" })).toBe(false);
  });
});

describe("carriedBlockText", () => {
  test("is the header then `## label` and the verbatim body of each state", () => {
    expect(
      carriedBlockText([
        { label: "todo", body: "1/2 \n" },
        { label: "skill", body: "s" },
      ]),
    ).toBe(`${CARRIED_STATE_HEADER}\n## todo\n1/2 \n\n\n## skill\ns`);
  });

  test("is undefined with no state", () => {
    expect(carriedBlockText([])).toBeUndefined();
  });
});

describe("isCarriedBlock", () => {
  test("recognises the block by its header, ignoring leading whitespace", () => {
    expect(isCarriedBlock({ type: "text", text: `\n ${CARRIED_STATE_HEADER}\n## x` })).toBe(true);
    expect(isCarriedBlock({ type: "text", text: "## todo" })).toBe(false);
  });
});

describe("rebuildHead", () => {
  test("keeps the task and earlier summaries, replaces the carried block, appends in order", () => {
    const head: Message = {
      role: "user",
      content: [
        { type: "text", text: "task" },
        { type: "image", mimeType: "image/png", data: "AA==" },
        { type: "text", text: `${SUMMARY_MARKER}\nold` },
        { type: "text", text: `${CARRIED_STATE_HEADER}\n## todo\nold state` },
      ],
    };
    const snapshot = structuredClone(head);
    const next = rebuildHead(head, "new", [{ label: "todo", body: "new state" }], false);
    expect(next.content).toEqual([
      { type: "text", text: "task" },
      { type: "image", mimeType: "image/png", data: "AA==" },
      { type: "text", text: `${SUMMARY_MARKER}\nold` },
      { type: "text", text: `${SUMMARY_MARKER}\nnew` },
      { type: "text", text: `${CARRIED_STATE_HEADER}\n## todo\nnew state` },
    ]);
    expect(head).toEqual(snapshot);
  });
});

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

describe("checkTranscript", () => {
  test("accepts a valid transcript, including one ending mid-call", () => {
    const messages = [
      user("task"),
      assistant(undefined, call("1", "a", {})),
      results(ok("1", "r")),
      assistant(undefined, call("2", "a", {})),
    ];
    expect(checkTranscript(messages)).toBeUndefined();
    expect(checkTranscript([])).toBeUndefined();
  });

  test("rejects an orphaned tool result", () => {
    expect(checkTranscript([user("task"), assistant("x"), results(ok("9", "r"))])).toMatch(
      /tool_result for "9" with no earlier tool_use/,
    );
  });

  test("rejects a call whose result never arrives", () => {
    const messages = [user("task"), assistant(undefined, call("1", "a", {})), user("next")];
    expect(checkTranscript(messages)).toMatch(/tool_use "1" .* has no result/);
  });

  test("rejects two user messages in a row and a head that is not a user message", () => {
    expect(checkTranscript([user("a"), user("b")])).toMatch(/both user messages/);
    expect(checkTranscript([assistant("a")])).toMatch(/message 0/);
  });
});
