import * as v from "valibot";
import { describe, expect, test } from "vitest";
import {
  Agent,
  type AgentEvent,
  type AgentOptions,
  type Conversation,
  modeApprover,
} from "../../src/agent/index.ts";
import { CANCELLED_PREFIX } from "../../src/agent/transcript.ts";
import {
  defineTool,
  InteractionResponse,
  isToolError,
  type ToolContext,
  Toolset,
} from "../../src/index.ts";
import { isModelError, ModelError } from "../../src/models/model-error.ts";
import { openAICompatible } from "../../src/models/openai-compatible.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { createBlockingModel } from "../support/blocking-model.ts";
import { caught } from "../support/caught.ts";
import { createGate, type Gate } from "../support/gate.ts";
import { createFakeFetch, openAIText, sseResponse } from "../support/model-fetch.ts";
import { transcriptProblems } from "../support/model-transcript.ts";

describe("a run", () => {
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

    test("a listener that throws is reported to onError; the run and the other listeners go on", async () => {
      const model = scriptedModel([{ text: "hi" }]);
      const failures: [unknown, string][] = [];
      const agent = new Agent({
        model,
        onError: (error, event) => failures.push([error, event.type]),
      });
      const after: string[] = [];
      agent.on("turn_start", () => {
        throw new Error("listener bug");
      });
      agent.on("turn_start", (event) => after.push(`second got ${event.type}`));
      agent.once("done", () => {
        throw new Error("once bug");
      });
      const result = await agent.run("go").result;
      expect(result.stop).toBe("done");
      expect(after).toEqual(["second got turn_start"]);
      expect(failures).toEqual([
        [new Error("listener bug"), "turn_start"],
        [new Error("once bug"), "done"],
      ]);
      // The `once` listener was removed although it threw.
      expect(agent.listenerCount("done")).toBe(0);
    });

    test("without onError a throwing listener goes to console.error, never an uncaught exception", async () => {
      const agent = new Agent({ model: scriptedModel([{ text: "hi" }]) });
      agent.on("done", () => {
        throw new Error("listener bug");
      });
      const logged: unknown[][] = [];
      const original = console.error;
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => uncaught.push(error);
      process.on("uncaughtException", onUncaught);
      console.error = (...args: unknown[]) => void logged.push(args);
      try {
        expect((await agent.run("go").result).stop).toBe("done");
        await new Promise((resolve) => setTimeout(resolve, 0));
      } finally {
        console.error = original;
        process.off("uncaughtException", onUncaught);
      }
      expect(uncaught).toEqual([]);
      expect(logged).toHaveLength(1);
      expect(logged[0]?.at(-1)).toEqual(new Error("listener bug"));
      expect(String(logged[0]?.[0])).toContain("done listener threw");
    });

    test("an onError that throws itself is contained", async () => {
      const agent = new Agent({
        model: scriptedModel([{ text: "hi" }]),
        onError: () => {
          throw new Error("onError bug");
        },
      });
      agent.on("turn_start", () => {
        throw new Error("listener bug");
      });
      expect((await agent.run("go").result).stop).toBe("done");
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
            mark: "cancelled",
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

  describe("cancellation at every stage", () => {
    const slowAsk = (asked: Gate) =>
      defineTool({
        name: "ask_user",
        description: "Asks the user",
        readOnly: true,
        interactions: { text: true },
        input: v.object({}),
        call: async (_input, ctx) => {
          asked.open();
          return ctx.requestText("Which city?");
        },
      });

    test("during an interaction: an answerer that never answers still lets the run end", async () => {
      const controller = new AbortController();
      const asked = createGate();
      const answering = createGate();
      const model = scriptedModel([{ toolCalls: [{ id: "q", name: "ask_user", arguments: {} }] }]);
      let answererSignal: AbortSignal | undefined;
      const agent = new Agent({
        model,
        tools: [slowAsk(asked)],
        onInteraction: (_request, signal) => {
          answererSignal = signal;
          answering.open();
          return new Promise(() => {});
        },
      });
      const run = agent.run("go", { signal: controller.signal });
      await answering.wait();
      expect(asked.opened).toBe(true);
      controller.abort();
      const result = await run.result;
      expect(result.stop).toBe("cancelled");
      expect(answererSignal?.aborted).toBe(true);
      expect(transcriptProblems(result.conversation.messages)).toEqual([]);
      expect(result.conversation.messages.at(-1)?.content).toMatchObject([
        { type: "tool_result", toolUseId: "q", isError: true },
      ]);
      expect(model.requests).toHaveLength(1);
    });

    test("between turns: an abort after the results stops the run before the next model call", async () => {
      const controller = new AbortController();
      const model = scriptedModel([
        { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
        { text: "x" },
      ]);
      const agent = new Agent({ model, tools: [echo] });
      agent.on("tool_result", () => controller.abort());
      const result = await agent.run("go", { signal: controller.signal }).result;
      expect(result).toMatchObject({ stop: "cancelled", turns: 1 });
      expect(model.requests).toHaveLength(1);
      expect(result.conversation.messages[2]?.content).toMatchObject([
        { type: "tool_result", isError: false, content: [{ type: "text", text: "x" }] },
      ]);
      expect(result.conversation.messages.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "user",
      ]);
      expect(transcriptProblems(result.conversation.messages)).toEqual([]);
    });

    test("during the final answer turn: stops with cancelled, keeping the partial answer", async () => {
      const controller = new AbortController();
      const model = createBlockingModel("Partial fin");
      const run = new Agent({ model, maxTurns: 0 }).run("go", { signal: controller.signal });
      await model.blocked.wait();
      controller.abort();
      const result = await run.result;
      expect(result).toMatchObject({ stop: "cancelled", turns: 0, text: "Partial fin" });
      expect(model.cancelled).toBe(true);
      expect(transcriptProblems(result.conversation.messages)).toEqual([]);
    });

    test("aborts a real adapter's fetch mid-stream, drops half-streamed calls, keeps the text", async () => {
      const controller = new AbortController();
      const streaming = createGate();
      const fake = createFakeFetch((call) => {
        streaming.open();
        const partialCall = {
          choices: [
            { delta: { tool_calls: [{ index: 0, id: "c1", function: { name: "echo" } }] } },
          ],
        };
        return sseResponse([openAIText("Looking "), openAIText("it up"), partialCall], {
          hang: call.signal,
        });
      });
      const model = openAICompatible({
        baseURL: "http://x/v1",
        model: "m",
        fetch: fake.fetch,
        retry: false,
      });
      const run = new Agent({ model, tools: [echo] }).run("go", { signal: controller.signal });
      const events: AgentEvent[] = [];
      for await (const event of run) {
        events.push(event);
        if (event.type === "text_delta" && event.text === "it up") controller.abort();
      }
      const result = await run.result;
      expect(streaming.opened).toBe(true);
      expect(fake.calls[0]?.signal?.aborted).toBe(true);
      expect(result).toMatchObject({ stop: "cancelled", text: "Looking it up" });
      expect(result.conversation.messages.at(-1)).toEqual({
        role: "assistant",
        content: [{ type: "text", text: "Looking it up" }],
      });
      expect(events.some((e) => e.type === "tool_call" || e.type === "error")).toBe(false);
    });

    test("leaves no abort listener behind on any signal that is still live", async () => {
      const counter = countAbortListeners();
      try {
        const asked = createGate();
        const write = defineTool({
          name: "write",
          description: "Writes",
          input: v.object({}),
          call: () => "wrote",
        });
        let turn = 0;
        const fake = createFakeFetch(() => {
          turn += 1;
          const calls = [
            { index: 0, id: "a", function: { name: "echo", arguments: '{"text":"x"}' } },
            { index: 1, id: "b", function: { name: "write", arguments: "{}" } },
            { index: 2, id: "c", function: { name: "ask_user", arguments: "{}" } },
          ];
          const first = [
            { choices: [{ delta: { tool_calls: calls }, finish_reason: "tool_calls" }] },
          ];
          const frames = turn === 1 ? first : [openAIText("done"), finishChunk];
          return sseResponse([...frames, "[DONE]"]);
        });
        const signal = new AbortController().signal;
        const model = openAICompatible({
          baseURL: "http://x/v1",
          model: "m",
          fetch: fake.fetch,
          retry: false,
        });
        const agent = new Agent({
          model,
          tools: [echo, write, slowAsk(asked)],
          approver: async () => ({ type: "allow" }),
          onInteraction: async (request) => InteractionResponse.submit(request.id, "Oslo"),
        });
        const result = await agent.run("go", { signal }).result;
        expect(result.stop).toBe("done");
        expect(counter.live()).toEqual([]);
      } finally {
        counter.restore();
      }
    });
  });

  describe("provider failures", () => {
    const KEY = "sk-secret-key-1234567890";

    async function runAgainst(respond: Parameters<typeof createFakeFetch>[0]) {
      const fake = createFakeFetch(respond);
      const model = openAICompatible({
        baseURL: "http://x/v1",
        apiKey: KEY,
        model: "m",
        fetch: fake.fetch,
        retry: false,
      });
      const run = new Agent({ model, tools: [echo] }).run("go");
      const events: AgentEvent[] = [];
      for await (const event of run) events.push(event);
      return { events, result: await run.result, fake };
    }

    function expectNoKey(value: unknown) {
      expect(JSON.stringify(value)).not.toContain(KEY);
      for (
        let e = value as { message?: unknown; cause?: unknown } | undefined;
        e;
        e = e.cause as typeof e
      ) {
        expect(String(e.message ?? "")).not.toContain(KEY);
      }
    }

    test.each([
      [401, "http"],
      [403, "http"],
      [404, "http"],
      [413, "http"],
      [429, "rate_limit"],
      [500, "http"],
      [529, "http"],
    ])(
      "HTTP %i stops with error %s, a typed error and no API key anywhere",
      async (status, type) => {
        const body = JSON.stringify({ error: { message: `bad key ${KEY}`, type: "x" } });
        const { events, result } = await runAgainst(
          () => new Response(body, { status, headers: { "retry-after": "7" } }),
        );
        expect(result.stop).toBe("error");
        expect(result.error).toBeInstanceOf(ModelError);
        expect(result.error).toMatchObject({ type, status });
        if (type === "rate_limit") expect(result.error).toMatchObject({ retryAfterMs: 7000 });
        expect(events.map((e) => e.type)).toEqual(["turn_start", "error", "done"]);
        expect(events[1]).toMatchObject({ type: "error", error: result.error });
        expectNoKey(events);
        expectNoKey(result);
        expectNoKey((events[1] as { error: unknown }).error);
        expect(transcriptProblems(result.conversation.messages)).toEqual([]);
      },
    );

    test("an error mid-stream after text and a tool call keeps a valid transcript", async () => {
      const { result, events } = await runAgainst(() =>
        sseResponse([
          openAIText("Half an "),
          {
            choices: [
              { delta: { tool_calls: [{ index: 0, id: "c", function: { name: "echo" } }] } },
            ],
          },
          { error: { message: `overloaded (${KEY})`, type: "server_error" } },
        ]),
      );
      expect(result).toMatchObject({ stop: "error", text: "Half an " });
      expect(result.error).toMatchObject({ type: "stream", code: "server_error" });
      expect(result.conversation.messages.at(-1)).toEqual({
        role: "assistant",
        content: [{ type: "text", text: "Half an " }],
      });
      expect(transcriptProblems(result.conversation.messages)).toEqual([]);
      expectNoKey(events);
    });

    test("after a rate limit, resuming the conversation with no new input retries the turn", async () => {
      const { result: failed } = await runAgainst(
        () => new Response("{}", { status: 429, headers: { "retry-after-ms": "250" } }),
      );
      expect(isModelError(failed.error, "rate_limit") && failed.error.retryAfterMs).toBe(250);
      const fake = createFakeFetch(() => sseResponse([openAIText("hello"), finishChunk, "[DONE]"]));
      const model = openAICompatible({
        baseURL: "http://x/v1",
        model: "m",
        fetch: fake.fetch,
        retry: false,
      });
      const saved = JSON.parse(JSON.stringify(failed.conversation));
      const retried = await new Agent({ model }).run("", { conversation: saved }).result;
      expect(retried).toMatchObject({ stop: "done", text: "hello" });
      expect(fake.calls[0]?.body.messages).toEqual([{ role: "user", content: "go" }]);
    });
  });

  describe("bad input", () => {
    test.each([
      ["a conversation without taint", { messages: [], rewritten: [] }, "go", "conversation.taint"],
      [
        "a message with an unknown role",
        {
          messages: [{ role: "system", content: [] }],
          taint: { private: false, untrusted: false },
        },
        "go",
        "conversation.messages[0].role",
      ],
      [
        "a block with an unknown type",
        {
          messages: [{ role: "user", content: [{ type: "video" }] }],
          taint: { private: false, untrusted: false },
        },
        "go",
        "conversation.messages[0].content[0]",
      ],
      ["input that is not text or messages", undefined, 42, "input"],
      ["empty text on a new conversation", undefined, "", "input must be non-empty text"],
      ["no messages on a new conversation", undefined, [], "input must be non-empty text"],
    ])(
      "%s ends the run with error and no model call",
      async (_name, conversation, input, where) => {
        const model = scriptedModel([{ text: "never" }]);
        const run = new Agent({ model }).run(input as string, {
          conversation: conversation as unknown as Conversation,
        });
        const result = await run.result;
        expect(result.stop).toBe("error");
        expect(isToolError(result.error, "invalid_configuration")).toBe(true);
        expect((result.error as Error).message).toContain(where);
        expect(model.requests).toHaveLength(0);
      },
    );

    test("a saved conversation without rewritten is accepted and keeps its taint", async () => {
      const model = scriptedModel([{ text: "ok" }]);
      const saved = { messages: [], taint: { private: true, untrusted: false } };
      const result = await new Agent({ model }).run("go", {
        conversation: saved as unknown as Conversation,
      }).result;
      expect(result.stop).toBe("done");
      expect(result.conversation.taint).toEqual({ private: true, untrusted: false });
      expect(result.conversation.rewritten).toEqual([]);
    });
  });

  const finishChunk = { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };

  /**
   * Counts `abort` listeners per signal while installed, so a test can show that every listener
   * the run added to a signal that is still live was removed again.
   */
  function countAbortListeners() {
    const live = new Map<AbortSignal, Set<unknown>>();
    const proto = AbortSignal.prototype as unknown as Record<string, unknown>;
    const { addEventListener: add, removeEventListener: remove } = EventTarget.prototype;
    proto.addEventListener = function (
      this: AbortSignal,
      type: string,
      listener: unknown,
      o: unknown,
    ) {
      if (type === "abort") live.set(this, (live.get(this) ?? new Set()).add(listener));
      return add.call(this, type, listener as EventListener, o as AddEventListenerOptions);
    };
    proto.removeEventListener = function (
      this: AbortSignal,
      type: string,
      listener: unknown,
      o: unknown,
    ) {
      if (type === "abort") live.get(this)?.delete(listener);
      return remove.call(this, type, listener as EventListener, o as EventListenerOptions);
    };
    return {
      live: () => [...live].filter(([signal, set]) => !signal.aborted && set.size > 0),
      restore() {
        delete proto.addEventListener;
        delete proto.removeEventListener;
      },
    };
  }
});

describe("checking options", () => {
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
      expect(await rejection({ model, toolsets: [echo] })).toContain(
        "toolsets[0] is not a Toolset",
      );
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
});

describe("events", () => {
  const tool = (name: string, readOnly: boolean, call: () => string | Promise<string>) =>
    defineTool({ name, description: name, readOnly, input: v.object({}), call });

  describe("tool_result outcomes", () => {
    test("a run reports executed, refused, unknown and cancelled calls, the same on stream and emitter", async () => {
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
        // It aborted the run while it ran, so its result reports the cancellation.
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
        {
          text: "Out of turns.",
          usage: { inputTokens: 180, outputTokens: 5, cacheReadTokens: 90 },
        },
      ]);
      const tools = [tool("read", true, () => "ok")];
      // The second turn reports no usage, so it has no usage event.
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
});
