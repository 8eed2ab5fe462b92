import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { COMPACTION_REASONS } from "../../src/agent/compaction-reason.ts";
import { Agent, type AgentEvent } from "../../src/agent/index.ts";
import { defineTool } from "../../src/index.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";

const read = defineTool({
  name: "read",
  description: "Reads a file",
  readOnly: true,
  input: v.object({ path: v.string() }),
  call: ({ path }) => `${path}: ${"x".repeat(2000)}`,
});

describe("COMPACTION_REASONS", () => {
  test("lists the four reasons, and a compacted event carries one of them", async () => {
    expect(COMPACTION_REASONS).toEqual(["threshold", "predicted", "requested", "overflow"]);
    const turn = (path: string, inputTokens: number) => ({
      toolCalls: [{ name: "read", arguments: { path } }],
      usage: { inputTokens, outputTokens: 1 },
    });
    const model = scriptedModel([
      turn("a", 10),
      turn("b", 10),
      turn("c", 10),
      turn("d", 5000),
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: [read],
      compaction: {
        thresholdTokens: 1000,
        keepRecent: 2,
        summarizer: async () => ({ text: "Read a, b and c." }),
      },
    });
    const run = agent.run("go");
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    expect((await run.result).stop).toBe("done");
    const reasons = events.flatMap((event) => (event.type === "compacted" ? [event.reason] : []));
    expect(reasons).toEqual(["threshold"]);
  });
});
