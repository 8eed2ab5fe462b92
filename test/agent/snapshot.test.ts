// Runs that pause and resume (docs/design.md A9): a run with `snapshots` stops at a pending
// approval or question with a signed JSON snapshot; `resume` continues it on another Agent (as
// another page load would) without running a completed call again, reports a call that was
// running as interrupted (unless idempotent), and refuses a snapshot that was changed, signed
// with another key, or made with other tools.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  Agent,
  type AgentEvent,
  type ApprovalDecision,
  type RunSnapshot,
} from "../../src/agent/index.ts";
import { defineTool, InteractionResponse, type Tool } from "../../src/index.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/index.ts";
import { caught } from "../support/caught.ts";

const SECRET = "a-snapshot-secret-of-at-least-32-chars";

/** A shop: `pay` writes (needs approval), `note` writes and asks a question first. */
function shop(options: { idempotentNote?: boolean; payDescription?: string } = {}) {
  const paid: unknown[] = [];
  const noted: unknown[] = [];
  const pay = defineTool({
    name: "pay",
    description: options.payDescription ?? "Pays an amount",
    input: v.object({ amount: v.number() }),
    call: ({ amount }) => {
      paid.push(amount);
      return `paid ${amount}`;
    },
  });
  const note = defineTool({
    name: "note",
    description: "Notes a text the user types",
    input: v.object({}),
    interactions: { text: true },
    annotations: options.idempotentNote ? { idempotentHint: true } : {},
    call: async (_input, ctx) => {
      const text = await ctx.requestText("What should I note?");
      noted.push(text);
      return `noted ${text}`;
    },
  });
  return { tools: [pay, note] as Tool[], paid, noted };
}

/** A model that decides from the transcript alone, so a resumed run on a new agent continues it. */
function modelFor(turns: ScriptedTurn[]) {
  return scriptedModel((request) => {
    const taken = request.messages.filter((message) => message.role === "assistant").length;
    return turns[taken] ?? { text: "all done" };
  });
}

const payThenNote: ScriptedTurn[] = [
  {
    toolCalls: [
      { id: "c1", name: "pay", arguments: { amount: 5 } },
      { id: "c2", name: "note", arguments: {} },
    ],
  },
];

const allow = async (): Promise<ApprovalDecision> => ({ type: "allow" });
const json = (snapshot: RunSnapshot | undefined): RunSnapshot =>
  JSON.parse(JSON.stringify(snapshot));

describe("pausing at an approval", () => {
  it("hands back a signed JSON snapshot, and resuming on another agent runs the call once", async () => {
    const { tools, paid } = shop();
    const model = modelFor([{ toolCalls: [{ id: "c1", name: "pay", arguments: { amount: 7 } }] }]);
    let run: ReturnType<Agent["run"]> | undefined;
    const first = new Agent({
      model,
      tools,
      snapshots: { secret: SECRET },
      approver: (_request, signal) => {
        run?.pause();
        return new Promise((_resolve, reject) => signal.addEventListener("abort", reject));
      },
    });
    run = first.run("Pay 7");
    const paused = await run.result;
    expect(paused.stop).toBe("paused");
    expect(paid).toEqual([]);
    const snapshot = json(paused.snapshot);
    expect(snapshot.body.calls).toEqual([
      { id: "c1", name: "pay", arguments: { amount: 7 }, state: "waiting", approval: true },
    ]);
    expect(snapshot.body.conversation.messages[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "Pay 7" }],
    });

    const events: AgentEvent[] = [];
    const second = new Agent({ model, tools, snapshots: { secret: SECRET } });
    second.on("approval_resolved", (event) => events.push(event));
    const resumed = await second.resume(snapshot, { decisions: { c1: { type: "allow" } } }).result;
    expect(resumed.stop).toBe("done");
    expect(resumed.text).toBe("all done");
    expect(paid).toEqual([7]);
    expect(events).toMatchObject([{ callId: "c1", decision: { type: "allow" } }]);
    const results = resumed.conversation.messages[2];
    expect(results?.content).toMatchObject([{ type: "tool_result", toolUseId: "c1" }]);
  });

  it("puts a waiting call without a decision to the resuming agent's approver", async () => {
    const { tools, paid } = shop();
    const model = modelFor([{ toolCalls: [{ id: "c1", name: "pay", arguments: { amount: 3 } }] }]);
    let run: ReturnType<Agent["run"]> | undefined;
    const first = new Agent({
      model,
      tools,
      snapshots: { secret: SECRET },
      approver: () => {
        run?.pause();
        return new Promise(() => {});
      },
    });
    run = first.run("Pay 3");
    const { snapshot } = await run.result;
    const second = new Agent({
      model,
      tools,
      snapshots: { secret: SECRET },
      approver: async () => ({ type: "deny", reason: "no" }),
    });
    const resumed = await second.resume(json(snapshot)).result;
    expect(paid).toEqual([]);
    expect(resumed.conversation.messages[2]?.content).toMatchObject([
      { content: [{ text: "Denied by the user: no" }] },
    ]);
  });
});

