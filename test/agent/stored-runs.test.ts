// Runs kept in a Store (docs/design.md A10): with `snapshots.store` a run's latest snapshot is
// kept under `run.id`, `agent.resume(id)` claims and continues it on another agent (as another
// tab or isolate would), two instances resuming it at once cannot both go on, and an instance
// that lost its claim stops before its next call starts.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { Agent, type AgentRun, type ApprovalDecision } from "../../src/agent/index.ts";
import { defineTool, isToolError, memoryStore, type Store } from "../../src/index.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/index.ts";

const SECRET = "a-snapshot-secret-of-at-least-32-chars";

/** `pay` writes (so it needs approval) and counts its effects. */
function payTool() {
  const paid: number[] = [];
  const pay = defineTool({
    name: "pay",
    description: "Pays an amount",
    input: v.object({ amount: v.number() }),
    call: ({ amount }) => {
      paid.push(amount);
      return `paid ${amount}`;
    },
  });
  return { pay, paid };
}

/** A model that decides from the transcript alone, so another agent can continue the run. */
function modelFor(turns: ScriptedTurn[]) {
  return scriptedModel((request) => {
    const taken = request.messages.filter((message) => message.role === "assistant").length;
    return turns[taken] ?? { text: "all done" };
  });
}

const payOnce = modelFor([{ toolCalls: [{ id: "c1", name: "pay", arguments: { amount: 7 } }] }]);

/** An agent on `store` whose approver pauses the run (the person will answer later). */
function pausingAgent(store: Store, pay: ReturnType<typeof payTool>["pay"]) {
  let run: AgentRun | undefined;
  const agent = new Agent({
    model: payOnce,
    tools: [pay],
    snapshots: { secret: SECRET, store },
    approver: (_request, signal) => {
      run?.pause();
      return new Promise<ApprovalDecision>((_resolve, reject) =>
        signal.addEventListener("abort", reject),
      );
    },
  });
  return {
    start: (runId?: string) => {
      run = agent.run("Pay 7", runId === undefined ? {} : { runId });
      return run;
    },
  };
}

/** Another instance: same tools, secret and store, nothing else shared. */
function laterAgent(store: Store, pay: ReturnType<typeof payTool>["pay"], secret = SECRET) {
  return new Agent({ model: payOnce, tools: [pay], snapshots: { secret, store } });
}

describe("a run kept in a store", () => {
  it("pauses into the store under run.id and resumes there by id, running the call once", async () => {
    const store = memoryStore();
    const { pay, paid } = payTool();
    const run = pausingAgent(store, pay).start();
    expect(run.id).toMatch(/^[0-9a-f-]{36}$/);
    const paused = await run.result;
    expect(paused.stop).toBe("paused");
    const kept = JSON.parse((await store.get(`toolwire/run/${run.id}`)) ?? "{}");
    expect(kept.snapshot).toEqual(JSON.parse(JSON.stringify(paused.snapshot)));

    const resumed = laterAgent(store, pay).resume(run.id as string, {
      decisions: { c1: { type: "allow" } },
    });
    expect(resumed.id).toBe(run.id);
    const result = await resumed.result;
    expect(result.stop).toBe("done");
    expect(paid).toEqual([7]);
    // It ended: the store says so, and nothing resumes it again.
    expect(JSON.parse((await store.get(`toolwire/run/${run.id}`)) ?? "{}")).toMatchObject({
      ended: "done",
    });
    const again = await laterAgent(store, pay).resume(run.id as string).result;
    expect(again.stop).toBe("error");
    expect(isToolError(again.error) && again.error.message).toMatch(/ended \(done\)/);
    expect(paid).toEqual([7]);
  });

  it("lets exactly one of two instances resuming at once go on", async () => {
    const store = memoryStore();
    const { pay, paid } = payTool();
    const first = pausingAgent(store, pay).start("order-1");
    expect(first.id).toBe("order-1");
    expect((await first.result).stop).toBe("paused");
    const decisions = { c1: { type: "allow" } as const };
    const [a, b] = await Promise.all([
      laterAgent(store, pay).resume("order-1", { decisions }).result,
      laterAgent(store, pay).resume("order-1", { decisions }).result,
    ]);
    expect([a.stop, b.stop].sort()).toEqual(["done", "error"]);
    const refused = a.stop === "error" ? a : b;
    expect(isToolError(refused.error) && refused.error.message).toMatch(
      /resumed by another instance first/,
    );
    expect(paid).toEqual([7]);
  });

  it("stops an instance that lost its claim before its next call starts", async () => {
    const store = memoryStore();
    const { pay, paid } = payTool();
    let decide: ((decision: ApprovalDecision) => void) | undefined;
    const first = new Agent({
      model: payOnce,
      tools: [pay],
      snapshots: { secret: SECRET, store },
      approver: () => new Promise((resolve) => (decide = resolve)),
    });
    const run = first.run("Pay 7", { runId: "tab-a" });
    while (decide === undefined) await new Promise((resolve) => setTimeout(resolve, 0));
    // The first tab still shows the approval when another tab takes the run over and pays.
    const other = await laterAgent(store, pay).resume("tab-a", {
      decisions: { c1: { type: "allow" } },
    }).result;
    expect(other.stop).toBe("done");
    decide?.({ type: "allow" });
    const result = await run.result;
    expect(result.stop).toBe("error");
    expect(isToolError(result.error) && result.error.message).toMatch(
      /resumed by another instance; this one stops/,
    );
    expect(paid).toEqual([7]);
  });

  it("refuses a run id the store already holds, an unknown id, and another key", async () => {
    const store = memoryStore();
    const { pay, paid } = payTool();
    await pausingAgent(store, pay).start("taken").result;
    const reused = await pausingAgent(store, pay).start("taken").result;
    expect(reused.stop).toBe("error");
    expect(isToolError(reused.error) && reused.error.message).toMatch(
      /already holds a run `taken`/,
    );

    const unknown = await laterAgent(store, pay).resume("nobody").result;
    expect(isToolError(unknown.error) && unknown.error.message).toMatch(/no run `nobody`/);

    const stranger = laterAgent(store, pay, "another-secret-of-at-least-32-chars!");
    const refused = await stranger.resume("taken", { decisions: { c1: { type: "allow" } } }).result;
    expect(isToolError(refused.error) && refused.error.type).toBe("invalid_configuration");
    expect(isToolError(refused.error) && refused.error.message).toMatch(/signature does not match/);
    // The refusal left the run as it was: the right key still resumes it.
    const resumed = await laterAgent(store, pay).resume("taken", {
      decisions: { c1: { type: "allow" } },
    }).result;
    expect(resumed.stop).toBe("done");
    expect(paid).toEqual([7]);
  });

  it("refuses a store that is not one, and resume by id without a store", async () => {
    expect(
      () => new Agent({ model: payOnce, snapshots: { secret: SECRET, store: {} as Store } }),
    ).toThrow(/snapshots.store must be a Store/);
    const plain = new Agent({ model: payOnce, snapshots: { secret: SECRET } });
    const result = await plain.resume("order-1").result;
    expect(isToolError(result.error) && result.error.message).toMatch(
      /needs an agent with `snapshots.store`/,
    );
  });
});
