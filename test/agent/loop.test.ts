import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent, type AgentEvent, modeApprover } from "../../src/agent/index.ts";
import {
  answerFinally,
  EMPTY_TURN_NUDGE,
  FINAL_ANSWER_NUDGE,
  listToolCatalog,
  streamModelTurn,
} from "../../src/agent/loop.ts";
import { defineTool, ToolError, ToolResult, Toolset } from "../../src/index.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import type { Message } from "../../src/models/message.ts";
import type { Model, ModelEvent, ModelTool } from "../../src/models/model.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { caught } from "../support/caught.ts";
import { transcriptProblems } from "../support/model-transcript.ts";

describe("the turn loop", () => {
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
      expect(
        results?.content.map((b) => (b.type === "tool_result" ? b.toolUseId : b.type)),
      ).toEqual(["a", "b", "c"]);
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
        content: [
          { type: "text", text: "Unknown tool `nope`. Available tools: `echo`, `explode`." },
        ],
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
      const model = scriptedModel([
        { toolCalls: [{ name: "soft", arguments: {} }] },
        { text: "ok" },
      ]);
      const result = await new Agent({ model, tools: [soft], approver: modeApprover("allow") }).run(
        "go",
      ).result;
      expect(result.conversation.messages[2]?.content[0]).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "not found" }],
      });
    });
  });
});

