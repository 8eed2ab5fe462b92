import fc from "fast-check";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Agent, type AgentEvent, type Conversation, modeApprover } from "../../src/agent/index.ts";
import {
  defineTool,
  InteractionResponse,
  type StepOptions,
  ToolResult,
  Toolset,
} from "../../src/index.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { endable, type RunPlan, runPlan } from "../support/adversarial-plan.ts";
import {
  executePlan,
  onVirtualTime,
  READ_MODES,
  type ReadMode,
  RUN_TIMEOUT_MS,
  within,
} from "../support/adversarial-run.ts";
import {
  APPROVAL_TOOLS,
  adversarialTools,
  adversarialToolsets,
  KNOWN_TOOLS,
  sleep,
} from "../support/adversarial-tools.ts";
import { runProblems, strictTranscriptProblems } from "../support/agent-invariants.ts";
import { fakeToolInfo } from "../support/fake-backend.ts";
import { createGate } from "../support/gate.ts";

// Vitest reports an unhandled rejection too, but only after the test; this listener
// makes the property itself fail on the run that caused it, so fast-check can shrink it.
type Proc = {
  on(e: string, f: (r: unknown) => void): void;
  off(e: string, f: (r: unknown) => void): void;
};
const proc = (globalThis as { process?: Proc }).process as Proc;
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  proc.on("unhandledRejection", onUnhandled);
});
afterEach(() => proc.off("unhandledRejection", onUnhandled));

/** Resumes a conversation from its JSON, with a model that just answers. */
async function resumeProblems(conversation: Conversation): Promise<string[]> {
  const json = JSON.stringify(conversation);
  const saved: Conversation = JSON.parse(json);
  if (JSON.stringify(saved) !== json) return ["the conversation does not survive JSON"];
  const agent = new Agent({
    model: scriptedModel([{ text: "resumed" }]),
    tools: adversarialTools(),
  });
  const next = await within(
    agent.run("next", { conversation: saved }).result,
    RUN_TIMEOUT_MS,
    "resume",
  );
  const problems = strictTranscriptProblems(next.conversation.messages).map((p) => `resumed ${p}`);
  if (next.stop !== "done")
    problems.push(`resumed run stopped with ${next.stop}: ${String(next.error)}`);
  if (JSON.stringify(saved) !== json)
    problems.push("the resumed run edited the saved conversation");
  const head = JSON.stringify(next.conversation.messages[0]?.content[0]);
  if (head !== JSON.stringify(saved.messages[0]?.content[0]))
    problems.push("resume moved message 0");
  const { taint } = next.conversation;
  if ((saved.taint.private && !taint.private) || (saved.taint.untrusted && !taint.untrusted)) {
    problems.push("resume lowered the taint");
  }
  return problems;
}

/**
 * Runs a plan on virtual time and returns every broken promise. The same plan always gives the
 * same events, so `FC_SEED=<seed>` (printed by a failing run) replays the failure exactly.
 */
async function planProblems(plan: RunPlan, read: ReadMode): Promise<string[]> {
  try {
    const problems = await onVirtualTime(async () => {
      const observed = await executePlan(plan, read);
      const found = runProblems(plan, observed);
      found.push(...(await resumeProblems(observed.result.conversation)));
      return found;
    });
    await nodeReportedRejections();
    if (unhandled.length > 0) {
      problems.push(`unhandled rejections: ${unhandled.map(String).join("; ")}`);
    }
    return problems;
  } finally {
    // A run that threw is reported by its own error; nothing of it may reach the next plan.
    unhandled = [];
  }
}

/**
 * Waits until Node has reported the rejections nobody handled: it does so only once the
 * current task's microtasks have run, so without this wait a rejection of this plan would be
 * blamed on the next one (after `onVirtualTime`, timers are real again).
 */
