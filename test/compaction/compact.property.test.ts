import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { compact } from "../../src/compaction/compact.ts";
import type { Conversation } from "../../src/compaction/conversation.ts";
import { extractiveSummarizer } from "../../src/compaction/extractive-summarizer.ts";
import { CARRIED_STATE_HEADER, checkTranscript } from "../../src/compaction/head.ts";
import type { Message } from "../../src/models/message.ts";
import { validTranscript } from "./fixtures.ts";

function conversationOf(messages: Message[]): Conversation {
  return { messages, taint: { private: false, untrusted: true }, rewritten: [] };
}

function orphans(messages: readonly Message[]): string[] {
  const called = new Set<string>();
  const found: string[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === "tool_use") called.add(block.id);
      if (block.type === "tool_result" && !called.has(block.toolUseId)) found.push(block.toolUseId);
    }
  }
  return found;
}

function adjacentUsers(messages: readonly Message[]): number {
  return messages.filter((m, i) => m.role === "user" && messages[i - 1]?.role === "user").length;
}

const options = fc.record({
  keepRecent: fc.integer({ min: 0, max: 8 }),
  threshold: fc.integer({ min: 0, max: 4000 }),
  force: fc.boolean(),
  body: fc.string({ unit: "binary", maxLength: 60 }),
});

describe("compact (properties)", () => {
  test("keeps the invariants on any valid transcript", async () => {
    let summarized = 0;
    let thinnedOrEvicted = 0;
    await fc.assert(
      fc.asyncProperty(validTranscript, options, async (messages, o) => {
        expect(checkTranscript(messages)).toBeUndefined();
        const input = conversationOf(messages);
        const snapshot = structuredClone(input);
        const out = await compact(input, {
          keepRecent: o.keepRecent,
          thresholdTokens: o.threshold,
          force: o.force,
          summarizer: extractiveSummarizer(),
          toolsets: [{ carriedState: async () => [{ label: "todo", body: o.body }] }],
          keepRewritten: true,
        });
        const after = out.conversation.messages;
        if (out.summarized) summarized++;
        else if (out.changed) thinnedOrEvicted++;
        // The input is never mutated, and the pre-rewrite transcript is recorded once.
        expect(input).toEqual(snapshot);
        expect(out.conversation.rewritten).toEqual(out.changed ? [snapshot.messages] : []);
        expect(out.conversation.taint).toEqual(snapshot.taint);
        // No orphans, no adjacent user messages, and the head keeps the task.
        expect(orphans(after)).toEqual([]);
        expect(adjacentUsers(after)).toBe(0);
        expect(checkTranscript(after)).toBeUndefined();
        expect(after[0]?.content[0]).toEqual(messages[0]?.content[0]);
        // Tool calls are never touched: every call that is kept is byte-identical.
        const kept = after.flatMap((m) => m.content.filter((b) => b.type === "tool_use"));
        const original = new Map(
          messages
            .flatMap((m) => m.content.filter((b) => b.type === "tool_use"))
            .map((b) => [b.id, b]),
        );
        for (const use of kept) expect(use).toEqual(original.get(use.id));
        // Exactly one carried block after a summary, holding the body byte for byte.
        const carried = (after[0]?.content ?? []).filter(
          (b) => b.type === "text" && b.text.startsWith(CARRIED_STATE_HEADER),
        );
        if (out.summarized) {
          expect(carried).toHaveLength(1);
          const text = carried[0]?.type === "text" ? carried[0].text : "";
          expect(text.slice(`${CARRIED_STATE_HEADER}\n## todo\n`.length)).toBe(o.body);
        } else {
          expect(carried).toHaveLength(0);
        }
        // The lossless passes are idempotent: running them again changes nothing.
        const once = await compact(out.conversation, { keepRecent: o.keepRecent });
        const twice = await compact(once.conversation, { keepRecent: o.keepRecent });
        expect(twice.changed).toBe(false);
        if (out.changed) expect(once.changed).toBe(false);
      }),
      { numRuns: 300 },
    );
    // Guards the generator, so the properties above are exercised on real rewrites.
    expect(summarized).toBeGreaterThan(50);
    expect(thinnedOrEvicted).toBeGreaterThan(10);
  });

  test("records the transcript before the first compaction as rewritten[0] over repeated runs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(validTranscript, { minLength: 2, maxLength: 4 }), async (runs) => {
        const first = runs[0] as Message[];
        let conversation = conversationOf(first);
        let firstChanged: Message[] | undefined;
        for (const [i, run] of runs.entries()) {
          if (i > 0) {
            // Continue from the compacted transcript with more turns (ids made unique).
            const more = structuredClone(run.slice(1)).map((m) => ({
              ...m,
              content: m.content.map((b) =>
                b.type === "tool_use"
                  ? { ...b, id: `${i}-${b.id}` }
                  : b.type === "tool_result"
                    ? { ...b, toolUseId: `${i}-${b.toolUseId}` }
                    : b,
              ),
            }));
            if (conversation.messages.at(-1)?.role === "assistant") continue;
            if (more[0]?.role !== "assistant") continue;
            conversation = { ...conversation, messages: [...conversation.messages, ...more] };
          }
          const before = structuredClone(conversation.messages);
          const out = await compact(conversation, {
            force: true,
            keepRecent: 2,
            summarizer: extractiveSummarizer(),
            keepRewritten: true,
          });
          if (out.changed && firstChanged === undefined) firstChanged = before;
          conversation = out.conversation;
        }
        if (firstChanged !== undefined) expect(conversation.rewritten[0]).toEqual(firstChanged);
        else expect(conversation.rewritten).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
