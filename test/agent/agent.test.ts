import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent, type AgentEvent, CANCELLED_PREFIX, modeApprover } from "../../src/agent/index.ts";
import { defineTool, InteractionResponse, type ToolContext } from "../../src/index.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { createBlockingModel } from "../support/blocking-model.ts";
import { caught } from "../support/caught.ts";
import { createGate } from "../support/gate.ts";

const echo = defineTool({
  name: "echo",
  description: "Echoes",
  readOnly: true,
  input: v.object({ text: v.string() }),
  call: ({ text }) => text,
});

describe("Agent", () => {
  test("sends every event to run.events and to the emitter, in the same order", async () => {
    const model = scriptedModel([
      { text: "Let me check.", toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "All done." },
    ]);
    const agent = new Agent({ model, tools: [echo] });
    const emitted: AgentEvent[] = [];
    const types = ["turn_start", "text_delta", "tool_call", "tool_result", "done"] as const;
    for (const type of types) agent.on(type, (event: AgentEvent) => emitted.push(event));
    const run = agent.run("go");
    const streamed: AgentEvent[] = [];
    const reader = run.events.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read())
      streamed.push(read.value);
    expect(emitted).toEqual(streamed);
    const steps = streamed.map((e) => e.type).filter((type, i, all) => type !== all[i - 1]);
    expect(steps).toEqual([
      "turn_start",
      "text_delta",
      "tool_call",
      "tool_result",
      "turn_start",
      "text_delta",
      "done",
    ]);
    const done = streamed.at(-1);
    expect(done?.type === "done" && done.result).toEqual(await run.result);
  });

  test("rejects a bad maxTurns", async () => {
    const error = await caught(() => new Agent({ model: scriptedModel([]), maxTurns: -1 }));
    expect(error.type).toBe("invalid_configuration");
  });

  test("a listener that throws does not break the run", async () => {
    const model = scriptedModel([{ text: "hi" }]);
    const agent = new Agent({ model });
    const failures: unknown[] = [];
    const original = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (callback) => {
      try {
        callback();
      } catch (error) {
        failures.push(error);
      }
    };
    try {
      agent.on("turn_start", () => {
        throw new Error("listener bug");
      });
      const result = await agent.run("go").result;
      expect(result.stop).toBe("done");
    } finally {
      globalThis.queueMicrotask = original;
    }
    expect(failures).toEqual([new Error("listener bug")]);
  });

  test("resumes a conversation after a JSON round trip, folding the new input", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      { text: "first answer" },
      { text: "second answer" },
    ]);
    const agent = new Agent({ model, tools: [echo] });
    const first = await agent.run("one").result;
    const saved = JSON.parse(JSON.stringify(first.conversation));
    const second = await agent.run("two", { conversation: saved }).result;
    expect(second.text).toBe("second answer");
    expect(second.conversation.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(second.conversation.messages.slice(0, 4)).toEqual(saved.messages);
    expect(saved.messages).toHaveLength(4);
    expect(model.requests[2]?.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "two" }],
    });
  });

  test("a pre-aborted signal stops with cancelled and no model call", async () => {
    const model = scriptedModel([{ text: "never" }]);
    const controller = new AbortController();
    controller.abort();
    const result = await new Agent({ model }).run("go", { signal: controller.signal }).result;
    expect(result).toMatchObject({ stop: "cancelled", turns: 0 });
    expect(model.requests).toHaveLength(0);
    expect(result.conversation.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
    ]);
  });
});

