// Pausing, killing and resuming runs at random points (docs/design.md A9), on virtual time:
// each generated plan is a few turns of calls (read-only, writing, asking, idempotent) and a
// list of interruptions, each a kill (after the n-th checkpoint, or after some virtual ms: the
// process is gone, its tools never finish, only the last checkpoint it handed over survives)
// or a pause at an approval or a question. Every interruption is followed by a resume on a new
// Agent (a new page load) from the last snapshot, until a run ends. Then: no `tool_use` is left
// without exactly one result, no call of a tool that is neither read-only nor idempotent
// started or completed twice, and every such call that started and never completed is
// reported interrupted.
// `FC_SEED=<seed>` replays a failure (design.md, "Property tests and replaying a seed").
import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent, type AgentRun, type RunSnapshot } from "../../src/agent/index.ts";
import { defineTool, InteractionResponse, type Tool } from "../../src/index.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/index.ts";
import { onVirtualTime } from "../support/adversarial-run.ts";
import { strictTranscriptProblems } from "../support/agent-invariants.ts";

const SECRET = "a-property-secret-of-at-least-32-chars";
const KINDS = ["read", "write", "ask", "idem"] as const;
type Kind = (typeof KINDS)[number];

interface PlannedCall {
  kind: Kind;
  /** Virtual ms the tool works. */
  delay: number;
  deny: boolean;
}

type Interruption =
  | { type: "kill_at_checkpoint"; n: number }
  | { type: "kill_after_ms"; ms: number }
  | { type: "pause"; at: number };

interface Plan {
  turns: PlannedCall[][];
  interruptions: Interruption[];
  sequential: boolean;
}

