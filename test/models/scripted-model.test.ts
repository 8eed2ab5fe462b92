import { describe, expect, test } from "vitest";
import type { ModelRequest } from "../../src/models/model.ts";
import { isModelError } from "../../src/models/model-error.ts";
import { scriptedModel, textDeltas } from "../../src/models/scripted-model.ts";
import { collect, textOf } from "../support/model-collect.ts";

const request: ModelRequest = {
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
};

describe("scriptedModel", () => {
  test("streams text in a few deltas, then tool calls with generated ids, usage and finish", async () => {
    const model = scriptedModel([
      {
        text: "Let me add those numbers for you",
        toolCalls: [
          { name: "add", arguments: { a: 1, b: 2 } },
          { id: "mine", name: "log", arguments: {} },
        ],
        usage: { inputTokens: 10, outputTokens: 4 },
      },
      { toolCalls: [{ name: "add", arguments: { a: 3, b: 4 } }] },
      { text: "3 and 7" },
    ]);
    const first = await collect(model.stream(request));
    expect(textOf(first.events)).toBe("Let me add those numbers for you");
    expect(first.events.filter((e) => e.type === "text_delta").length).toBe(3);
    expect(first.events.slice(3)).toEqual([
      { type: "tool_call", id: "call_1", name: "add", arguments: { a: 1, b: 2 } },
      { type: "tool_call", id: "mine", name: "log", arguments: {} },
      { type: "usage", inputTokens: 10, outputTokens: 4 },
      { type: "finish", reason: "tool_calls" },
    ]);
    const second = await collect(model.stream(request));
    expect(second.events).toEqual([
      { type: "tool_call", id: "call_3", name: "add", arguments: { a: 3, b: 4 } },
      { type: "finish", reason: "tool_calls" },
    ]);
    const third = await collect(model.stream(request));
    expect(third.events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(model.id).toBe("scripted");
  });

  test("fails with invalid_response once the turns run out", async () => {
    const model = scriptedModel([{ text: "only" }]);
    await collect(model.stream(request));
    const { events, error } = await collect(model.stream(request));
    expect(events).toEqual([]);
    expect(isModelError(error, "invalid_response")).toBe(true);
    expect((error as Error).message).toContain("no turn 2 was scripted (1 given)");
  });

  test("takes turns from a function of the request and the turn number, and records requests", async () => {
    const model = scriptedModel((req, turn) => ({ text: `turn ${turn}: ${req.messages.length}` }), {
      id: "fake",
      contextWindow: 1000,
    });
    const mutable: ModelRequest = { ...request, messages: [...request.messages] };
    expect(textOf((await collect(model.stream(mutable))).events)).toBe("turn 0: 1");
    mutable.messages.push({ role: "assistant", content: [] });
    expect(textOf((await collect(model.stream(mutable))).events)).toBe("turn 1: 2");
    expect(model.requests.map((r) => r.messages.length)).toEqual([1, 2]);
    expect(model.contextWindow).toBe(1000);
    expect(model.id).toBe("fake");
  });

  test("fails with a scripted error after the text", async () => {
    const model = scriptedModel([
      { text: "part", error: { type: "stream", provider: "scripted", message: "cut" } },
    ]);
    const { events, error } = await collect(model.stream(request));
    expect(textOf(events)).toBe("part");
    expect(isModelError(error, "stream")).toBe(true);
  });

  test("reports a scripted finish reason", async () => {
    const { events } = await collect(
      scriptedModel([{ text: "abc", finish: "length" }]).stream(request),
    );
    expect(events.at(-1)).toEqual({ type: "finish", reason: "length" });
  });

  test("a pre-aborted signal fails with cancelled and consumes the turn", async () => {
    const model = scriptedModel([{ text: "a" }, { text: "b" }]);
    const { error } = await collect(model.stream(request, { signal: AbortSignal.abort() }));
    expect(isModelError(error, "cancelled")).toBe(true);
    expect(textOf((await collect(model.stream(request))).events)).toBe("b");
  });

  test("aborting a stalled stream fails it with cancelled, keeping the text read so far", async () => {
    const controller = new AbortController();
    const model = scriptedModel([{ text: "partial answer", stall: true }]);
    const reader = model.stream(request, { signal: controller.signal }).getReader();
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { value } = await reader.read();
      if (value?.type === "text_delta") seen.push(value.text);
    }
    const pending = reader.read().catch((e: unknown) => e);
    controller.abort("stop");
    const error = await pending;
    expect(seen.join("")).toBe("partial answer");
    expect(error).toMatchObject({ type: "cancelled", data: { reason: "stop" } });
  });

  test("gives every stream its own copy of the arguments", async () => {
    const args = { list: [1] };
    const model = scriptedModel(() => ({ toolCalls: [{ name: "f", arguments: args }] }));
    const { events } = await collect(model.stream(request));
    const call = events[0];
    if (call?.type !== "tool_call") throw new Error("expected a tool call");
    (call.arguments as { list: number[] }).list.push(2);
    expect(args.list).toEqual([1]);
  });

  test("copies flat and nested arguments, and keeps values that are not plain data", async () => {
    const flat = { text: "hi", n: 1, none: null, skip: undefined };
    const nested = { list: [1], when: new Date(0) };
    const model = scriptedModel(() => ({
      toolCalls: [
        { name: "f", arguments: flat },
        { name: "g", arguments: nested },
        { name: "h", arguments: "plain" },
      ],
    }));
    const { events } = await collect(model.stream(request));
    const args = events.flatMap((e) => (e.type === "tool_call" ? [e.arguments] : []));
    expect(args).toEqual([flat, nested, "plain"]);
    expect(args[0]).not.toBe(flat);
    expect((args[1] as typeof nested).when).toBeInstanceOf(Date);
    (args[0] as { text: string }).text = "changed";
    expect(flat.text).toBe("hi");
  });

  test("an abort between reads fails the next read; nothing read ahead is delivered", async () => {
    const controller = new AbortController();
    const model = scriptedModel([
      { text: "one two three", toolCalls: [{ name: "f", arguments: {} }] },
    ]);
    const reader = model.stream(request, { signal: controller.signal }).getReader();
    expect((await reader.read()).value).toEqual({ type: "text_delta", text: "one " });
    controller.abort("stop");
    const error = await reader.read().catch((e: unknown) => e);
    expect(error).toMatchObject({ type: "cancelled", data: { reason: "stop" } });
  });

  test("an abort while the script's promise is pending fails the stream with cancelled", async () => {
    const controller = new AbortController();
    const model = scriptedModel(() => new Promise<never>(() => {}));
    const pending = collect(model.stream(request, { signal: controller.signal }));
    controller.abort("stop");
    const { events, error } = await pending;
    expect(events).toEqual([]);
    expect(error).toMatchObject({ type: "cancelled", data: { reason: "stop" } });
  });

  test("a script that throws or rejects fails the stream; stream() itself never throws", async () => {
    const boom = new Error("boom");
    const throwing = scriptedModel(() => {
      throw boom;
    });
    expect((await collect(throwing.stream(request))).error).toBe(boom);
    const rejecting = scriptedModel(() => Promise.reject(boom));
    expect((await collect(rejecting.stream(request))).error).toBe(boom);
    const late = scriptedModel(async () => ({ text: "later" }));
    expect(textOf((await collect(late.stream(request))).events)).toBe("later");
  });

  test("makes no calls when the request forbids them, as a provider would, and records it", async () => {
    const model = scriptedModel([
      { text: "Answer.", toolCalls: [{ name: "echo", arguments: {} }] },
      { toolCalls: [{ name: "echo", arguments: {} }] },
    ]);
    const tools = [{ name: "echo", inputSchema: { type: "object" } }];
    const messages = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];
    const { events } = await collect(model.stream({ messages, tools, toolChoice: "none" }));
    expect(events.filter((e) => e.type === "tool_call")).toEqual([]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(model.requests[0]?.toolChoice).toBe("none");
    const next = await collect(model.stream({ messages, tools, toolChoice: "auto" }));
    expect(next.events[0]).toMatchObject({ type: "tool_call", id: "call_1" });
  });
});

describe("textDeltas", () => {
  test("cuts text into at most three pieces at word boundaries", () => {
    expect(textDeltas("")).toEqual([]);
    expect(textDeltas("one")).toEqual(["one"]);
    expect(textDeltas("a b c d e f g")).toEqual(["a b c ", "d e f ", "g"]);
    expect(textDeltas("  lead and\ntrail ").join("")).toBe("  lead and\ntrail ");
  });

  test("streams scripted reasoning before the text, then the whole block", async () => {
    const model = scriptedModel([{ reasoning: "first think", text: "then answer" }]);
    const { events } = await collect(model.stream({ messages: [], tools: [] }));
    expect(events.map((e) => e.type)).toEqual([
      "reasoning_delta",
      "reasoning_delta",
      "reasoning",
      "text_delta",
      "text_delta",
      "finish",
    ]);
    expect(events[2]).toEqual({
      type: "reasoning",
      block: { type: "reasoning", text: "first think" },
    });
  });
});
