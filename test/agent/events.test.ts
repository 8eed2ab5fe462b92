import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { TOOL_CALL_OUTCOMES } from "../../src/agent/events.ts";
import { Agent, type AgentEvent } from "../../src/agent/index.ts";
import { defineTool } from "../../src/index.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";

const tool = (name: string, readOnly: boolean, call: () => string | Promise<string>) =>
  defineTool({ name, description: name, readOnly, input: v.object({}), call });

describe("TOOL_CALL_OUTCOMES", () => {
  test("lists the four outcomes, and the tool_result events of a run use exactly those", async () => {
    expect(TOOL_CALL_OUTCOMES).toEqual(["executed", "refused", "unknown", "cancelled"]);
    const controller = new AbortController();
    const tools = [
      tool("read", true, () => "ok"),
      tool("stop", true, () => {
        controller.abort();
        return "stopping";
      }),
      tool("write", false, () => "wrote"),
    ];
    const model = scriptedModel([
      {
        toolCalls: ["write", "nope", "read", "stop"].map((name) => ({ name, arguments: {} })),
      },
    ]);
    const agent = new Agent({ model, tools, concurrency: "sequential" });
    const emitted: AgentEvent[] = [];
    agent.on("tool_result", (event) => emitted.push(event));
    const run = agent.run("go", { signal: controller.signal });
    const streamed: AgentEvent[] = [];
    for await (const event of run) if (event.type === "tool_result") streamed.push(event);
    expect(emitted).toEqual(streamed);
    const byName = Object.fromEntries(
      streamed.map((e) => (e.type === "tool_result" ? [e.toolName, e.outcome] : [])),
    );
    expect(byName).toEqual({
      write: "refused",
      nope: "unknown",
      read: "executed",
      // Hint: it aborted the run while it ran, so its result reports the cancellation.
      stop: "cancelled",
    });
    expect((await run.result).stop).toBe("cancelled");
  });
});

describe("usage events", () => {
  test("arrive live after each turn that reported usage, final answer turn included", async () => {
    const model = scriptedModel([
      {
        toolCalls: [{ name: "read", arguments: {} }],
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      { toolCalls: [{ name: "read", arguments: {} }] },
      { text: "Out of turns.", usage: { inputTokens: 180, outputTokens: 5, cacheReadTokens: 90 } },
    ]);
    const tools = [tool("read", true, () => "ok")];
    // Hint: the second turn reports no usage, so it has no usage event.
    const agent = new Agent({ model, tools, maxTurns: 2 });
    const emitted: AgentEvent[] = [];
    agent.on("usage", (event) => emitted.push(event));
    const run = agent.run("go");
    const streamed: AgentEvent[] = [];
    for await (const event of run) streamed.push(event);
    const usage = streamed.filter((event) => event.type === "usage");
    expect(emitted).toEqual(usage);
    expect(usage).toEqual([
      { type: "usage", turn: 1, usage: { inputTokens: 100, outputTokens: 10 } },
      {
        type: "usage",
        turn: 3,
        usage: { inputTokens: 180, outputTokens: 5, cacheReadTokens: 90 },
      },
    ]);
    // Each comes right after its turn's stream, before the turn's calls are handled.
    const steps = streamed.map((e) => e.type).filter((type, i, all) => type !== all[i - 1]);
    expect(steps).toEqual([
      "turn_start",
      "usage",
      "tool_call",
      "tool_result",
      "turn_start",
      "tool_call",
      "tool_result",
      "turn_start",
      "text_delta",
      "usage",
      "done",
    ]);
    const result = await run.result;
    expect(result.stop).toBe("max_turns");
    expect(result.usage).toEqual({ inputTokens: 280, outputTokens: 15, cacheReadTokens: 90 });
  });
});
