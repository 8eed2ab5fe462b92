import * as v from "valibot";
import { describe, expect, test } from "vitest";
import {
  Agent,
  type AgentEvent,
  EMPTY_TURN_NUDGE,
  FINAL_ANSWER_NUDGE,
  modeApprover,
} from "../../src/agent/index.ts";
import { defineTool, ToolError, ToolResult } from "../../src/index.ts";
import type { Message } from "../../src/models/message.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";

const echo = defineTool({
  name: "echo",
  description: "Echoes",
  readOnly: true,
  input: v.object({ text: v.string() }),
  call: ({ text }) => text,
});

const explode = defineTool({
  name: "explode",
  description: "Fails to execute",
  readOnly: true,
  input: v.object({}),
  call: () => {
    throw new ToolError({ type: "transport", tool: "explode", message: "connection reset" });
  },
});

async function collect(run: { result: Promise<unknown> } & AsyncIterable<AgentEvent>) {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

function textOf(message: Message | undefined): string {
  return (message?.content ?? [])
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("");
}

describe("runLoop", () => {
  test("sends tool specs in name order, the same on every turn", async () => {
    const zebra = defineTool({
      name: "zebra",
      description: "z",
      readOnly: true,
      input: v.object({}),
      call: () => "z",
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({ model, tools: [zebra, explode, echo] });
    await agent.run("go").result;
    const names = model.requests.map((r) => r.tools.map((t) => t.name));
    expect(names).toEqual([
      ["echo", "explode", "zebra"],
      ["echo", "explode", "zebra"],
    ]);
    expect(model.requests[0]?.tools[0]?.inputSchema).toMatchObject({ type: "object" });
  });

  test("sends every result of a turn back as one user message in call order", async () => {
    const slow = defineTool({
      name: "slow",
      description: "Finishes last",
      readOnly: true,
      input: v.object({}),
      call: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return "slow";
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "a", name: "slow", arguments: {} },
          { id: "b", name: "echo", arguments: { text: "fast" } },
          { id: "c", name: "missing", arguments: {} },
        ],
      },
      { text: "ok" },
    ]);
    const agent = new Agent({ model, tools: [slow, echo] });
    const result = await agent.run("go").result;
    const results = result.conversation.messages[2];
    expect(results?.role).toBe("user");
    expect(results?.content.map((b) => (b.type === "tool_result" ? b.toolUseId : b.type))).toEqual([
      "a",
      "b",
      "c",
    ]);
    expect(result.conversation.messages).toHaveLength(4);
  });

  test("turns an unknown tool into an error result listing the tools, and continues", async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: "x", name: "nope", arguments: {} }] },
      { text: "sorry" },
    ]);
    const agent = new Agent({ model, tools: [echo, explode] });
    const run = agent.run("go");
    const events = await collect(run);
    const result = await run.result;
    expect(result.stop).toBe("done");
    const block = result.conversation.messages[2]?.content[0];
    expect(block).toEqual({
      type: "tool_result",
      toolUseId: "x",
      isError: true,
      content: [{ type: "text", text: "Unknown tool `nope`. Available tools: `echo`, `explode`." }],
    });
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ outcome: "unknown" });
  });

  test("turns a tool that throws a ToolError, or invalid arguments, into error results", async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { id: "1", name: "explode", arguments: {} },
          { id: "2", name: "echo", arguments: { text: 42 } },
        ],
      },
      { text: "recovered" },
    ]);
    const agent = new Agent({ model, tools: [echo, explode] });
    const result = await agent.run("go").result;
    expect(result.stop).toBe("done");
    expect(result.text).toBe("recovered");
    const [first, second] = result.conversation.messages[2]?.content ?? [];
    expect(first).toMatchObject({ isError: true });
    expect(JSON.stringify(first)).toContain("Tool `explode` failed: transport failure");
    expect(second).toMatchObject({ isError: true });
    expect(JSON.stringify(second)).toMatch(/Tool `echo` failed: invalid tool arguments.*\/text/);
  });

  test("executes a turn with tool calls even when the provider reports stop", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "hi" } }], finish: "stop" },
      { text: "done" },
    ]);
    const result = await new Agent({ model, tools: [echo] }).run("go").result;
    expect(result.turns).toBe(2);
    expect(result.conversation.messages[2]?.content[0]).toMatchObject({ type: "tool_result" });
  });

  test("makes one final turn that may not call tools at max_turns, not counted, with a non-empty answer", async () => {
    const call = { toolCalls: [{ name: "echo", arguments: { text: "again" } }] };
    const model = scriptedModel([call, call, { text: "Here is what I found." }]);
    const run = new Agent({ model, tools: [echo], maxTurns: 2 }).run("go");
    const events = await collect(run);
    const result = await run.result;
    expect(result).toMatchObject({ stop: "max_turns", turns: 2, text: "Here is what I found." });
    expect(model.requests).toHaveLength(3);
    expect(model.requests[2]?.tools).toEqual(model.requests[0]?.tools);
    expect(model.requests[2]?.toolChoice).toBe("none");
    expect(model.requests[0]?.toolChoice).toBeUndefined();
    expect(textOf(model.requests[2]?.messages.at(-1))).toContain(FINAL_ANSWER_NUDGE);
    expect(events.filter((e) => e.type === "turn_start").at(-1)).toEqual({
      type: "turn_start",
      turn: 3,
      final: true,
    });
    expect(result.conversation.messages.at(-1)?.role).toBe("assistant");
  });

  test("falls back to an explanation when the final turn is empty or fails", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { error: { type: "http", provider: "scripted", status: 500, message: "boom" } },
    ]);
    const result = await new Agent({ model, tools: [echo], maxTurns: 1 }).run("go").result;
    expect(result.stop).toBe("max_turns");
    expect(result.text).toBe(
      "No answer was produced: the run reached its turn limit after 1 turns.",
    );
  });

  test("retries up to 3 empty turns with a nudge, then stops with no_output", async () => {
    const model = scriptedModel([{}, {}, {}, {}]);
    const result = await new Agent({ model }).run("go").result;
    expect(result.stop).toBe("no_output");
    expect(model.requests).toHaveLength(4);
    const last = model.requests[3]?.messages;
    expect(last).toHaveLength(1);
    expect(textOf(last?.[0]).split(EMPTY_TURN_NUDGE)).toHaveLength(4);
  });

  test("an answer after an empty turn resets the count and ends the run", async () => {
    const model = scriptedModel([{}, { text: "there" }]);
    const result = await new Agent({ model }).run("go").result;
    expect(result).toMatchObject({ stop: "done", text: "there", turns: 2 });
    expect(result.conversation.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  test("folds steering text into the next results message and delivers it once", async () => {
    let release: () => void = () => {};
    const wait = defineTool({
      name: "wait",
      description: "Waits",
      readOnly: true,
      input: v.object({}),
      call: () => new Promise<string>((resolve) => (release = () => resolve("waited"))),
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "wait", arguments: {} }] },
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({ model, tools: [wait, echo] });
    agent.once("tool_call", () => {
      run.steer("also check the date");
      setTimeout(() => release(), 0);
    });
    const run = agent.run("go");
    await run.result;
    const texts = model.requests.map((r) => JSON.stringify(r.messages));
    expect(texts[0]).not.toContain("also check the date");
    expect(model.requests[1]?.messages.at(-1)?.content.at(-1)).toEqual({
      type: "text",
      text: "also check the date",
    });
    expect(texts[2]?.split("also check the date")).toHaveLength(2);
  });

  test("steering before done reaches the model; from done on, steer throws", async () => {
    const model = scriptedModel([{ text: "answer" }, { text: "revised" }]);
    const agent = new Agent({ model });
    let fromDone: unknown;
    agent.once("text_delta", () => run.steer("queued while answering"));
    agent.once("done", () => {
      try {
        run.steer("too late");
      } catch (error) {
        fromDone = error;
      }
    });
    const run = agent.run("go");
    const result = await run.result;
    expect(result).toMatchObject({ stop: "done", text: "revised", turns: 2 });
    expect(textOf(model.requests[1]?.messages.at(-1))).toBe("queued while answering");
    expect(JSON.stringify(result.conversation)).not.toContain("too late");
    expect(fromDone).toBeInstanceOf(ToolError);
    expect((fromDone as ToolError).type).toBe("unsupported");
    expect(() => run.steer("after result")).toThrow(/pass the text to the next run/);
  });

  test("stops with error on a provider failure, keeping a valid transcript", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      {
        text: "partial",
        error: { type: "rate_limit", provider: "scripted", status: 429, message: "slow down" },
      },
    ]);
    const run = new Agent({ model, tools: [echo] }).run("go");
    const events = await collect(run);
    const result = await run.result;
    expect(result.stop).toBe("error");
    expect(result.error).toMatchObject({ type: "rate_limit" });
    expect(events.filter((e) => e.type === "error")).toHaveLength(1);
    expect(result.conversation.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  test("passes the instructions as the system prompt and sums usage over turns", async () => {
    const model = scriptedModel([
      {
        toolCalls: [{ name: "echo", arguments: { text: "x" } }],
        usage: { inputTokens: 10, outputTokens: 2 },
      },
      { text: "ok", usage: { inputTokens: 15, outputTokens: 3, cacheReadTokens: 5 } },
    ]);
    const result = await new Agent({ model, tools: [echo], instructions: "Be brief." }).run("go")
      .result;
    expect(model.requests.map((r) => r.system)).toEqual(["Be brief.", "Be brief."]);
    expect(result.usage).toEqual({ inputTokens: 25, outputTokens: 5, cacheReadTokens: 5 });
  });

  test("keeps a tool's own error result as the model sees it", async () => {
    const soft = defineTool({
      name: "soft",
      description: "Fails softly",
      readOnly: true,
      input: v.object({}),
      call: () => ToolResult.error("not found"),
    });
    const model = scriptedModel([{ toolCalls: [{ name: "soft", arguments: {} }] }, { text: "ok" }]);
    const result = await new Agent({ model, tools: [soft], approver: modeApprover("allow") }).run(
      "go",
    ).result;
    expect(result.conversation.messages[2]?.content[0]).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "not found" }],
    });
  });
});