describe("one model turn", () => {
  const request = { messages: [], tools: [] };

  describe("streamed tool arguments", () => {
    const joined = (events: AgentEvent[]) => {
      const out = new Map<string, string>();
      for (const e of events) {
        if (e.type === "tool_input_delta") out.set(e.callId, (out.get(e.callId) ?? "") + e.text);
      }
      return out;
    };

    test("reach the run as tool_input_delta events under the call's run id, before its tool_call", async () => {
      const model = scriptedModel([
        {
          streamArguments: true,
          toolCalls: [{ id: "w1", name: "echo", arguments: { text: "a long file body" } }],
        },
        { text: "ok" },
      ]);
      const echo = defineTool({
        name: "echo",
        description: "Echoes",
        readOnly: true,
        input: v.object({ text: v.string() }),
        call: ({ text }) => text,
      });
      const events: AgentEvent[] = [];
      const run = new Agent({ model, tools: [echo] }).run("go");
      for await (const event of run) events.push(event);
      const types = events.map((e) => e.type);
      expect(types.filter((t) => t === "tool_input_delta").length).toBeGreaterThan(1);
      expect(types.lastIndexOf("tool_input_delta")).toBeLessThan(types.indexOf("tool_call"));
      expect(joined(events)).toEqual(new Map([["w1", '{"text":"a long file body"}']]));
      expect(events.find((e) => e.type === "tool_input_delta")).toMatchObject({
        turn: 1,
        toolName: "echo",
      });
    });

    test("two calls the model gave one id keep their pieces apart, under the ids their tool_calls get", async () => {
      const model = scriptedModel([
        {
          streamArguments: true,
          toolCalls: [
            { id: "same", name: "x", arguments: { n: 1 } },
            { id: "same", name: "x", arguments: { n: 2 } },
          ],
        },
      ]);
      const events: AgentEvent[] = [];
      const turn = await streamModelTurn(model, request, {
        signal: new AbortController().signal,
        emit: (event) => events.push(event),
        turn: 3,
      });
      expect(turn.toolCalls.map((call) => call.id)).toEqual(["same", "call_3_2"]);
      expect(joined(events)).toEqual(
        new Map([
          ["same", '{"n":1}'],
          ["call_3_2", '{"n":2}'],
        ]),
      );
    });
  });

  describe("streamModelTurn", () => {
    test("collects text, calls, usage and the finish reason, emitting the text", async () => {
      const model = scriptedModel([
        {
          text: "Hello there",
          toolCalls: [{ id: "t", name: "x", arguments: { a: 1 } }],
          usage: { inputTokens: 3, outputTokens: 4 },
        },
      ]);
      const events: AgentEvent[] = [];
      const turn = await streamModelTurn(model, request, {
        signal: new AbortController().signal,
        emit: (event) => events.push(event),
        turn: 7,
      });
      expect(turn).toEqual({
        end: "complete",
        text: "Hello there",
        toolCalls: [{ id: "t", name: "x", arguments: { a: 1 } }],
        usage: { inputTokens: 3, outputTokens: 4 },
        finish: "tool_calls",
        before: [],
      });
      const text = events.map((e) => e.type === "text_delta" && `${e.turn}:${e.text}`);
      expect(text.filter(Boolean).join("|")).toBe("7:Hello |7:there");
    });

    test("an abort cancels a model that ignores its signal, keeping the text and usage", async () => {
      const controller = new AbortController();
      let cancelled = false;
      const stubborn: Model = {
        id: "stubborn",
        stream: () =>
          new ReadableStream({
            start(c) {
              c.enqueue({ type: "usage", inputTokens: 5, outputTokens: 1 });
              c.enqueue({ type: "text_delta", text: "Part" });
            },
            cancel() {
              cancelled = true;
            },
          }),
      };
      const events: AgentEvent[] = [];
      const pending = streamModelTurn(stubborn, request, {
        signal: controller.signal,
        emit: (event) => {
          events.push(event);
          if (event.type === "text_delta") controller.abort();
        },
        turn: 2,
      });
      const turn = await pending;
      expect(cancelled).toBe(true);
      expect(turn).toMatchObject({ end: "cancelled", text: "Part", usage: { inputTokens: 5 } });
      expect(turn.error).toBeUndefined();
      expect(events.map((e) => e.type)).toEqual(["text_delta", "usage"]);
    });

    test("reports a failing stream, and a stream() that throws, without rejecting", async () => {
      const failing = scriptedModel([
        { text: "so far", error: { type: "stream", provider: "scripted", message: "reset" } },
      ]);
      const signal = new AbortController().signal;
      const turn = await streamModelTurn(failing, request, { signal, emit: () => {}, turn: 1 });
      expect(turn).toMatchObject({ end: "failed", text: "so far", error: { type: "stream" } });
      const throwing: Model = {
        id: "t",
        stream: () => {
          throw new Error("bad request");
        },
      };
      const thrown = await streamModelTurn(throwing, request, { signal, emit: () => {}, turn: 1 });
      expect(thrown).toMatchObject({ end: "failed", error: new Error("bad request") });
    });

    test("gives calls without an id one, so every tool_use can be answered", async () => {
      const model: Model = {
        id: "m",
        stream: () =>
          new ReadableStream({
            start(controller) {
              controller.enqueue({ type: "tool_call", id: "", name: "x", arguments: {} });
              controller.close();
            },
          }),
      };
      const turn = await streamModelTurn(model, request, {
        signal: new AbortController().signal,
        emit: () => {},
        turn: 2,
      });
      expect(turn.toolCalls[0]?.id).toBe("call_2_1");
    });

    test("renames a call whose id another call of the turn already has", async () => {
      const model: Model = {
        id: "m",
        stream: () =>
          new ReadableStream({
            start(controller) {
              for (const name of ["a", "b", "c"])
                controller.enqueue({
                  type: "tool_call",
                  id: name === "c" ? "x" : "0",
                  name,
                  arguments: {},
                });
              controller.close();
            },
          }),
      };
      const turn = await streamModelTurn(model, request, {
        signal: new AbortController().signal,
        emit: () => {},
        turn: 1,
      });
      expect(turn.toolCalls.map((call) => call.id)).toEqual(["0", "call_1_2", "x"]);
    });

    test("emits one usage event after the turn's text, with the turn's number", async () => {
      const model = scriptedModel([
        { text: "Hi", usage: { inputTokens: 120, outputTokens: 4, cacheReadTokens: 100 } },
      ]);
      const events: AgentEvent[] = [];
      const turn = await streamModelTurn(model, request, {
        signal: new AbortController().signal,
        emit: (event) => events.push(event),
        turn: 3,
      });
      expect(events.map((e) => e.type)).toEqual(["text_delta", "usage"]);
      expect(events.at(-1)).toEqual({
        type: "usage",
        turn: 3,
        usage: { inputTokens: 120, outputTokens: 4, cacheReadTokens: 100 },
      });
      // The event carries a copy; a listener editing it cannot change what the run counts.
      const event = events.at(-1);
      if (event?.type === "usage") event.usage.inputTokens = 0;
      expect(turn.usage).toEqual({ inputTokens: 120, outputTokens: 4, cacheReadTokens: 100 });
    });

    test("emits no usage event for a turn whose provider reported none", async () => {
      const events: AgentEvent[] = [];
      await streamModelTurn(scriptedModel([{ text: "Hi" }]), request, {
        signal: new AbortController().signal,
        emit: (event) => events.push(event),
        turn: 1,
      });
      expect(events.map((e) => e.type)).toEqual(["text_delta"]);
    });

    test("still reports the usage of a turn whose stream failed after reporting it", async () => {
      let sent = false;
      const model: Model = {
        id: "m",
        stream: () =>
          new ReadableStream({
            // Pulled one chunk at a time, so the usage is read before the stream breaks.
            pull(controller) {
              if (sent) return controller.error(new Error("connection reset"));
              sent = true;
              controller.enqueue({ type: "usage", inputTokens: 50, outputTokens: 2 });
            },
          }),
      };
      const events: AgentEvent[] = [];
      const turn = await streamModelTurn(model, request, {
        signal: new AbortController().signal,
        emit: (event) => events.push(event),
        turn: 2,
      });
      expect(turn).toMatchObject({ end: "failed", usage: { inputTokens: 50, outputTokens: 2 } });
      expect(events).toEqual([
        { type: "usage", turn: 2, usage: { inputTokens: 50, outputTokens: 2 } },
      ]);
    });
  });
});

