import { describe, expect, test } from "vitest";
import type { AgentEvent } from "../../src/agent/index.ts";
import { streamModelTurn } from "../../src/agent/model-turn.ts";
import type { Model } from "../../src/models/model.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";

const request = { messages: [], tools: [] };

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
      reasoning: [],
      text: "Hello there",
      toolCalls: [{ id: "t", name: "x", arguments: { a: 1 } }],
      usage: { inputTokens: 3, outputTokens: 4 },
      finish: "tool_calls",
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
    // Hint: the event carries a copy; a listener editing it cannot change what the run counts.
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
          // Hint: pulled one chunk at a time, so the usage is read before the stream breaks.
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