function nodeReportedRejections(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe("Agent under adversarial input (property)", () => {
  test("every run ends once, with a valid transcript, a kept taint and no leftovers", async () => {
    await fc.assert(
      fc.asyncProperty(runPlan, fc.constantFrom(...READ_MODES), async (plan, read) => {
        expect(await planProblems(plan, read)).toEqual([]);
      }),
      { numRuns: 250 },
    );
  }, 120_000);
});

/** Every event an agent emits, in order, as its emitter delivers them. */
function recordAll(agent: Agent): AgentEvent[] {
  const events: AgentEvent[] = [];
  const types = ["turn_start", "tool_call", "tool_progress", "tool_result", "done"] as const;
  for (const type of types) agent.on(type, (event: AgentEvent) => events.push(event));
  agent.on("interaction_requested", (event) => events.push(event));
  agent.on("interaction_resolved", (event) => events.push(event));
  return events;
}

// The examples the property shrank to, kept so each bug stays fixed on every seed.
describe("regressions found by the property", () => {
  // Seed -2086454928: a `fetch` call whose approver hangs, in a plan without a signal. The plan
  // generator did not know that `fetch` asks the approver, so nothing aborted the run, which
  // rightly waited forever (A2); the hang then surfaced as an unhandled rejection that the
  // property blamed on a later plan, so the shrunk counterexample passed on its own.
  test("a plan whose approver hangs on an untrusted foreign tool is aborted, and ends", async () => {
    const plan = endable({
      task: "go",
      turns: [{ toolCalls: [{ id: "a", name: "fetch", arguments: { act: "ok" } }] }],
      afterScript: "answer",
      approver: ["hang"],
      concurrency: 1,
      maxTurns: 1,
      interlock: "block",
      markUntrustedOutput: false,
      useSignal: false,
    });
    expect(plan.useSignal).toBe(true);
    expect(await planProblems(plan, "now")).toEqual([]);
  });

  test("the plan generator knows every tool whose call can reach the approver", async () => {
    // The worst case: the batch's `look` and `browse` arm both legs, and `interlock: "ask"`
    // puts every sending call to the approver.
    const asked: string[] = [];
    const model = scriptedModel([
      { toolCalls: KNOWN_TOOLS.map((name) => ({ name, arguments: { act: "ok" } })) },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: adversarialTools(),
      toolsets: adversarialToolsets(),
      interlock: "ask",
      approver: async (request) => {
        asked.push(request.toolName);
        return { type: "allow" };
      },
    });
    expect((await agent.run("go").result).stop).toBe("done");
    expect(asked.sort()).toEqual([...APPROVAL_TOOLS].sort());
  });

  test("a run that fails on virtual time rejects with its own error, never unhandled", async () => {
    const hung = onVirtualTime(() => within(new Promise(() => {}), RUN_TIMEOUT_MS, "run.result"));
    await expect(hung).rejects.toThrow(`run.result did not settle in ${RUN_TIMEOUT_MS} ms`);
    await nodeReportedRejections();
    expect(unhandled).toEqual([]);
  });

  test("a made-up call id never repeats an id the model sent in the same turn", async () => {
    // Shrunk counterexample: the second call has no id and was named `call_1_2`, the first's.
    const plan: RunPlan = {
      task: " ",
      turns: [
        {
          toolCalls: [
            { id: "call_1_2", name: "look", arguments: { act: "ok" } },
            { id: "", name: "look", arguments: { act: "ok" } },
          ],
        },
      ],
      afterScript: "answer",
      approver: [],
      concurrency: 1,
      maxTurns: 1,
      interlock: "block",
      markUntrustedOutput: false,
      useSignal: false,
    };
    expect(await planProblems(plan, "now")).toEqual([]);
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "call_1_2", name: "look", arguments: { act: "ok" } },
          { id: "", name: "look", arguments: { act: "ok" } },
          { id: "call_1_3", name: "look", arguments: { act: "ok" } },
        ],
      },
      { text: "done" },
    ]);
    const { conversation } = await new Agent({ model, tools: adversarialTools() }).run("go").result;
    const uses = conversation.messages[1]?.content.flatMap((b) =>
      b.type === "tool_use" ? [b.id] : [],
    );
    expect(uses).toEqual(["call_1_2", "call_1_3", "call_1_4"]);
  });

  // Shrunk from: an answerer that answers 4 ms late, the run aborted at 0 ms meanwhile. The
  // answer comes once the run is over, or right as the cancelled call reports its result.
  test.each(["after done", "at the call's result"] as const)(
    "an answer that comes after the abort is never announced (%s)",
    async (when) => {
      const answer = createGate();
      const ask = defineTool({
        name: "ask",
        description: "Asks the user",
        readOnly: true,
        interactions: { text: true },
        input: v.object({}),
        call: async (_args, ctx) => `got ${await ctx.requestText("Which one?")}`,
      });
      const model = scriptedModel([{ toolCalls: [{ name: "ask", arguments: {} }] }, { text: "x" }]);
      const controller = new AbortController();
      const agent = new Agent({
        model,
        tools: [ask],
        // Ignores its signal, as a person's dialog may.
        onInteraction: async (request) => {
          await answer.wait();
          return InteractionResponse.submit(request.id, "yes");
        },
      });
      const events = recordAll(agent);
      agent.on("interaction_requested", () => controller.abort());
      if (when === "at the call's result") agent.on("tool_result", () => answer.open());
      const result = await agent.run("go", { signal: controller.signal }).result;
      expect(result.stop).toBe("cancelled");
      answer.open();
      // Long enough, on virtual time, for the late answer to have been delivered if it were.
      await onVirtualTime(() => sleep(5));
      expect(events.map((e) => e.type)).toEqual([
        "turn_start",
        "tool_call",
        "interaction_requested",
        "tool_result",
        "done",
      ]);
    },
  );

  test.each(["read", "unread"] as const)(
    "progress a backend reports after the run ended is dropped (stream %s)",
    async (mode) => {
      let report: StepOptions["onProgress"];
      const release = createGate();
      const started = createGate();
      const toolset = Toolset.fromBackend({
        listTools: async () => [fakeToolInfo("job")],
        toolHandler: async () => ({
          async step(input, options) {
            if (input.type === "cancel") return { type: "completed", result: ToolResult.text("x") };
            report = options?.onProgress;
            started.open();
            await release.wait();
            return { type: "completed", result: ToolResult.text("finished") };
          },
        }),
        shutdown: async () => {},
      });
      const model = scriptedModel([{ toolCalls: [{ name: "job", arguments: {} }] }, { text: "x" }]);
      const agent = new Agent({ model, toolsets: [toolset], approver: modeApprover("allow") });
      const events = recordAll(agent);
      const controller = new AbortController();
      void started.wait().then(() => controller.abort());
      const run = agent.run("go", { signal: controller.signal });
      // Taken at once: with listeners on the agent, a stream taken later would hold nothing.
      const stream = run.events;
      const streamed: AgentEvent[] = [];
      if (mode === "read") for await (const event of run) streamed.push(event);
      expect((await run.result).stop).toBe("cancelled");
      // The backend ignores the cancel and reports on; before the fix this threw into it
      // (the stream was closed) or reached the emitter after `done`.
      expect(report).toBeDefined();
      expect(() => report?.({ progress: 1 })).not.toThrow();
      release.open();
      if (mode === "unread") for await (const event of stream) streamed.push(event);
      expect(streamed.at(-1)?.type).toBe("done");
      expect(events.at(-1)?.type).toBe("done");
    },
  );
});
