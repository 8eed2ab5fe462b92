import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent, type AgentOptions } from "../../src/agent/index.ts";
import { defineTool, Toolset } from "../../src/index.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { caught } from "../support/caught.ts";

const model = scriptedModel(() => ({ text: "ok" }));
const echo = defineTool({
  name: "echo",
  description: "Echoes",
  readOnly: true,
  input: v.object({ text: v.string() }),
  call: ({ text }) => text,
});

/** Returns the message of the `invalid_configuration` error the options are rejected with. */
async function rejection(options: unknown): Promise<string> {
  const { data } = await caught(() => new Agent(options as AgentOptions));
  if (data.type !== "invalid_configuration")
    throw new Error(`expected invalid_configuration, got ${data.type}`);
  return data.message;
}

describe("the Agent constructor rejects bad options with invalid_configuration", () => {
  test.each([
    ["options that are not an object", undefined, "options must be an object, got undefined"],
    ["no model", {}, "model must be a Model (an object with a stream() method), got undefined"],
    ["a model without stream()", { model: { id: "m" } }, "model must be a Model"],
    ["a string for a model", { model: "gpt-4o" }, 'got "gpt-4o"'],
    [
      "a model with a bad contextWindow",
      { model: { ...model, contextWindow: -5 } },
      "model.contextWindow must be a positive number, got -5",
    ],
  ])("%s", async (_, options, message) => {
    expect(await rejection(options)).toContain(message);
  });

  test.each([
    [-1, "maxTurns must be a non-negative integer, got -1"],
    [1.5, "got 1.5"],
    [Number.NaN, "got NaN"],
    [Number.POSITIVE_INFINITY, "got Infinity"],
    ["10", 'got "10"'],
  ])("maxTurns %s", async (maxTurns, message) => {
    expect(await rejection({ model, maxTurns })).toContain(message);
  });

  test.each([
    [
      "parallel",
      'concurrency must be "sequential", "read-only-parallel" or a positive integer, got "parallel"',
    ],
    [0, "got 0"],
    [-2, "got -2"],
    [2.5, "got 2.5"],
    [Number.NaN, "got NaN"],
    [null, "got null"],
  ])("concurrency %s", async (concurrency, message) => {
    expect(await rejection({ model, concurrency })).toContain(message);
  });

  test.each([
    [{ keepRecent: -1 }, "compaction.keepRecent must be a non-negative integer, got -1"],
    [{ keepRecent: 2.5 }, "compaction.keepRecent must be a non-negative integer, got 2.5"],
    [{ thresholdTokens: 0 }, "compaction.thresholdTokens must be a positive number, got 0"],
    [{ thresholdTokens: -100 }, "compaction.thresholdTokens must be a positive number, got -100"],
    [{ thresholdTokens: Number.NaN }, "compaction.thresholdTokens must be a positive number"],
    [{ thresholdTokens: Number.POSITIVE_INFINITY }, "got Infinity"],
    [{ contextWindow: 0 }, "compaction.contextWindow must be a positive number, got 0"],
    [{ contextWindow: "128k" }, 'compaction.contextWindow must be a positive number, got "128k"'],
    [{ summarizer: "extractive" }, "compaction.summarizer must be a function"],
    [{ validate: "yes" }, "compaction.validate must be a boolean"],
    [{ compactTool: 1 }, "compaction.compactTool must be a boolean"],
    [{ keepRewritten: "yes" }, "compaction.keepRewritten must be a boolean"],
  ])("compaction %o", async (compaction, message) => {
    expect(await rejection({ model, compaction })).toContain(message);
  });

  test("compaction that is neither false nor settings", async () => {
    expect(await rejection({ model, compaction: true })).toBe(
      "compaction must be false or an object of settings, got true",
    );
  });

  test("toolsets that are not Toolsets", async () => {
    expect(await rejection({ model, toolsets: Toolset.local([echo]) })).toBe(
      "toolsets must be an array of Toolsets, got an object",
    );
    const backend = {
      listTools: async () => [],
      toolHandler: async () => {
        throw new Error("none");
      },
      shutdown: async () => {},
    };
    const message = await rejection({ model, toolsets: [Toolset.local([]), backend] });
    expect(message).toContain("toolsets[1] is not a Toolset (got an object)");
    expect(message).toContain("Toolset.fromBackend");
    expect(await rejection({ model, toolsets: [echo] })).toContain("toolsets[0] is not a Toolset");
  });

  test("tools, callbacks and flags of the wrong type", async () => {
    expect(await rejection({ model, tools: echo })).toBe(
      "tools must be an array of tools from defineTool, got an object",
    );
    expect(await rejection({ model, approver: "allow" })).toBe(
      'approver must be a function, got "allow"',
    );
    expect(await rejection({ model, onInteraction: {} })).toContain(
      "onInteraction must be a function",
    );
    expect(await rejection({ model, instructions: 42 })).toBe(
      "instructions must be a string, got 42",
    );
    expect(await rejection({ model, markUntrustedOutput: "false" })).toContain(
      "markUntrustedOutput must be a boolean",
    );
    expect(await rejection({ model, interlock: "warn" })).toBe(
      'interlock must be one of "block", "ask", "allow", got "warn"',
    );
  });
});

describe("the Agent constructor accepts good options", () => {
  test("every documented form, and runs with them", async () => {
    const toolset = Toolset.local([echo]);
    const forms: AgentOptions[] = [
      { model },
      { model, maxTurns: 0, concurrency: "sequential", compaction: false },
      { model, maxTurns: 1, concurrency: "read-only-parallel", compaction: {} },
      {
        model,
        toolsets: [toolset],
        tools: [],
        concurrency: 3,
        interlock: "ask",
        markUntrustedOutput: false,
        instructions: "",
        compaction: { contextWindow: 8000, thresholdTokens: 1.5, keepRecent: 0, validate: false },
      },
    ];
    for (const options of forms) {
      const agent = new Agent(options);
      const result = await agent.run("hi").result;
      expect(result.stop).not.toBe("error");
    }
  });

  test("a Toolset from another copy of the package (same methods, other class)", async () => {
    const local = Toolset.local([echo]);
    const foreign = {
      listTools: () => local.listTools(),
      call: (...args: Parameters<Toolset["call"]>) => local.call(...args),
      carriedState: () => local.carriedState(),
    };
    const scripted = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "via foreign" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({ model: scripted, toolsets: [foreign as unknown as Toolset] });
    const run = agent.run("go");
    const results: unknown[] = [];
    for await (const event of run) if (event.type === "tool_result") results.push(event.content);
    expect(results).toEqual([[{ type: "text", text: "via foreign" }]]);
  });
});
