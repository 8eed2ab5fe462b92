import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { CARRIED_STATE_HEADER } from "../../src/compaction/carried-block.ts";
import { checkTranscript } from "../../src/compaction/check-transcript.ts";
import { compact } from "../../src/compaction/compact.ts";
import type { Conversation } from "../../src/compaction/conversation.ts";
import { estimateTokens } from "../../src/compaction/estimate-tokens.ts";
import { extractiveSummarizer } from "../../src/compaction/extractive-summarizer.ts";
import { SUMMARY_MARKER } from "../../src/compaction/summary-block.ts";
import type { ToolResult } from "../../src/execution/tool-result.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import type { Message } from "../../src/models/message.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { assistant, call, ok, results, textOf, user } from "./fixtures.ts";

const STEPS = 20;
const TURNS_PER_STEP = 15;
const THRESHOLD = 6000;

function todoTool() {
  const done = new Set<number>();
  const body = () => {
    const lines = Array.from({ length: STEPS }, (_, i) => {
      const mark = done.has(i) ? "x" : done.size === i ? "~" : " ";
      return `[${mark}] step ${i}: migrate module m${i}`;
    });
    return `${done.size}/${STEPS} done\n${lines.join("\n")}`;
  };
  const tool = defineTool({
    name: "todo",
    description: "Marks a step done",
    input: v.object({ done: v.number() }),
    call: ({ done: step }) => {
      done.add(step);
      return `step ${step} marked done`;
    },
    carriedState: () => (done.size === STEPS ? undefined : { label: "todo", body: body() }),
  });
  return { tool, body };
}

function toolText(result: ToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

describe("compact (long scripted run)", () => {
  test("stays under the threshold for 300 turns and still carries the current todo list", async () => {
    const { tool, body } = todoTool();
    const toolset = Toolset.local([tool]);
    let conversation: Conversation = {
      messages: [user("TASK: migrate all 20 modules, one step at a time")],
      taint: { private: false, untrusted: false },
      rewritten: [],
    };
    const summarizer = extractiveSummarizer();
    let compactions = 0;
    let summaries = 0;
    let firstBefore: Message[] | undefined;
    for (let turn = 0; turn < STEPS * TURNS_PER_STEP - 1; turn++) {
      const step = Math.floor(turn / TURNS_PER_STEP);
      const id = `t${turn}`;
      const finishing = turn % TURNS_PER_STEP === TURNS_PER_STEP - 1;
      const use = finishing
        ? call(id, "todo", { done: step })
        : call(id, "read_file", { path: `m${step}/part${turn % TURNS_PER_STEP}.ts` });
      const text = finishing
        ? toolText(await toolset.call("todo", use.input))
        : `// m${step} source\n${"code ".repeat(120)}`;
      conversation = {
        ...conversation,
        messages: [
          ...conversation.messages,
          assistant(`working on step ${step}`, use),
          results(ok(id, text)),
        ],
      };
      const before = conversation.messages;
      const out = await compact(conversation, {
        thresholdTokens: THRESHOLD,
        summarizer,
        toolsets: [toolset],
      });
      if (out.changed) {
        compactions++;
        firstBefore ??= before;
      }
      if (out.summarized) {
        summaries++;
        // Each summary carries the todo list as it is right now.
        const last = out.conversation.messages[0]?.content.at(-1);
        expect(textOf(last)).toBe(`${CARRIED_STATE_HEADER}\n## todo\n${body()}`);
      }
      expect(out.summaryError).toBeUndefined();
      expect(out.tokens).toBeLessThan(THRESHOLD);
      expect(estimateTokens(out.conversation.messages)).toBeLessThan(THRESHOLD);
      conversation = out.conversation;
    }
    expect(summaries).toBeGreaterThan(3);
    // The run ends with a forced compaction (as when the model asks for one).
    const before = conversation.messages;
    const last = await compact(conversation, { force: true, summarizer, toolsets: [toolset] });
    expect(last.summarized).toBe(true);
    compactions++;
    summaries++;
    conversation = last.conversation;
    expect(conversation.rewritten.at(-1)).toEqual(before);
    expect(conversation.rewritten).toHaveLength(compactions);
    expect(conversation.rewritten[0]).toEqual(firstBefore);
    const head = conversation.messages[0] as Message;
    const texts = head.content.map(textOf);
    expect(texts[0]).toBe("TASK: migrate all 20 modules, one step at a time");
    expect(texts.filter((t) => t.startsWith(SUMMARY_MARKER))).toHaveLength(summaries);
    const carried = texts.filter((t) => t.startsWith(CARRIED_STATE_HEADER));
    expect(carried).toEqual([`${CARRIED_STATE_HEADER}\n## todo\n${body()}`]);
    expect(body()).toContain("19/20 done");
    expect(checkTranscript(conversation.messages)).toBeUndefined();
  });
});