describe("the final answer turn", () => {
  const tools: ModelTool[] = [{ name: "echo", inputSchema: { type: "object" } }];

  function afterToolTurn(): Message[] {
    return [
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "a", name: "echo", input: {} }] },
      {
        role: "user",
        content: [{ type: "tool_result", toolUseId: "a", isError: false, content: [] }],
      },
    ];
  }

  function state(
    messages: Message[],
    overrides: { tools?: ModelTool[]; signal?: AbortSignal } = {},
  ) {
    const events: AgentEvent[] = [];
    return {
      events,
      state: {
        messages,
        tools: overrides.tools ?? tools,
        signal: overrides.signal ?? new AbortController().signal,
        emit: (event: AgentEvent) => events.push(event),
        turns: 4,
        cause: "max_turns" as const,
      },
    };
  }

  /** A model that ignores `toolChoice` and calls a tool anyway, after some text. */
  function disobedientModel(text: string): Model {
    return {
      id: "disobedient",
      stream: () =>
        new ReadableStream<ModelEvent>({
          start(controller) {
            if (text) controller.enqueue({ type: "text_delta", text });
            controller.enqueue({ type: "tool_call", id: "z", name: "echo", arguments: {} });
            controller.enqueue({ type: "finish", reason: "tool_calls" });
            controller.close();
          },
        }),
    };
  }

  describe("answerFinally", () => {
    test("declares the tools but forbids calls, folding the nudge into the results message", async () => {
      const model = scriptedModel([
        { text: "Here is all I found.", usage: { inputTokens: 9, outputTokens: 3 } },
      ]);
      const messages = afterToolTurn();
      const { state: s, events } = state(messages);
      const answer = await answerFinally({ model, instructions: "Be brief." }, s);
      expect(answer).toEqual({
        text: "Here is all I found.",
        cancelled: false,
        usage: { inputTokens: 9, outputTokens: 3 },
      });
      expect(model.requests[0]).toMatchObject({ tools, toolChoice: "none", system: "Be brief." });
      expect(messages).toHaveLength(4);
      expect(messages[2]?.content.at(-1)).toEqual({ type: "text", text: FINAL_ANSWER_NUDGE });
      expect(messages[3]).toEqual({
        role: "assistant",
        content: [{ type: "text", text: "Here is all I found." }],
      });
      expect(events[0]).toEqual({ type: "turn_start", turn: 5, final: true });
      expect(transcriptProblems(messages)).toEqual([]);
    });

    test("sends no tool choice when the run has no tools", async () => {
      const model = scriptedModel([{ text: "ok" }]);
      const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "go" }] }];
      await answerFinally({ model, instructions: undefined }, state(messages, { tools: [] }).state);
      expect(model.requests[0]).toEqual({ messages: expect.any(Array), tools: [] });
    });

    test("drops calls a model makes anyway, so no tool_use is left unanswered", async () => {
      const messages = afterToolTurn();
      const answer = await answerFinally(
        { model: disobedientModel("Partly done."), instructions: undefined },
        state(messages).state,
      );
      expect(answer.text).toBe("Partly done.");
      expect(JSON.stringify(messages)).not.toContain('"z"');
      expect(transcriptProblems(messages)).toEqual([]);
    });

    test("stands in a fixed explanation for an empty, failed or call-only answer", async () => {
      const failing = scriptedModel([
        { error: { type: "http", provider: "scripted", message: "x" } },
      ]);
      for (const model of [scriptedModel([{}]), failing, disobedientModel("")]) {
        const messages = afterToolTurn();
        const answer = await answerFinally(
          { model, instructions: undefined },
          state(messages).state,
        );
        expect(answer.text).toBe(
          "No answer was produced: the run reached its turn limit after 4 turns.",
        );
        expect(messages.at(-1)?.role).toBe("user");
        expect(transcriptProblems(messages)).toEqual([]);
      }
      const loop = { ...state(afterToolTurn()).state, cause: "loop" as const };
      const answer = await answerFinally(
        { model: scriptedModel([{}]), instructions: undefined },
        loop,
      );
      expect(answer.text).toContain("was stopped in a loop after 4 turns");
    });

    test("reports a cancellation and makes no call when the signal is already aborted", async () => {
      const controller = new AbortController();
      controller.abort();
      const model = scriptedModel([{ text: "never" }]);
      const answer = await answerFinally(
        { model, instructions: undefined },
        state(afterToolTurn(), { signal: controller.signal }).state,
      );
      expect(answer.cancelled).toBe(true);
      expect(model.requests).toHaveLength(0);
    });
  });
});