const planArb: fc.Arbitrary<Plan> = fc.record({
  turns: fc.array(
    fc.array(
      fc.record({
        kind: fc.constantFrom(...KINDS),
        delay: fc.integer({ min: 0, max: 20 }),
        // One approval in five is denied.
        deny: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    { minLength: 1, maxLength: 3 },
  ),
  interruptions: fc.array(
    fc.oneof(
      fc.record({
        type: fc.constant("kill_at_checkpoint" as const),
        n: fc.integer({ min: 1, max: 8 }),
      }),
      fc.record({
        type: fc.constant("kill_after_ms" as const),
        ms: fc.integer({ min: 0, max: 40 }),
      }),
      fc.record({ type: fc.constant("pause" as const), at: fc.integer({ min: 1, max: 3 }) }),
    ),
    { minLength: 2, maxLength: 6 },
  ),
  sequential: fc.boolean(),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const idOf = (turn: number, index: number) => `t${turn}c${index}`;

/** What every incarnation of the plan's run did, by call id. */
interface Ledger {
  started: Map<string, number>;
  completed: Map<string, number>;
  kinds: Map<string, Kind>;
}

const bump = (map: Map<string, number>, id: string) => map.set(id, (map.get(id) ?? 0) + 1);

/** The tools of one incarnation: they record into the ledger and never finish once it died. */
function toolsFor(plan: Plan, ledger: Ledger, alive: () => boolean): Tool[] {
  const work =
    (kind: Kind) =>
    async (_input: unknown, ctx: { callId?: string; requestText(p: string): Promise<string> }) => {
      const id = ctx.callId as string;
      bump(ledger.started, id);
      ledger.kinds.set(id, kind);
      const call = plannedCall(plan, id);
      if (kind === "ask") await ctx.requestText("Go on?");
      await sleep(call?.delay ?? 0);
      // A dead process never finishes what it was doing.
      if (!alive()) return new Promise(() => {});
      bump(ledger.completed, id);
      return `${kind} ${id} done`;
    };
  const input = v.object({});
  return [
    defineTool({ name: "read", description: "Reads", readOnly: true, input, call: work("read") }),
    defineTool({ name: "write", description: "Writes", input, call: work("write") }),
    defineTool({
      name: "ask",
      description: "Asks, then writes",
      input,
      interactions: { text: true },
      call: work("ask"),
    }),
    defineTool({
      name: "idem",
      description: "Writes idempotently",
      input,
      annotations: { idempotentHint: true },
      call: work("idem"),
    }),
  ];
}

function plannedCall(plan: Plan, id: string): PlannedCall | undefined {
  const [, turn, index] = /^t(\d+)c(\d+)$/.exec(id) ?? [];
  return plan.turns[Number(turn)]?.[Number(index)];
}

/** A model that decides from the transcript alone, as one after a reload must. */
function modelFor(plan: Plan) {
  return scriptedModel((request) => {
    const turn = request.messages.filter((message) => message.role === "assistant").length;
    const calls = plan.turns[turn];
    if (!calls || request.toolChoice === "none") return { text: "finished" };
    const scripted: ScriptedTurn = {
      toolCalls: calls.map((call, index) => ({
        id: idOf(turn, index),
        name: call.kind,
        arguments: {},
      })),
    };
    return scripted;
  });
}

let points = 0;

/** Runs a plan through its interruptions to the end; returns the problems found. */
async function runThrough(plan: Plan): Promise<string[]> {
  const ledger: Ledger = { started: new Map(), completed: new Map(), kinds: new Map() };
  const model = modelFor(plan);
  let latest: string | undefined;
  let resumeFrom:
    | { snapshot: RunSnapshot; decisions: Record<string, { type: "allow" }> }
    | undefined;
  const pending = [...plan.interruptions];
  for (let incarnation = 0; incarnation < 20; incarnation++) {
    const interruption = pending.shift();
    let dead = false;
    let checkpoints = 0;
    let pauses = 0;
    const killer = new AbortController();
    let killed: () => void = () => {};
    const death = new Promise<"killed">((resolve) => {
      killed = () => resolve("killed");
    });
    const kill = () => {
      if (dead) return;
      dead = true;
      points++;
      killer.abort("killed");
      killed();
    };
    const agent = new Agent({
      model,
      tools: toolsFor(plan, ledger, () => !dead),
      snapshots: { secret: SECRET },
      concurrency: plan.sequential ? "sequential" : "read-only-parallel",
      approver: async (request, signal) => {
        await sleep(1);
        signal.throwIfAborted();
        const call = plannedCall(plan, request.callId);
        return call?.deny ? { type: "deny", reason: "no" } : { type: "allow" };
      },
      onInteraction: async (request, signal) => {
        await sleep(2);
        signal.throwIfAborted();
        return InteractionResponse.submit(request.id, "yes");
      },
    });
    let run: AgentRun | undefined;
    const maybePause = () => {
      if (interruption?.type !== "pause" || dead) return;
      pauses++;
      if (pauses !== interruption.at) return;
      try {
        run?.pause();
        points++;
      } catch {
        // Nothing to pause at; the interruption is spent.
      }
    };
    agent.on("approval_requested", maybePause);
    agent.on("interaction_requested", maybePause);
    const options = {
      signal: killer.signal,
      onCheckpoint: (snapshot: RunSnapshot) => {
        // A dead process hands nothing over, and starts nothing.
        if (dead) throw new Error("dead");
        latest = JSON.stringify(snapshot);
        checkpoints++;
        if (interruption?.type === "kill_at_checkpoint" && checkpoints === interruption.n) kill();
      },
    };
    run = resumeFrom
      ? agent.resume(resumeFrom.snapshot, { ...options, decisions: resumeFrom.decisions })
      : latest
        ? agent.resume(JSON.parse(latest), options)
        : agent.run("Do the plan", options);
    resumeFrom = undefined;
    if (interruption?.type === "kill_after_ms") setTimeout(kill, interruption.ms);
    const ended = await Promise.race([run.result, death]);
    if (ended === "killed") continue;
    if (ended.stop === "paused") {
      const snapshot: RunSnapshot = JSON.parse(JSON.stringify(ended.snapshot));
      latest = JSON.stringify(snapshot);
      // Decide the waiting approvals while paused, as a person after a reload would.
      const decisions: Record<string, { type: "allow" }> = {};
      for (const call of snapshot.body.calls) {
        if (call.state === "waiting" && "approval" in call) decisions[call.id] = { type: "allow" };
      }
      resumeFrom = { snapshot, decisions };
      continue;
    }
    if (ended.stop === "error") return [`the run failed: ${String(ended.error)}`];
    return problemsOf(ledger, ended.conversation.messages);
  }
  return ["the run never ended"];
}

function problemsOf(
  ledger: Ledger,
  messages: Parameters<typeof strictTranscriptProblems>[0],
): string[] {
  const problems = strictTranscriptProblems(messages).map((p) => `orphan: ${p}`);
  const results = new Map<string, string>();
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      const first = block.content[0];
      results.set(block.toolUseId, first?.type === "text" ? first.text : "");
    }
  }
  for (const [id, started] of ledger.started) {
    const kind = ledger.kinds.get(id);
    const completed = ledger.completed.get(id) ?? 0;
    // A read-only or idempotent call found running may run again; nothing else may.
    const rerunnable = kind === "idem" || kind === "read";
    if (!rerunnable && completed > 1) problems.push(`${id} (${kind}) completed ${completed} times`);
    if (!rerunnable && started > 1) problems.push(`${id} (${kind}) started ${started} times`);
    const reported = results.get(id) ?? "";
    if (!rerunnable && completed === 0 && !reported.startsWith("Interrupted:")) {
      problems.push(`${id} (${kind}) started and never completed, but reads "${reported}"`);
    }
  }
  return problems;
}

describe("pause, kill and resume at random points", () => {
  test("never leaves an orphan call, never runs a call twice, reports every interrupted call", async () => {
    points = 0;
    await fc.assert(
      fc.asyncProperty(planArb, async (plan) => {
        const problems = await onVirtualTime(() => runThrough(plan));
        expect(problems).toEqual([]);
      }),
      { numRuns: 600 },
    );
    expect(points).toBeGreaterThanOrEqual(1000);
  }, 120_000);
});