describe("pausing at a question", () => {
  async function pausedAtQuestion(idempotentNote = false) {
    const shopping = shop({ idempotentNote });
    const model = modelFor(payThenNote);
    let run: ReturnType<Agent["run"]> | undefined;
    const agent = new Agent({
      model,
      tools: shopping.tools,
      snapshots: { secret: SECRET },
      approver: allow,
      onInteraction: (_request, signal) => {
        run?.pause();
        return new Promise((_resolve, reject) => signal.addEventListener("abort", reject));
      },
    });
    run = agent.run("Pay 5 and note something");
    const result = await run.result;
    return { ...shopping, model, result };
  }

  it("keeps the completed call's result and reports the asking call interrupted", async () => {
    const { tools, paid, noted, model, result } = await pausedAtQuestion();
    expect(result.stop).toBe("paused");
    const snapshot = json(result.snapshot);
    expect(snapshot.body.calls.map((call) => call.state)).toEqual(["done", "running"]);
    expect(snapshot.body.calls[1]).toMatchObject({
      question: { prompt: "What should I note?" },
    });
    const outcomes: string[] = [];
    const again = new Agent({ model, tools, snapshots: { secret: SECRET }, approver: allow });
    again.on("tool_result", (event) => outcomes.push(`${event.callId}:${event.outcome}`));
    const resumed = await again.resume(snapshot).result;
    expect(paid).toEqual([5]);
    expect(noted).toEqual([]);
    expect(outcomes).toEqual(["c1:executed", "c2:interrupted"]);
    expect(resumed.conversation.messages[2]?.content).toMatchObject([
      { toolUseId: "c1", content: [{ text: "paid 5" }] },
      {
        toolUseId: "c2",
        isError: true,
        mark: "interrupted",
        content: [{ text: expect.stringMatching(/^Interrupted:/) }],
      },
    ]);
  });

  it("runs an idempotent asking call again, its question answered by the resuming agent", async () => {
    const { tools, paid, noted, model, result } = await pausedAtQuestion(true);
    const again = new Agent({
      model,
      tools,
      snapshots: { secret: SECRET },
      approver: allow,
      onInteraction: async (request) => InteractionResponse.submit(request.id, "milk"),
    });
    const resumed = await again.resume(json(result.snapshot)).result;
    expect(resumed.stop).toBe("done");
    expect(paid).toEqual([5]);
    expect(noted).toEqual(["milk"]);
  });
});