describe("the tool catalog", () => {
  const tool = (name: string, description: string) =>
    defineTool({ name, description, input: v.object({}), call: () => description });

  describe("listToolCatalog", () => {
    test("lists every toolset's tools in name order", async () => {
      const first = Toolset.local([tool("b", "b"), tool("c", "c")]);
      const second = Toolset.local([tool("a", "a")]);
      const catalog = await listToolCatalog([first, second]);
      expect(catalog.specs.map((s) => [s.name, s.description])).toEqual([
        ["a", "a"],
        ["b", "b"],
        ["c", "c"],
      ]);
      expect(catalog.routes.get("a")?.toolset).toBe(second);
    });

    test("sends an open object schema for a tool whose schema is `true`", async () => {
      const raw = defineTool({
        jsonSchemaValidator,
        name: "raw",
        description: "r",
        input: { jsonSchema: true as never },
        call: () => "",
      });
      const catalog = await listToolCatalog([Toolset.local([raw])]);
      expect(typeof catalog.specs[0]?.inputSchema).toBe("object");
    });
  });
});

describe("duplicate tool names (A6)", () => {
  const tool = (name: string, text: string) =>
    defineTool({ name, description: text, input: v.object({}), call: () => text });

  test("two local tools with one name fail at construction", async () => {
    const model = scriptedModel([{ text: "never" }]);
    const error = await caught(
      () => new Agent({ model, tools: [tool("search", "a"), tool("search", "b")] }),
    );
    expect(error.data).toEqual({ type: "duplicate_name", name: "search" });
    expect(error.message).toContain("`search`");
  });

  test("a name two toolsets share ends the run at its first listing, naming every clash and the fix", async () => {
    const requests: unknown[] = [];
    const model = scriptedModel((request) => {
      requests.push(request);
      return { text: "never" };
    });
    const web = Toolset.local([tool("search", "web"), tool("open", "web")]);
    const docs = Toolset.local([tool("open", "docs"), tool("index", "docs")]);
    const agent = new Agent({ model, toolsets: [web, docs], tools: [tool("search", "local")] });
    const errors: AgentEvent[] = [];
    agent.on("error", (event) => errors.push(event));
    const result = await agent.run("go").result;
    expect(result.stop).toBe("error");
    expect(requests).toEqual([]);
    const error = result.error as ToolError;
    expect(error.type).toBe("duplicate_name");
    expect(error.message).toContain("`open`, `search` are declared by more than one toolset");
    expect(error.message).toContain("namespace");
    expect(errors).toHaveLength(1);
    // The later toolset no longer silently replaces the earlier one: every run fails the same.
    expect((await agent.run("again").result).error).toMatchObject({ type: "duplicate_name" });
  });

  test("namespaced toolsets with the same tool names run fine", async () => {
    const web = Toolset.local([tool("search", "web result")]);
    const docs = Toolset.local([tool("search", "docs result")]);
    const merged = Toolset.merge([web, docs], { namespaces: ["web", "docs"] });
    const [name] = (await merged.listTools()).map((info) => info.name).sort();
    const model = scriptedModel([
      { toolCalls: [{ name: name as string, arguments: {} }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ model, toolsets: [merged], approver: modeApprover("allow") });
    const result = await agent.run("go").result;
    expect(result.stop).toBe("done");
    expect(JSON.stringify(result.conversation.messages[2])).toContain("docs result");
  });
});
