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
  extractiveSummarizer,
  modeApprover,
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

/** A read-only `page` tool whose result for page `n` is `page <n>: ` and `words` words. */
function pageTool(words: number) {
  return defineTool({
    name: "page",
    description: "Reads a page",
    readOnly: true,
    input: v.object({ n: v.number() }),
    call: ({ n }) => `page ${n}: ${"text ".repeat(words)}`,
  });
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

describe("checkpoints of a run that compacts", () => {
  it("resume from every checkpoint, before and after compaction swapped messages", async () => {
    const page = pageTool(200);
    // Reads the next page after the last one the transcript shows (a summary keeps the last
    // two messages), so a resumed run on a new agent goes on where the checkpoint was.
    const model = scriptedModel((request) => {
      const read = [...JSON.stringify(request.messages).matchAll(/page (\d+):/g)];
      const next = Math.max(-1, ...read.map((match) => Number(match[1]))) + 1;
      if (next === 12) return { text: "all read" };
      return { toolCalls: [{ id: `r${next}`, name: "page", arguments: { n: next } }] };
    });
    const settings = {
      model,
      tools: [page],
      approver: modeApprover("allow"),
      compaction: { thresholdTokens: 800, keepRecent: 2, summarizer: extractiveSummarizer() },
      snapshots: { secret: SECRET },
    };
    const checkpoints: RunSnapshot[] = [];
    const compactedAt: number[] = [];
    const agent = new Agent(settings);
    agent.on("compacted", () => compactedAt.push(checkpoints.length));
    const result = await agent.run("Read twelve pages", {
      onCheckpoint: (snapshot) => {
        // Snapshots share their messages: frozen, so an app's edit cannot reach another one.
        expect(Object.isFrozen(snapshot.body.conversation.messages[0])).toBe(true);
        checkpoints.push(json(snapshot));
      },
    }).result;
    expect(result.stop).toBe("done");
    // Checkpoints before the first compaction, and after it (messages swapped in).
    expect(compactedAt[0]).toBeGreaterThan(0);
    expect(checkpoints.length).toBeGreaterThan(compactedAt[0] as number);
    for (const checkpoint of checkpoints) {
      const resumed = await new Agent(settings).resume(checkpoint).result;
      expect(resumed.stop).toBe("done");
    }
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

  // A checkpoint signs only what changed since the last one (design.md A9): the messages go by
  // blocks of about 16 KB, each hashed once. A change to any of them, in a closed block or the
  // open one, must still be refused.
  it("refuses a long run's snapshot with an earlier message edited, swapped or dropped", async () => {
    const { tools } = shop();
    const page = pageTool(2_000);
    const reads = Array.from({ length: 8 }, (_, n) => ({
      toolCalls: [{ id: `r${n}`, name: "page", arguments: { n } }],
    }));
    const model = modelFor([
      ...reads,
      { toolCalls: [{ id: "c1", name: "pay", arguments: { amount: 1 } }] },
    ]);
    let run: ReturnType<Agent["run"]> | undefined;
    const agent = new Agent({
      model,
      tools: [...tools, page],
      snapshots: { secret: SECRET },
      approver: (request) => {
        if (request.toolName === "page") return allow();
        run?.pause();
        return new Promise(() => {});
      },
    });
    run = agent.run("Read eight pages, then pay 1");
    const snapshot = json((await run.result).snapshot);
    const messages = snapshot.body.conversation.messages;
    expect(messages).toHaveLength(18);
    expect(JSON.stringify(messages).length).toBeGreaterThan(80_000);

    const tampered = (
      change: (messages: RunSnapshot["body"]["conversation"]["messages"]) => void,
    ) => {
      const copy = json(snapshot);
      change(copy.body.conversation.messages);
      return copy;
    };
    // Changes of the same length, so every block keeps its messages' sizes.
    const edited = tampered((m) => {
      m[2] = JSON.parse(JSON.stringify(m[2]).replace("page 0:", "page 7:"));
    });
    const swapped = tampered((m) => {
      [m[2], m[4]] = [m[4] as (typeof m)[number], m[2] as (typeof m)[number]];
    });
    const dropped = tampered((m) => m.splice(3, 2));
    const last = tampered((m) => {
      m[m.length - 1] = { role: "assistant", content: [{ type: "text", text: "no call" }] };
    });
    for (const changed of [edited, swapped, dropped, last]) {
      expect((await refusal(changed)).message).toContain("signature does not match");
    }
    const resumer = new Agent({ model, tools: [...tools, page], snapshots: { secret: SECRET } });
    const resumed = await resumer.resume(snapshot, { decisions: { c1: { type: "allow" } } }).result;
    expect(resumed.stop).toBe("done");
  });

  it("refuses a snapshot of another format", async () => {
    const snapshot = await pausedSnapshot();
    const old = json(snapshot);
    (old.body as { format: string }).format = "toolwire/run-snapshot/1";
    expect((await refusal(old)).message).toContain("format is not toolwire/run-snapshot/2");
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
