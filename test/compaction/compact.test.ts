import { describe, expect, test } from "vitest";
import { compact } from "../../src/compaction/compact.ts";
import type { Conversation } from "../../src/compaction/conversation.ts";
import { extractiveSummarizer } from "../../src/compaction/extractive-summarizer.ts";
import { CARRIED_STATE_HEADER, SUMMARY_MARKER } from "../../src/compaction/head.ts";
import { estimateTokens } from "../../src/compaction/pressure.ts";
import type { Summarizer } from "../../src/compaction/summarizer.ts";
import { isToolError } from "../../src/errors.ts";
import type { Message } from "../../src/models/message.ts";
import { assistant, call, ok, results, textOf, user } from "./fixtures.ts";

function conversationOf(messages: Message[]): Conversation {
  return { messages, taint: { private: true, untrusted: false }, rewritten: [] };
}

/** Task, then `turns` read turns on distinct files, each result `size` characters long. */
function readRun(turns: number, size = 20): Message[] {
  const messages: Message[] = [user("TASK: audit the repo")];
  for (let i = 0; i < turns; i++) {
    messages.push(assistant(`step ${i}`, call(`r${i}`, "read_file", { path: `f${i}.ts` })));
    messages.push(results(ok(`r${i}`, `content ${i} ${"y".repeat(size)}`)));
  }
  return messages;
}

const fixed =
  (text: string): Summarizer =>
  async () => ({ text });

