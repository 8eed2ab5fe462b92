import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent, modeApprover } from "../../src/agent/index.ts";
import { compact } from "../../src/compaction/compact.ts";
import type { Conversation } from "../../src/compaction/conversation.ts";
import { extractiveSummarizer } from "../../src/compaction/extractive-summarizer.ts";
import {
  CARRIED_STATE_HEADER,
  checkTranscript,
  SUMMARY_MARKER,
} from "../../src/compaction/head.ts";
import { estimateTokens } from "../../src/compaction/pressure.ts";
import type { ToolResult } from "../../src/execution/tool-result.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import type { Message } from "../../src/models/message.ts";
import type { ModelRequest } from "../../src/models/model.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/scripted-model.ts";
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
    let folds = 0;
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
        keepRewritten: true,
      });
      if (out.changed) {
        compactions++;
        firstBefore ??= before;
      }
      if (out.folded) folds++;
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
    const last = await compact(conversation, {
      force: true,
      summarizer,
      toolsets: [toolset],
      keepRewritten: true,
    });
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
    // Summaries were folded along the way, so message 0 holds fewer than were installed.
    const inHead = texts.filter((t) => t.startsWith(SUMMARY_MARKER)).length;
    expect(folds).toBeGreaterThan(0);
    expect(inHead).toBeGreaterThanOrEqual(1);
    expect(inHead).toBeLessThan(summaries);
    const carried = texts.filter((t) => t.startsWith(CARRIED_STATE_HEADER));
    expect(carried).toEqual([`${CARRIED_STATE_HEADER}\n## todo\n${body()}`]);
    expect(body()).toContain("19/20 done");
    expect(checkTranscript(conversation.messages)).toBeUndefined();
  });
});

/** A todo tool like the demo's: `add` appends items, `complete` marks one; every answer is the list. */
function demoTodo() {
  const items: { id: number; text: string; done: boolean }[] = [];
  const body = () => items.map((i) => `${i.done ? "[x]" : "[ ]"} ${i.id}. ${i.text}`).join("\n");
  const tool = defineTool({
    name: "todo",
    description: "Edits the plan",
    input: v.object({
      action: v.picklist(["add", "complete"]),
      items: v.optional(v.array(v.string())),
      id: v.optional(v.number()),
    }),
    carriedState: () => (items.length === 0 ? undefined : { label: "todo", body: body() }),
    call: ({ action, items: added, id }) => {
      if (action === "add") {
        for (const text of added ?? []) items.push({ id: items.length + 1, text, done: false });
      } else {
        const item = items.find((i) => i.id === id);
        if (item) item.done = true;
      }
      return body();
    },
  });
  return { tool, body };
}

describe("the agent loop (long scripted run)", () => {
  test("300 tool turns stay under the threshold and the final transcript carries the todo list", async () => {
    const { tool: todo, body } = demoTodo();
    const readFile = defineTool({
      name: "read_file",
      description: "Reads a file",
      readOnly: true,
      input: v.object({ path: v.string() }),
      call: ({ path }) => `// ${path}\n${"code ".repeat(120)}`,
    });
    const plan = [
      ...Array.from({ length: STEPS }, (_, i) => `migrate module m${i}`),
      "write the report",
    ];
    const last = 1 + STEPS * TURNS_PER_STEP;
    const script = (request: ModelRequest, n: number): ScriptedTurn => {
      // A provider's reading: the transcript plus a fixed system prompt and tool list.
      const usage = { inputTokens: estimateTokens(request.messages) + 200, outputTokens: 20 };
      if (n === 0) {
        return { toolCalls: [{ name: "todo", arguments: { action: "add", items: plan } }], usage };
      }
      if (n < last) {
        const step = Math.floor((n - 1) / TURNS_PER_STEP);
        const k = (n - 1) % TURNS_PER_STEP;
        const call =
          k === TURNS_PER_STEP - 1
            ? { name: "todo", arguments: { action: "complete", id: step + 1 } }
            : { name: "read_file", arguments: { path: `m${step}/part${k}.ts` } };
        return { text: `working on step ${step}`, toolCalls: [call], usage };
      }
      // The model asks for a compaction before writing the report, then stops.
      if (n === last) return { toolCalls: [{ name: "compact", arguments: {} }], usage };
      return { text: "Migrated all modules; the report is next.", usage };
    };
    const model = scriptedModel(script);
    const agent = new Agent({
      model,
      tools: [readFile, todo],
      approver: modeApprover("allow"),
      maxTurns: 400,
      compaction: {
        thresholdTokens: THRESHOLD,
        summarizer: extractiveSummarizer(),
        compactTool: true,
        keepRewritten: true,
      },
    });
    let compactions = 0;
    let summaries = 0;
    let folds = 0;
    agent.on("compacted", (event) => {
      compactions++;
      if (event.summarized) summaries++;
      if (event.folded) folds++;
    });
    const result = await agent.run("TASK: migrate all 20 modules, one step at a time").result;
    expect(result).toMatchObject({ stop: "done", turns: last + 2 });
    expect(summaries).toBeGreaterThan(3);
    // Every request the provider saw was under the threshold.
    const sizes = model.requests.map((r) => estimateTokens(r.messages) + 200);
    expect(Math.max(...sizes)).toBeLessThan(THRESHOLD);
    const { messages, rewritten } = result.conversation;
    expect(checkTranscript(messages)).toBeUndefined();
    expect(rewritten).toHaveLength(compactions);
    const texts = (messages[0] as Message).content.map(textOf);
    expect(texts[0]).toBe("TASK: migrate all 20 modules, one step at a time");
    const inHead = texts.filter((t) => t.startsWith(SUMMARY_MARKER)).length;
    expect(folds).toBeGreaterThan(0);
    expect(inHead).toBeGreaterThanOrEqual(1);
    expect(inHead).toBeLessThan(summaries);
    // Exactly one carried block, byte-equal to the current list: 20 done, the report still open.
    const carried = texts.filter((t) => t.startsWith(CARRIED_STATE_HEADER));
    expect(carried).toEqual([`${CARRIED_STATE_HEADER}\n## todo\n${body()}`]);
    expect(body().split("\n").at(-1)).toBe("[ ] 21. write the report");
    expect(body().match(/\[x\]/g)).toHaveLength(STEPS);
  });
});
