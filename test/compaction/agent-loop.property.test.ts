import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, test } from "vitest";
import {
  Agent,
  type AgentEvent,
  extractiveSummarizer,
  modeApprover,
} from "../../src/agent/index.ts";
import { CARRIED_STATE_HEADER, checkTranscript } from "../../src/compaction/head.ts";
import { estimateTokens } from "../../src/compaction/pressure.ts";
import { defineTool, ToolResult } from "../../src/index.ts";
import type { Block, Message } from "../../src/models/message.ts";
import type { ModelRequest } from "../../src/models/model.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/scripted-model.ts";

const TASK: Block = { type: "text", text: "TASK: audit the repository" };

const PATHS = ["a.ts", "b.ts", "src/c.ts"] as const;

const callSpec = fc.oneof(
  fc.record({
    name: fc.constant("read"),
    arguments: fc.record({
      path: fc.constantFrom(...PATHS),
      size: fc.constantFrom(10, 300, 3000),
    }),
  }),
  fc.record({
    name: fc.constant("fail"),
    arguments: fc.record({ path: fc.constantFrom(...PATHS) }),
  }),
  fc.record({
    name: fc.constant("todo"),
    arguments: fc.record({
      action: fc.constantFrom("add", "complete"),
      id: fc.integer({ min: 1, max: 6 }),
    }),
  }),
);

type TurnSpec =
  | { type: "calls"; calls: { name: string; arguments: unknown }[]; usage: boolean; text?: string }
  | { type: "overflow" }
  | { type: "compact" };

const turnSpec: fc.Arbitrary<TurnSpec> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        type: fc.constant("calls" as const),
        calls: fc.array(callSpec, { minLength: 1, maxLength: 3 }),
        usage: fc.boolean(),
        text: fc.string({ maxLength: 12 }),
      },
      { requiredKeys: ["type", "calls", "usage"] },
    ),
  },
  { weight: 1, arbitrary: fc.constant({ type: "overflow" as const }) },
  { weight: 1, arbitrary: fc.constant({ type: "compact" as const }) },
);

function todoTool() {
  const items: { id: number; done: boolean }[] = [];
  const body = () => items.map((i) => `${i.done ? "[x]" : "[ ]"} ${i.id}. item ${i.id}`).join("\n");
  const tool = defineTool({
    name: "todo",
    description: "Edits the plan",
    input: v.object({ action: v.picklist(["add", "complete"]), id: v.number() }),
    carriedState: () => (items.length === 0 ? undefined : { label: "todo", body: body() }),
    call: ({ action, id }) => {
      if (action === "add") items.push({ id: items.length + 1, done: false });
      else {
        const item = items.find((i) => i.id === id);
        if (!item) return ToolResult.error(`no item #${id}`);
        item.done = true;
      }
      return body() || "empty";
    },
  });
  return { tool, body };
}

const read = defineTool({
  name: "read",
  description: "Reads a file",
  readOnly: true,
  input: v.object({ path: v.string(), size: v.number() }),
  call: ({ path, size }) => `${path}:${"x".repeat(size)}`,
});

const fail = defineTool({
  name: "fail",
  description: "Always fails",
  readOnly: true,
  input: v.object({ path: v.string() }),
  call: ({ path }) => ToolResult.error(`ENOENT: ${path}`),
});

function carriedBlocks(message: Message | undefined): string[] {
  return (message?.content ?? []).flatMap((b) =>
    b.type === "text" && b.text.startsWith(CARRIED_STATE_HEADER) ? [b.text] : [],
  );
}

function turnOf(spec: TurnSpec | undefined, request: ModelRequest): ScriptedTurn {
  // The final-answer turn after a limit forbids tool calls.
  if (spec === undefined || request.toolChoice === "none") return { text: "done" };
  switch (spec.type) {
    case "overflow":
      return { error: { type: "context_overflow", provider: "scripted", message: "too long" } };
    case "compact":
      return { toolCalls: [{ name: "compact", arguments: {} }] };
    case "calls": {
      const turn: ScriptedTurn = { toolCalls: spec.calls };
      if (spec.text) turn.text = spec.text;
      // A provider's reading: the transcript plus a fixed system prompt and tool list.
      if (spec.usage)
        turn.usage = { inputTokens: estimateTokens(request.messages) + 60, outputTokens: 5 };
      return turn;
    }
    default:
      return spec satisfies never;
  }
}