describe("compact", () => {
  test("runs no summary without a threshold or force, however long the transcript", async () => {
    let asked = 0;
    const summarizer: Summarizer = async () => {
      asked++;
      return { text: "s" };
    };
    const input = conversationOf(readRun(200));
    const out = await compact(input, { summarizer, promptTokens: 1e9 });
    expect(asked).toBe(0);
    expect(out.summarized).toBe(false);
    expect(out.conversation.messages).toHaveLength(input.messages.length);
  });

  test("skips the summary when the lossless passes bring the size under the threshold", async () => {
    const messages = readRun(12, 4000);
    let asked = 0;
    const summarizer: Summarizer = async () => {
      asked++;
      return { text: "s" };
    };
    const out = await compact(conversationOf(messages), {
      summarizer,
      thresholdTokens: 8000,
      promptTokens: 12_500,
    });
    expect(out.changed).toBe(true);
    expect(asked).toBe(0);
    expect(out.tokens).toBeLessThan(8000);
    expect(out.event).toMatchObject({ summarized: false, before: { tokens: 12_500 } });
  });

  test("summarises when still over the threshold after the passes", async () => {
    const out = await compact(conversationOf(readRun(12, 10)), {
      summarizer: fixed("the summary"),
      thresholdTokens: 10,
      promptTokens: 5000,
    });
    expect(out.summarized).toBe(true);
    expect(out.event?.summarized).toBe(true);
    expect(out.event?.after.messages).toBeLessThan(out.event?.before.messages ?? 0);
  });

  test("with thinAll thins the latest result too, while the summary keeps its usual cut", async () => {
    const messages = readRun(8, 1000);
    const out = await compact(conversationOf(messages), {
      summarizer: fixed("the summary"),
      force: true,
      keepRecent: 2,
      thinAll: true,
    });
    expect(out.summarized).toBe(true);
    const after = out.conversation.messages;
    expect(after).toHaveLength(3);
    expect(after[1]).toBe(messages[15]);
    expect(textOf(after[2]?.content[0])).toMatch(/^content 7 y+\n\[thinned: \d+ more/);
    // Without it the recent window keeps its results whole.
    const plain = await compact(conversationOf(messages), {
      summarizer: fixed("the summary"),
      force: true,
      keepRecent: 2,
    });
    expect(plain.conversation.messages[2]).toBe(messages[16]);
  });

  test("runs evict, collapse and thin in that order, before the summary sees the transcript", async () => {
    const messages: Message[] = [
      user("TASK"),
      assistant(undefined, call("a", "read_file", { path: "x" })),
      results(ok("a", "old x ".repeat(100))),
      assistant(undefined, call("b", "read_file", { path: "x" })),
      results(ok("b", "new x ".repeat(100))),
      ...readRun(8).slice(1),
    ];
    let seen = "";
    const out = await compact(conversationOf(messages), {
      force: true,
      summarizer: async ({ transcript }) => {
        seen = transcript;
        return { text: "s" };
      },
    });
    expect(out.summarized).toBe(true);
    expect(seen).toContain("[stale result: a later read_file call");
    expect(seen).toContain("[thinned: ");
  });

  test("folds the summary into message 0 after the task, and carries one block of state", async () => {
    const input = conversationOf(readRun(10));
    const first = await compact(input, {
      force: true,
      summarizer: fixed("first summary"),
      carried: [{ label: "todo", body: "0/1\n[ ] ship  " }],
    });
    const second = await compact(
      conversationOf([...first.conversation.messages, ...readRun(10).slice(1)]),
      {
        force: true,
        summarizer: fixed("second summary"),
        toolsets: [{ carriedState: async () => [{ label: "todo", body: "1/1\n[x] ship" }] }],
      },
    );
    const head = second.conversation.messages[0] as Message;
    expect(head.role).toBe("user");
    const texts = head.content.map(textOf);
    expect(texts[0]).toBe("TASK: audit the repo");
    expect(texts[1]).toBe(`${SUMMARY_MARKER}\nfirst summary`);
    expect(texts[2]).toBe(`${SUMMARY_MARKER}\nsecond summary`);
    expect(texts[3]).toBe(`${CARRIED_STATE_HEADER}\n## todo\n1/1\n[x] ship`);
    expect(texts).toHaveLength(4);
  });

  test("keeps a carried body byte for byte and orders toolset state before `carried`", async () => {
    const out = await compact(conversationOf(readRun(10)), {
      force: true,
      summarizer: fixed("s"),
      toolsets: [{ carriedState: async () => [{ label: "skill", body: "  indented\n\ttab \n" }] }],
      carried: [{ label: "todo", body: "ünïcødé ✓ 🎉 " }],
    });
    const block = out.conversation.messages[0]?.content.at(-1);
    expect(textOf(block)).toBe(
      `${CARRIED_STATE_HEADER}\n## skill\n  indented\n\ttab \n\n\n## todo\nünïcødé ✓ 🎉 `,
    );
  });

  test("adds no carried block when no tool has state, and removes a previous one", async () => {
    const first = await compact(conversationOf(readRun(10)), {
      force: true,
      summarizer: fixed("s1"),
      carried: [{ label: "todo", body: "x" }],
    });
    const more = [...first.conversation.messages, ...readRun(10).slice(1)];
    const second = await compact(conversationOf(more), { force: true, summarizer: fixed("s2") });
    const texts = second.conversation.messages[0]?.content.map(textOf) ?? [];
    expect(texts.some((t) => t.startsWith(CARRIED_STATE_HEADER))).toBe(false);
    expect(texts).toHaveLength(3);
  });

  test("reads carried state only after the summariser returns", async () => {
    const order: string[] = [];
    await compact(conversationOf(readRun(10)), {
      force: true,
      summarizer: async () => {
        order.push("summary");
        return { text: "s" };
      },
      toolsets: [
        {
          carriedState: async () => {
            order.push("state");
            return [];
          },
        },
      ],
    });
    expect(order).toEqual(["summary", "state"]);
  });

  test.each([
    ["empty", async () => ({ text: "  \n" }), { type: "empty" }],
    ["truncated", async () => ({ text: "half a summ", truncated: true }), { type: "truncated" }],
    [
      "failed",
      async () => {
        throw new Error("boom");
      },
      { type: "failed" },
    ],
  ] as const)(
    "never installs a summary that is %s, and reports it",
    async (_, summarizer, failure) => {
      const input = conversationOf(readRun(10));
      const snapshot = structuredClone(input);
      const out = await compact(input, { force: true, summarizer });
      expect(out.summarized).toBe(false);
      expect(out.summaryError).toMatchObject(failure);
      expect(out.conversation.messages).toHaveLength(input.messages.length);
      expect(out.conversation.messages[0]).toEqual(input.messages[0]);
      expect(input).toEqual(snapshot);
    },
  );

  test("refuses a rebuild that would orphan a tool result", async () => {
    // A result in the kept tail whose call sits in the summarised middle.
    const messages = readRun(6);
    messages.push(assistant("late"), results(ok("r0", "answer to a call that is summarised away")));
    const out = await compact(conversationOf(messages), { force: true, summarizer: fixed("s") });
    expect(out.summarized).toBe(false);
    expect(out.summaryError?.type).toBe("unsafe");
  });

  test("makes no summary when the cut would land at index 4 or earlier", async () => {
    const out = await compact(conversationOf(readRun(4)), { force: true, summarizer: fixed("s") });
    expect(out).toMatchObject({ changed: false, summarized: false });
  });

  test("keeps the pre-rewrite transcript only when asked, and never mutates the input", async () => {
    const input = conversationOf(readRun(12, 400));
    const snapshot = structuredClone(input);
    const plain = await compact(input, { force: true, summarizer: fixed("s") });
    expect(plain.changed).toBe(true);
    expect(plain.conversation.rewritten).toEqual([]);
    const out = await compact(input, { force: true, summarizer: fixed("s"), keepRewritten: true });
    expect(out.conversation.rewritten).toEqual([snapshot.messages]);
    expect(input).toEqual(snapshot);
    const again = await compact(out.conversation, {});
    expect(again.changed).toBe(false);
    expect(again.conversation).toBe(out.conversation);
  });

  test("keeps the taint as it was", async () => {
    const input = conversationOf(readRun(12));
    input.taint = { private: true, untrusted: true };
    const out = await compact(input, { force: true, summarizer: fixed("s") });
    expect(out.conversation.taint).toEqual({ private: true, untrusted: true });
  });

  test("leaves the transcript unchanged when cancelled during the summary", async () => {
    const controller = new AbortController();
    const input = conversationOf(readRun(12, 400));
    const snapshot = structuredClone(input);
    const summarizer: Summarizer = (_, { signal }) =>
      new Promise((_resolve, reject) => {
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        controller.abort(new Error("stop"));
      });
    const error = await compact(input, {
      force: true,
      summarizer,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(isToolError(error, "cancelled")).toBe(true);
    expect(input).toEqual(snapshot);
  });

  test("rejects with `cancelled` before any work when the signal is already aborted", async () => {
    const error = await compact(conversationOf(readRun(3)), {
      signal: AbortSignal.abort(),
    }).catch((e: unknown) => e);
    expect(isToolError(error, "cancelled")).toBe(true);
  });

  test("rejects a negative keepRecent", async () => {
    const error = await compact(conversationOf(readRun(3)), { keepRecent: -1 }).catch((e) => e);
    expect(isToolError(error, "invalid_configuration")).toBe(true);
  });

  test("with the extractive summariser keeps the task and the last position", async () => {
    const out = await compact(conversationOf(readRun(20)), {
      force: true,
      summarizer: extractiveSummarizer(),
    });
    const summary = textOf(out.conversation.messages[0]?.content[1]);
    expect(summary).toContain("Task: TASK: audit the repo");
    expect(summary).toMatch(/last call: read_file \{"path":"f1\d\.ts"\}/);
  });

  test("passes a tokens reading through the summariser's usage", async () => {
    const out = await compact(conversationOf(readRun(10)), {
      force: true,
      summarizer: async () => ({ text: "s", usage: { inputTokens: 7, outputTokens: 3 } }),
    });
    expect(out.usage).toEqual({ inputTokens: 7, outputTokens: 3 });
  });
});

describe("compact: the fold", () => {
  /** Message 0 with the task, `n` earlier summaries and a stale carried block. */
  function foldable(n: number, turns = 10): Message[] {
    const messages = readRun(turns);
    const head = messages[0] as Message;
    messages[0] = {
      ...head,
      content: [
        ...head.content,
        ...Array.from({ length: n }, (_, i) => ({
          type: "text" as const,
          text: `${SUMMARY_MARKER}\nsummary ${i} ${"z".repeat(400)}`,
        })),
        { type: "text", text: `${CARRIED_STATE_HEADER}\n## todo\nold` },
      ],
    };
    return messages;
  }
  const texts = (message: Message | undefined) => (message?.content ?? []).map(textOf);

  test("past the head budget, one summary replaces the earlier ones; task and carried state stay", async () => {
    const requests: { transcript: string; summaries?: readonly string[] }[] = [];
    const summarizer: Summarizer = async (request) => {
      requests.push(request);
      return { text: "merged" };
    };
    const out = await compact(conversationOf(foldable(3)), {
      force: true,
      headBudgetTokens: 100,
      summarizer,
      carried: [{ label: "todo", body: "[ ] 1. now" }],
    });
    expect(out).toMatchObject({ summarized: true, folded: true });
    expect(out.event).toMatchObject({ summary: "merged", folded: true });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.summaries).toEqual([0, 1, 2].map((i) => `summary ${i} ${"z".repeat(400)}`));
    // The fold's transcript holds the task and the new turns, not the summaries again.
    expect(requests[0]?.transcript).toMatch(/^\[user\] TASK: audit the repo\n/);
    expect(requests[0]?.transcript).not.toContain(SUMMARY_MARKER);
    expect(texts(out.conversation.messages[0])).toEqual([
      "TASK: audit the repo",
      `${SUMMARY_MARKER}\nmerged`,
      `${CARRIED_STATE_HEADER}\n## todo\n[ ] 1. now`,
    ]);
  });

  test("under the budget a summary is appended, the earlier ones shown to the summariser", async () => {
    const requests: { transcript: string; summaries?: readonly string[] }[] = [];
    const summarizer: Summarizer = async (request) => {
      requests.push(request);
      return { text: "next" };
    };
    const out = await compact(conversationOf(foldable(1)), { force: true, summarizer });
    expect(out.folded).toBe(false);
    expect(requests[0]?.summaries).toBeUndefined();
    expect(requests[0]?.transcript).toContain(`${SUMMARY_MARKER}\nsummary 0`);
    const head = texts(out.conversation.messages[0]);
    expect(head.filter((t) => t.startsWith(SUMMARY_MARKER))).toHaveLength(2);
    expect(head.at(-1)).not.toContain("## todo\nold");
  });

  test("the default budget is a quarter of the threshold", async () => {
    const seen: boolean[] = [];
    const summarizer: Summarizer = async ({ summaries }) => {
      seen.push(summaries !== undefined);
      return { text: "s" };
    };
    const messages = foldable(3);
    const head = estimateTokens(messages.slice(0, 1));
    // A threshold of four times message 0 puts it exactly at the budget, not past it.
    for (const thresholdTokens of [head * 4, head * 4 - 8]) {
      await compact(conversationOf(messages), { force: true, thresholdTokens, summarizer });
    }
    expect(seen).toEqual([false, true]);
  });

  test.each([
    ["empty", async () => ({ text: " " })],
    ["truncated", async () => ({ text: "half", truncated: true })],
    [
      "failed",
      async () => {
        throw new Error("down");
      },
    ],
  ] as [string, Summarizer][])(
    "a %s fold installs nothing and keeps message 0",
    async (type, summarizer) => {
      const messages = foldable(3);
      const out = await compact(conversationOf(messages), {
        force: true,
        headBudgetTokens: 100,
        summarizer,
      });
      expect(out.summarized).toBe(false);
      expect(out.summaryError?.type).toBe(type);
      expect(out.conversation.messages[0]).toEqual(messages[0]);
    },
  );

  // Issue 22, item 8: the threshold is a soft target; the result the model asked for and has
  // not read yet is not thinned to 240 characters (it would only ask again).
  test("still over after a summary: thins the recent results the model has read, never the unread one while it fits", async () => {
    const messages = readRun(10, 3000);
    // The last result alone (3,000 characters, about 750 tokens) is over this threshold.
    const out = await compact(conversationOf(messages), {
      thresholdTokens: 700,
      keepRecent: 4,
      summarizer: fixed("s"),
    });
    expect(out.summarized).toBe(true);
    const after = out.conversation.messages;
    expect(textOf(after.at(-1)?.content[0])).toBe(textOf(messages.at(-1)?.content[0]));
    expect(textOf(after.at(-3)?.content[0])).toContain("[thinned:");
    // Over only because of the unread result: nothing to give up on.
    expect(out.tokens).toBeGreaterThanOrEqual(700);
    expect(out.overThreshold).toBeUndefined();

    // The same with a window it does not fit: cut, but only as far as the window needs.
    const window = out.tokens - 300;
    const fitted = await compact(conversationOf(messages), {
      thresholdTokens: 700,
      keepRecent: 4,
      summarizer: fixed("s"),
      contextWindowTokens: window,
    });
    const last = textOf(fitted.conversation.messages.at(-1)?.content[0]);
    expect(fitted.tokens).toBeLessThanOrEqual(window);
    expect(fitted.tokens).toBeGreaterThan(window - 20);
    expect(last).toMatch(/\n\[thinned: \d+ more characters omitted\]$/);
    expect(last.length).toBeGreaterThan(1500);

    const huge = readRun(10);
    huge[0] = user(`TASK: ${"t".repeat(8000)}`);
    const stuck = await compact(conversationOf(huge), {
      thresholdTokens: 1000,
      summarizer: fixed("s"),
    });
    expect(stuck.summarized).toBe(true);
    expect(stuck.overThreshold).toMatch(
      /^the task and the carried state alone are about \d+ tokens/,
    );
    expect(stuck.event?.overThreshold).toBe(stuck.overThreshold);
  });
});
