import * as v from "valibot";
import { describe, expect, test } from "vitest";
import type { AgentEvent } from "../../src/agent/events.ts";
import { type ExecutionContext, executeCall } from "../../src/agent/execute-call.ts";
import {
  defineTool,
  InteractionResponse,
  type Tool,
  type ToolContext,
  ToolError,
  Toolset,
} from "../../src/index.ts";
import { createGate } from "../support/gate.ts";

async function route(tool: Tool) {
  const toolset = Toolset.local([tool]);
  const [info] = await toolset.listTools();
  if (!info) throw new Error("no tool");
  return { info, toolset };
}

function context(overrides: Partial<ExecutionContext> = {}) {
  const events: AgentEvent[] = [];
  const ctx: ExecutionContext = {
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    onInteraction: undefined,
    markUntrustedOutput: true,
    ...overrides,
  };
  return { ctx, events };
}

const call = (name: string, args: unknown = {}) => ({ id: "c1", name, arguments: args });

describe("executeCall", () => {
  test("runs the tool, forwarding its progress, and wraps untrusted output", async () => {
    const web = defineTool({
      name: "web",
      description: "Fetches",
      readOnly: true,
      capabilities: { untrustedInput: true },
      input: v.object({ url: v.string() }),
      call: ({ url }, ctx: ToolContext) => {
        ctx.progress({ progress: 1, total: 2 });
        return `page at ${url}`;
      },
    });
    const { ctx, events } = context();
    const outcome = await executeCall(call("web", { url: "u" }), await route(web), ctx);
    expect(outcome).toMatchObject({
      outcome: "executed",
      started: true,
      block: { isError: false },
    });
    expect(outcome.block.content).toHaveLength(3);
    expect(outcome.block.content[1]).toEqual({ type: "text", text: "page at u" });
    expect(events).toEqual([
      { type: "tool_progress", callId: "c1", toolName: "web", progress: { progress: 1, total: 2 } },
    ]);
    const plain = context({ markUntrustedOutput: false });
    const unwrapped = await executeCall(call("web", { url: "u" }), await route(web), plain.ctx);
    expect(unwrapped.block.content).toEqual([{ type: "text", text: "page at u" }]);
  });

  test("turns a thrown error or invalid arguments into an error result the model reads", async () => {
    const broken = defineTool({
      name: "broken",
      description: "Fails",
      input: v.object({ n: v.number() }),
      call: () => {
        throw new ToolError({ type: "transport", tool: "broken", message: "connection reset" });
      },
    });
    const thrown = await executeCall(call("broken", { n: 1 }), await route(broken), context().ctx);
    expect(thrown).toMatchObject({ outcome: "executed", started: true, block: { isError: true } });
    expect(JSON.stringify(thrown.block)).toContain("Tool `broken` failed:");
    expect(JSON.stringify(thrown.block)).toContain("connection reset");
    const invalid = await executeCall(
      call("broken", { n: "x" }),
      await route(broken),
      context().ctx,
    );
    expect(JSON.stringify(invalid.block)).toMatch(/\\n- \/n: /);
  });

  test("does not start a call once the run is cancelled", async () => {
    let ran = false;
    const tool = defineTool({
      name: "t",
      description: "t",
      input: v.object({}),
      call: () => {
        ran = true;
        return "x";
      },
    });
    const controller = new AbortController();
    controller.abort();
    const outcome = await executeCall(
      call("t"),
      await route(tool),
      context({ signal: controller.signal }).ctx,
    );
    expect(ran).toBe(false);
    expect(outcome).toMatchObject({ outcome: "cancelled", started: false });
    expect(JSON.stringify(outcome.block)).toContain("before this call started");
  });

  test("reports a call cancelled while it ran, and passes questions through the answerer", async () => {
    const controller = new AbortController();
    const started = createGate();
    const ask = defineTool({
      name: "ask",
      description: "Asks, then hangs",
      readOnly: true,
      interactions: { text: true },
      input: v.object({}),
      call: async (_input, ctx: ToolContext) => {
        const answer = await ctx.requestText("City?");
        started.open();
        await new Promise(() => {});
        return answer;
      },
    });
    const { ctx, events } = context({
      signal: controller.signal,
      onInteraction: async (request) => InteractionResponse.submit(request.id, "Oslo"),
    });
    const pending = executeCall(call("ask"), await route(ask), ctx);
    await started.wait();
    controller.abort();
    const outcome = await pending;
    expect(outcome).toMatchObject({
      outcome: "cancelled",
      started: true,
      block: { isError: true },
    });
    expect(JSON.stringify(outcome.block)).toContain("while this call ran");
    expect(events.map((e) => e.type)).toEqual(["interaction_requested", "interaction_resolved"]);
    expect(events[1]).toMatchObject({ response: { type: "submit", content: "Oslo" } });
  });
});