describe("compaction through the agent loop (properties)", () => {
  test("every request, the final transcript and every `rewritten` entry stay provider-valid", async () => {
    let summarized = 0;
    let carriedChecks = 0;
    const reasons = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnSpec, { minLength: 1, maxLength: 30 }),
        fc.option(fc.integer({ min: 150, max: 3000 }), { nil: undefined }),
        fc.integer({ min: 0, max: 6 }),
        fc.boolean(),
        async (script, thresholdTokens, keepRecent, compactTool) => {
          const { tool: todo, body } = todoTool();
          const problems: string[] = [];
          let expectCarried: string | undefined;
          const model = scriptedModel((request, n) => {
            const head = request.messages[0];
            if (JSON.stringify(head?.content[0]) !== JSON.stringify(TASK)) {
              problems.push(`request ${n}: message 0 lost the task`);
            }
            const problem = checkTranscript(request.messages);
            if (problem) problems.push(`request ${n}: ${problem}`);
            if (request.messages.at(-1)?.role !== "user")
              problems.push(`request ${n} ends on assistant`);
            const carried = carriedBlocks(head);
            if (carried.length > 1) problems.push(`request ${n}: ${carried.length} carried blocks`);
            if (expectCarried !== undefined) carriedChecks++;
            if (expectCarried !== undefined && carried[0] !== expectCarried) {
              problems.push(`request ${n}: carried ${carried[0]} instead of ${expectCarried}`);
            }
            expectCarried = undefined;
            return turnOf(script[n], request);
          });
          const agent = new Agent({
            model,
            tools: [read, fail, todo],
            approver: modeApprover("allow"),
            maxTurns: 40,
            compaction: {
              ...(thresholdTokens === undefined ? {} : { thresholdTokens }),
              keepRecent,
              compactTool,
              summarizer: extractiveSummarizer(),
              keepRewritten: true,
            },
          });
          const events: AgentEvent[] = [];
          let requestsAtFirst: number | undefined;
          agent.on("compacted", (event) => {
            events.push(event);
            reasons.add(event.reason);
            requestsAtFirst ??= model.requests.length;
            if (event.summarized) {
              summarized++;
              const state = body();
              // Read at install time, and no tool runs before the next request.
              expectCarried =
                state === "" ? undefined : `${CARRIED_STATE_HEADER}\n## todo\n${state}`;
              if (state === "") expectCarried = undefined;
            }
          });
          const result = await agent.run([{ role: "user", content: [TASK] }]).result;
          expect(problems).toEqual([]);
          const { messages, rewritten } = result.conversation;
          expect(checkTranscript(messages)).toBeUndefined();
          expect(messages[0]?.content[0]).toEqual(TASK);
          // A stalled run's last event may report a compaction that changed nothing.
          const stalledUnchanged = result.stop === "compaction_stalled" ? 1 : 0;
          expect([events.length, events.length - stalledUnchanged]).toContain(rewritten.length);
          for (const before of rewritten) {
            expect(checkTranscript(before)).toBeUndefined();
            expect(before[0]?.content[0]).toEqual(TASK);
            expect(carriedBlocks(before[0]).length).toBeLessThanOrEqual(1);
          }
          if (requestsAtFirst !== undefined) {
            // rewritten[0] is the transcript before the first compaction: the last request
            // sent before it, plus at most that turn's reply and results.
            const sent = model.requests[requestsAtFirst - 1]?.messages ?? [];
            const first = rewritten[0] ?? [];
            expect(first.slice(0, sent.length)).toEqual(sent);
            expect(first.length - sent.length).toBeLessThanOrEqual(2);
          }
        },
      ),
      { numRuns: 120 },
    );
    // Guards the generator, so the properties are exercised on real summaries.
    expect(summarized).toBeGreaterThan(20);
    expect(carriedChecks).toBeGreaterThan(5);
    expect([...reasons].sort()).toEqual(["overflow", "predicted", "requested", "threshold"]);
  });
});