describe("cancellation", () => {
  test("during the model stream: cancels the stream, keeps the partial text", async () => {
    const model = createBlockingModel("Partial ans");
    const controller = new AbortController();
    const run = new Agent({ model }).run("go", { signal: controller.signal });
    await model.blocked.wait();
    controller.abort();
    const result = await run.result;
    expect(model.cancelled).toBe(true);
    expect(model.signal?.aborted).toBe(true);
    expect(result).toMatchObject({ stop: "cancelled", text: "Partial ans", turns: 1 });
    expect(result.conversation.messages.at(-1)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Partial ans" }],
    });
  });

  test("during approval: interrupts the approver and answers every call", async () => {
    const controller = new AbortController();
    const asked = createGate();
    let approverSignal: AbortSignal | undefined;
    const write = defineTool({
      name: "write",
      description: "w",
      input: v.object({}),
      call: () => "wrote",
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "write", arguments: {} },
          { name: "echo", arguments: { text: "x" } },
        ],
      },
    ]);
    const agent = new Agent({
      model,
      tools: [write, echo],
      approver: (_request, signal) => {
        approverSignal = signal;
        asked.open();
        return new Promise(() => {});
      },
    });
    const run = agent.run("go", { signal: controller.signal });
    await asked.wait();
    controller.abort();
    const result = await run.result;
    expect(result.stop).toBe("cancelled");
    expect(approverSignal?.aborted).toBe(true);
    const results = result.conversation.messages[2]?.content ?? [];
    expect(results.map((b) => b.type === "tool_result" && b.toolUseId)).toEqual([
      "call_1",
      "call_2",
    ]);
    for (const block of results) {
      expect(block).toMatchObject({ isError: true });
      expect(JSON.stringify(block)).toContain(CANCELLED_PREFIX);
    }
  });

  test("during a tool: fires ctx.signal and records the interrupted call", async () => {
    const controller = new AbortController();
    const started = createGate();
    let toolSignal: AbortSignal | undefined;
    const hang = defineTool({
      name: "hang",
      description: "Runs until cancelled",
      readOnly: true,
      input: v.object({}),
      call: (_input, ctx: ToolContext) => {
        toolSignal = ctx.signal;
        started.open();
        return new Promise(() => {});
      },
    });
    const model = scriptedModel([{ toolCalls: [{ id: "h", name: "hang", arguments: {} }] }]);
    const run = new Agent({ model, tools: [hang] }).run("go", { signal: controller.signal });
    await started.wait();
    controller.abort();
    const result = await run.result;
    expect(result.stop).toBe("cancelled");
    expect(toolSignal?.aborted).toBe(true);
    expect(result.conversation.messages.at(-1)).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          toolUseId: "h",
          isError: true,
          content: [
            {
              type: "text",
              text: `${CANCELLED_PREFIX} the run was cancelled while this call ran.`,
            },
          ],
        },
      ],
    });
  });
});

describe("interactions", () => {
  const ask = defineTool({
    name: "ask_user",
    description: "Asks the user",
    readOnly: true,
    interactions: { text: true },
    input: v.object({ question: v.string() }),
    call: async ({ question }, ctx) => `The user said: ${await ctx.requestText(question)}`,
  });
  const model = () =>
    scriptedModel([
      { toolCalls: [{ name: "ask_user", arguments: { question: "Which city?" } }] },
      { text: "ok" },
    ]);

  test("asks through onInteraction and emits the request and the answer", async () => {
    const agent = new Agent({
      model: model(),
      tools: [ask],
      onInteraction: async (request) => InteractionResponse.submit(request.id, "Oslo"),
    });
    const run = agent.run("go");
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    expect(JSON.stringify(result.conversation.messages[2])).toContain("The user said: Oslo");
    expect(events.filter((e) => e.type.startsWith("interaction_"))).toMatchObject([
      { type: "interaction_requested", toolName: "ask_user", request: { prompt: "Which city?" } },
      { type: "interaction_resolved", response: { type: "submit", content: "Oslo" } },
    ]);
  });

  test("without onInteraction the call fails as an error result", async () => {
    const result = await new Agent({
      model: model(),
      tools: [ask],
      approver: modeApprover("allow"),
    }).run("go").result;
    expect(result.stop).toBe("done");
    const block = result.conversation.messages[2]?.content[0];
    expect(block).toMatchObject({ type: "tool_result", isError: true });
    expect(JSON.stringify(block)).toContain("onInteraction");
  });
});
