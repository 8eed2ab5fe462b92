/**
 * A Worker that runs agents whose runs are kept in a Durable Object's storage (design.md A10).
 * test/node/durable-runs-workerd.test.ts bundles it and runs it in Miniflare as four Workers,
 * each its own isolate: `store` holds the `RunStore` object; `a`, `b` and `c` run agents, `a`
 * and `b` with the same `SECRET`, `c` with another. They share nothing but the store (and, for
 * `a` and `b`, the key).
 *
 * - `POST /start` starts a run whose approver pauses it; answers `{ id, stop }`.
 * - `POST /resume` with `{ id }` resumes run `id` by id, allowing its pending call; answers
 *   `{ stop, text, error }`.
 * - `GET /effects` answers how often the tool took effect (kept in the store, so every
 *   isolate sees it).
 */
import * as v from "valibot";
import { Agent, type AgentRun } from "../../src/agent/index.ts";
import { defineTool, isToolError, type Store } from "../../src/index.ts";
import { scriptedModel } from "../../src/models/index.ts";
import { StoreObject, sharedStore } from "./shared-store.ts";

interface Env {
  SECRET: string;
  STORE: DurableObjectNamespace<RunStore>;
}

/** The records' store, shared by every isolate (`shared-store.ts`). */
export class RunStore extends StoreObject {}

function runStore(env: Env): Store {
  return sharedStore(env.STORE, "runs");
}

function agentFor(env: Env, pausing: { run?: AgentRun }): Agent {
  const store = runStore(env);
  const pay = defineTool({
    name: "pay",
    description: "Pays an amount",
    input: v.object({ amount: v.number() }),
    call: async ({ amount }) => {
      const effects = Number((await store.get("effects")) ?? "0");
      await store.put("effects", String(effects + 1));
      return `paid ${amount}`;
    },
  });
  // Decides from the transcript alone, so any instance continues the run where it stands.
  const model = scriptedModel((request) =>
    request.messages.some((message) => message.role === "assistant")
      ? { text: "paid" }
      : { toolCalls: [{ id: "c1", name: "pay", arguments: { amount: 7 } }] },
  );
  return new Agent({
    model,
    tools: [pay],
    snapshots: { secret: env.SECRET, store },
    approver: (_request, signal) => {
      // The person answers later, perhaps through another isolate.
      pausing.run?.pause();
      return new Promise((_resolve, reject) => signal.addEventListener("abort", reject));
    },
  });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/effects") {
      return Response.json({ effects: Number((await runStore(env).get("effects")) ?? "0") });
    }
    const pausing: { run?: AgentRun } = {};
    const agent = agentFor(env, pausing);
    if (pathname === "/start") {
      const run = agent.run("Pay 7");
      pausing.run = run;
      const result = await run.result;
      return Response.json({ id: run.id, stop: result.stop });
    }
    if (pathname === "/resume") {
      const { id } = (await request.json()) as { id: string };
      const result = await agent.resume(id, { decisions: { c1: { type: "allow" } } }).result;
      const error = isToolError(result.error)
        ? { type: result.error.type, message: result.error.message }
        : undefined;
      return Response.json({ stop: result.stop, text: result.text, error });
    }
    return new Response("not found", { status: 404 });
  },
};
