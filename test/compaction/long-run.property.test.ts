import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent, extractiveSummarizer, modeApprover } from "../../src/agent/index.ts";
import {
  CARRIED_STATE_HEADER,
  checkTranscript,
  HEAD_BUDGET_FRACTION,
  isCarriedBlock,
  isSummaryBlock,
} from "../../src/compaction/head.ts";
import { thinResults, unreadStart } from "../../src/compaction/lossless.ts";
import { estimateTokens } from "../../src/compaction/pressure.ts";
import { defineTool } from "../../src/index.ts";
import type { Block, Message } from "../../src/models/message.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/scripted-model.ts";

// docs/design.md, "Compaction": C1-C6 over runs of thousands of turns. The script is derived
// from the generated values alone (no clock, no Math.random), so a failing seed replays.

const TASK: Block = { type: "text", text: "TASK: work through the plan, one item per turn" };
/** The most characters one extractive summary of this script can take (its limits). */
const SUMMARY_CHARS = 4000;

const runSpec = fc.record({
  turns: fc.integer({ min: 1000, max: 1400 }),
  threshold: fc.integer({ min: 1500, max: 6000 }),
  keepRecent: fc.integer({ min: 2, max: 8 }),
  /** Fixed prompt tokens the provider adds (system prompt, tool list). */
  overhead: fc.integer({ min: 0, max: 300 }),
  /** Tool output sizes, used in turn order, round and round. */
  sizes: fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 8, maxLength: 40 }),
  /** Every how many turns the plan gains or loses an item (the carried state changes). */
  planEvery: fc.integer({ min: 1, max: 7 }),
});

function plan() {
  const items: { id: number; done: boolean }[] = [];
  let next = 1;
  const body = () => items.map((i) => `${i.done ? "[x]" : "[ ]"} ${i.id}. item ${i.id}`).join("\n");
  const tool = defineTool({
    name: "todo",
    description: "Completes one item and adds the next",
    input: v.object({ complete: v.number() }),
    carriedState: () => (items.length === 0 ? undefined : { label: "todo", body: body() }),
    call: ({ complete }) => {
      const item = items.find((i) => i.id === complete);
      if (item) item.done = true;
      items.push({ id: next++, done: false });
      while (items.length > 8) items.shift();
      return body();
    },
  });
  return { tool, body, open: () => items.find((i) => !i.done)?.id ?? 0 };
}

const text = (block: Block | undefined) => (block?.type === "text" ? block.text : "");

describe("compaction over long runs (properties)", () => {
  test("every compaction leaves the prompt under the threshold or says why, with a bounded message 0", async () => {
    let compactionsSeen = 0;
    let foldsSeen = 0;
    await fc.assert(
      fc.asyncProperty(runSpec, async (spec) => {
        const todo = plan();
        const read = defineTool({
          name: "read",
          description: "Reads a file",
          readOnly: true,
          input: v.object({ path: v.string(), size: v.number() }),
          call: ({ path, size }) => `${path}\n${"x".repeat(size)}`,
        });
        const problems: string[] = [];
        // What the next request must show, set by the compaction just before it.
        let expected: { carried: string | undefined; overThreshold?: string } | undefined;
        const budget = spec.threshold * HEAD_BUDGET_FRACTION;
        let fixedHead = 0;
        const model = scriptedModel((request, n): ScriptedTurn => {
          // The scripted model records every request; only the current one matters here.
          (model.requests as unknown[]).length = 0;
          const { messages } = request;
          const prompt = estimateTokens(messages) + spec.overhead;
          const usage = { inputTokens: prompt, outputTokens: 10 };
          if (expected !== undefined) {
            const head = messages[0] as Message;
            const carried = head.content.filter(isCarriedBlock).map(text);
            if (text(head.content[0]) !== text(TASK))
              problems.push(`${n}: message 0 lost the task`);
            const problem = checkTranscript(messages);
            if (problem) problems.push(`${n}: ${problem}`);
            if (carried.length > 1) problems.push(`${n}: ${carried.length} carried blocks`);
            const want = expected.carried;
            if (want !== undefined && carried[0] !== want) {
              problems.push(`${n}: the carried block is not the state at install time`);
            }
            // The threshold is a soft target for results the model has not read yet: over it
            // only by them (they fit the window) is no reason to give up.
            const unread = messages.slice(unreadStart(messages));
            const floor = thinResults(unread, 0, true) ?? unread;
            const readPrompt = prompt - (estimateTokens(unread) - estimateTokens(floor));
            if (readPrompt >= spec.threshold && expected.overThreshold === undefined) {
              problems.push(`${n}: ${prompt} tokens after a compaction, no reason given`);
            }
            const headTokens = estimateTokens([head]);
            fixedHead = Math.max(
              fixedHead,
              estimateTokens([
                { ...head, content: head.content.filter((b) => !isSummaryBlock(b)) },
              ]),
            );
            if (headTokens > budget + fixedHead + SUMMARY_CHARS / 4) {
              problems.push(`${n}: message 0 is ${headTokens} tokens, budget ${budget}`);
            }
            expected = undefined;
          }
          if (n >= spec.turns) return { text: "done", usage };
          const size = spec.sizes[n % spec.sizes.length] as number;
          const call =
            n % spec.planEvery === 0
              ? { name: "todo", arguments: { complete: todo.open() } }
              : { name: "read", arguments: { path: `f${n % 13}.ts`, size } };
          return { text: `turn ${n}`, toolCalls: [call], usage };
        });
        const agent = new Agent({
          model,
          tools: [read, todo.tool],
          approver: modeApprover("allow"),
          maxTurns: spec.turns + 1,
          compaction: {
            thresholdTokens: spec.threshold,
            keepRecent: spec.keepRecent,
            summarizer: extractiveSummarizer(),
          },
        });
        agent.on("compacted", (event) => {
          compactionsSeen++;
          if (event.folded) foldsSeen++;
          if (event.summary !== undefined && event.summary.length > SUMMARY_CHARS) {
            problems.push(`a summary of ${event.summary.length} characters`);
          }
          const body = todo.body();
          expected = {
            // Read at install time, and no tool runs before the next request.
            carried:
              event.summarized && body !== ""
                ? `${CARRIED_STATE_HEADER}\n## todo\n${body}`
                : undefined,
          };
          if (event.overThreshold !== undefined) expected.overThreshold = event.overThreshold;
        });
        const result = await agent.run([{ role: "user", content: [TASK] }]).result;
        expect(problems.slice(0, 5)).toEqual([]);
        expect(["done", "compaction_stalled"]).toContain(result.stop);
        expect(result.conversation.rewritten).toEqual([]);
        expect(checkTranscript(result.conversation.messages)).toBeUndefined();
      }),
      { numRuns: 3 },
    );
    // Guards the generator: the runs compact, and fold, many times.
    expect(compactionsSeen).toBeGreaterThan(200);
    expect(foldsSeen).toBeGreaterThan(10);
  }, 60_000);
});