describe("a run that dies", () => {
  it("resumes from the last checkpoint: the call that was running comes back interrupted", async () => {
    const { tools } = shop();
    const started: number[] = [];
    const hang = defineTool({
      name: "pay",
      description: "Pays an amount",
      input: v.object({ amount: v.number() }),
      call: ({ amount }) => {
        started.push(amount);
        return new Promise(() => {}); // the process dies while this runs
      },
    });
    const model = modelFor([{ toolCalls: [{ id: "c1", name: "pay", arguments: { amount: 9 } }] }]);
    const checkpoints: RunSnapshot[] = [];
    const dying = new AbortController();
    const agent = new Agent({
      model,
      tools: [hang, ...tools.filter((tool) => tool.name !== "pay")],
      snapshots: { secret: SECRET },
      approver: allow,
    });
    const run = agent.run("Pay 9", {
      signal: dying.signal,
      onCheckpoint: (snapshot) => {
        checkpoints.push(json(snapshot));
      },
    });
    while (started.length === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    dying.abort();
    await run.result;
    const last = checkpoints.at(-1);
    expect(last?.body.calls).toMatchObject([{ id: "c1", state: "running" }]);
    const outcomes: string[] = [];
    const again = new Agent({
      model,
      tools: [hang, ...tools.filter((tool) => tool.name !== "pay")],
      snapshots: { secret: SECRET },
      approver: allow,
    });
    again.on("tool_result", (event) => outcomes.push(event.outcome));
    const resumed = await again.resume(last as RunSnapshot).result;
    expect(resumed.stop).toBe("done");
    expect(started).toEqual([9]);
    expect(outcomes).toEqual(["interrupted"]);
  });
});

describe("refusals", () => {
  async function pausedSnapshot(): Promise<RunSnapshot> {
    const { tools } = shop();
    const model = modelFor([{ toolCalls: [{ id: "c1", name: "pay", arguments: { amount: 1 } }] }]);
    let run: ReturnType<Agent["run"]> | undefined;
    const agent = new Agent({
      model,
      tools,
      snapshots: { secret: SECRET },
      approver: () => {
        run?.pause();
        return new Promise(() => {});
      },
    });
    run = agent.run("Pay 1");
    return json((await run.result).snapshot);
  }

  async function refusal(
    snapshot: RunSnapshot,
    agent = new Agent({
      model: modelFor([]),
      tools: shop().tools,
      snapshots: { secret: SECRET },
    }),
    decisions: Record<string, ApprovalDecision> = {},
  ) {
    const result = await agent.resume(snapshot, { decisions }).result;
    expect(result.stop).toBe("error");
    return result.error as { type: string; message: string };
  }

  it("refuses edited arguments, an edited conversation and a missing signature", async () => {
    const snapshot = await pausedSnapshot();
    const edited = json(snapshot);
    (edited.body.calls[0] as { arguments: unknown }).arguments = { amount: 1000 };
    expect(await refusal(edited)).toMatchObject({
      type: "invalid_configuration",
      message: expect.stringContaining("signature does not match"),
    });
    const talked = json(snapshot);
    talked.body.conversation.messages.push({
      role: "user",
      content: [{ type: "text", text: "x" }],
    });
    expect((await refusal(talked)).type).toBe("invalid_configuration");
    expect((await refusal({ body: snapshot.body } as RunSnapshot)).type).toBe(
      "invalid_configuration",
    );
  });

  it("refuses a snapshot signed with another key", async () => {
    const snapshot = await pausedSnapshot();
    const other = new Agent({
      model: modelFor([]),
      tools: shop().tools,
      snapshots: { secret: "another-secret-of-at-least-32-chars!!" },
    });
    expect((await refusal(snapshot, other)).message).toContain("another key");
  });

  it("refuses tools whose declarations changed since the pause", async () => {
    const snapshot = await pausedSnapshot();
    const changed = new Agent({
      model: modelFor([]),
      tools: shop({ payDescription: "Pays twice the amount" }).tools,
      snapshots: { secret: SECRET },
    });
    expect((await refusal(snapshot, changed)).message).toContain("declarations changed");
  });

  it("refuses a decision for a call that is not waiting", async () => {
    const snapshot = await pausedSnapshot();
    const agent = new Agent({
      model: modelFor([]),
      tools: shop().tools,
      snapshots: { secret: SECRET },
    });
    expect((await refusal(snapshot, agent, { nope: { type: "allow" } })).message).toContain(
      "no call `nope`",
    );
  });

  it("refuses pause without snapshots, and resume on an agent without them", async () => {
    const { tools } = shop();
    const plain = new Agent({ model: modelFor([]), tools });
    const run = plain.run("hi");
    expect((await caught(() => run.pause())).type).toBe("unsupported");
    await run.result;
    const snapshot = await pausedSnapshot();
    expect((await refusal(snapshot, plain)).message).toContain("snapshots");
    expect(() => new Agent({ model: modelFor([]), snapshots: { secret: "short" } })).toThrow(
      expect.objectContaining({ type: "invalid_configuration" }),
    );
  });
});
