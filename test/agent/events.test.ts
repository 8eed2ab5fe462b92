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
