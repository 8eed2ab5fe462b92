// Provider streams as the servers send them, built from each provider's documented format,
// its source and public bug reports (docs/design.md, "Models"). Each case is replayed whole
// and re-cut into 3-byte slices through the local replay server, so a decoder that depends on
// where the network splits a frame fails here.

import * as v from "valibot";
import { afterEach, describe, expect, test } from "vitest";
import { Agent } from "../../src/agent/agent.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import { anthropic } from "../../src/models/anthropic.ts";
import type { Model, ModelEvent, ModelRequest } from "../../src/models/model.ts";
import { isModelError } from "../../src/models/model-error.ts";
import { openAICompatible } from "../../src/models/openai-compatible.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { serverToolRecordings, webSearch } from "../support/anthropic-server-tool-streams.ts";
import { argumentPieces, collect, textOf } from "../support/model-collect.ts";
import {
  type ReplayExchange,
  type ReplayServer,
  replayError,
  replaySse,
  startReplayServer,
} from "../support/model-replay-server.ts";
import { cutEvery, sseFrame, utf8 } from "../support/sse-wire.ts";

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const request: ModelRequest = {
  messages: [{ role: "user", content: [{ type: "text", text: "go" }] }],
  tools: [{ name: "get", inputSchema: { type: "object" } }],
};

type Make = (url: string) => Model;
const openai: Make = (url) => openAICompatible({ baseURL: `${url}/v1`, model: "m", retry: false });
const claude: Make = (url) =>
  anthropic({ baseURL: url, apiKey: "sk-ant-test-key", model: "c", retry: false });

async function replay(make: Make, body: string, slice?: number) {
  const bytes = utf8(body);
  const chunks = slice ? cutEvery(bytes, slice) : [bytes];
  server = await startReplayServer((exchange) => replaySse(exchange, chunks), 0);
  const result = await collect(make(server.url).stream(request));
  await server.close();
  server = undefined;
  return result;
}

/**
 * Runs the case whole and in 3-byte slices; both must decode the same. Every call with
 * arguments must have streamed them (`collect` checks that the pieces join to them).
 */
async function both(make: Make, body: string) {
  const whole = await replay(make, body);
  const sliced = await replay(make, body, 3);
  expect(sliced.events).toEqual(whole.events);
  expect(String(sliced.error)).toEqual(String(whole.error));
  const pieces = argumentPieces(whole.events);
  for (const call of whole.events) {
    if (call.type !== "tool_call" || isEmptyObject(call.arguments)) continue;
    expect(pieces.get(call.id), `pieces of ${call.id}`).toBeTruthy();
  }
  return whole;
}

const isEmptyObject = (value: unknown) =>
  typeof value === "object" && value !== null && Object.keys(value).length === 0;

const chat = (delta: object, finish: string | null = null, extra: object = {}) =>
  sseFrame({
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
const done = "data: [DONE]\n\n";
const ev = (data: { type: string }) => sseFrame(data, data.type);

const kinds = (events: readonly ModelEvent[]) => events.map((e) => e.type);
const calls = (events: readonly ModelEvent[]) => events.filter((e) => e.type === "tool_call");
const finishOf = (events: readonly ModelEvent[]) =>
  [...events].reverse().find((e) => e.type === "finish");

describe("OpenAI-compatible streams", () => {
  test("Mistral: delta.content as typed parts, thinking apart from text", async () => {
    const body =
      chat({
        role: "assistant",
        content: [{ type: "thinking", thinking: [{ type: "text", text: "Let me see" }] }],
      }) +
      chat({ content: [{ type: "text", text: "The answer" }] }) +
      chat({ content: " is 4." }, "stop") +
      done;
    const { events, error } = await both(openai, body);
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("The answer is 4.");
    expect(events).toContainEqual({ type: "reasoning_delta", text: "Let me see" });
    expect(events).toContainEqual({
      type: "reasoning",
      block: { type: "reasoning", text: "Let me see" },
    });
  });

  test("Ollama 0.20: parallel calls all at index 0 with different ids stay separate", async () => {
    const call = (id: string, city: string) => ({
      tool_calls: [
        {
          index: 0,
          id,
          type: "function",
          function: { name: "get", arguments: `{"city":"${city}"}` },
        },
      ],
    });
    const body =
      chat(call("call_a", "Paris")) + chat(call("call_b", "Rome")) + chat({}, "tool_calls") + done;
    const { events } = await both(openai, body);
    expect(calls(events)).toEqual([
      { type: "tool_call", id: "call_a", name: "get", arguments: { city: "Paris" } },
      { type: "tool_call", id: "call_b", name: "get", arguments: { city: "Rome" } },
    ]);
  });

  test("arguments stream as tool_input_delta pieces per call, parallel calls interleaved, before their tool_call", async () => {
    const piece = (index: number, args: string, head?: { id: string; name: string }) => ({
      tool_calls: [
        {
          index,
          ...(head ? { id: head.id, type: "function" } : {}),
          function: { ...(head ? { name: head.name } : {}), arguments: args },
        },
      ],
    });
    const body =
      chat(piece(0, "", { id: "call_a", name: "get" })) +
      chat(piece(1, '{"ci', { id: "call_b", name: "get" })) +
      chat(piece(0, '{"city":')) +
      chat(piece(1, 'ty":"Rome"}')) +
      chat(piece(0, '"Paris"}')) +
      chat({}, "tool_calls") +
      done;
    const { events } = await both(openai, body);
    expect(events.filter((e) => e.type === "tool_input_delta")).toEqual([
      { type: "tool_input_delta", id: "call_b", name: "get", text: '{"ci' },
      { type: "tool_input_delta", id: "call_a", name: "get", text: '{"city":' },
      { type: "tool_input_delta", id: "call_b", name: "get", text: 'ty":"Rome"}' },
      { type: "tool_input_delta", id: "call_a", name: "get", text: '"Paris"}' },
    ]);
    expect(kinds(events)).toEqual([
      ...Array(4).fill("tool_input_delta"),
      "tool_call",
      "tool_call",
      "finish",
    ]);
    expect(calls(events).map((e) => e.type === "tool_call" && e.arguments)).toEqual([
      { city: "Paris" },
      { city: "Rome" },
    ]);
  });

  test("a server that sends one id for every call: each call's pieces and tool_call share an id of their own", async () => {
    const head = (index: number) => ({
      tool_calls: [
        { index, id: "same", type: "function", function: { name: "get", arguments: "" } },
      ],
    });
    const args = (index: number, text: string) => ({
      tool_calls: [{ index, function: { arguments: text } }],
    });
    const body =
      chat(head(0)) +
      chat(args(0, '{"city":"Paris"}')) +
      chat(head(1)) +
      chat(args(1, '{"city":"Rome"}')) +
      chat({}, "tool_calls") +
      done;
    const { events } = await both(openai, body);
    const ids = calls(events).map((e) => e.type === "tool_call" && e.id);
    expect(ids).toEqual(["same", "call_2"]);
    expect(argumentPieces(events)).toEqual(
      new Map([
        ["same", '{"city":"Paris"}'],
        ["call_2", '{"city":"Rome"}'],
      ]),
    );
  });

  test("vLLM: a flat error object mid-stream, then [DONE], fails the turn with its message", async () => {
    const body =
      chat({ content: "Partial" }) +
      sseFrame({
        object: "error",
        message: "engine died: out of KV cache",
        type: "InternalServerError",
        code: 500,
      }) +
      done;
    const { events, error } = await both(openai, body);
    expect(textOf(events)).toBe("Partial");
    expect(finishOf(events)).toBeUndefined();
    expect(isModelError(error, "stream")).toBe(true);
    expect(String(error)).toContain("out of KV cache");
  });

  test("llama.cpp: an event: error frame keeps the server's message", async () => {
    const body =
      chat({ content: "x" }) +
      sseFrame({ code: 500, message: "the context is full", type: "server_error" }, "error");
    const { error } = await both(openai, body);
    expect(String(error)).toContain("the context is full");
    expect(String(error)).not.toContain("ended early");
  });

  test("Groq: usage under x_groq", async () => {
    const body =
      chat({ content: "hi" }) +
      chat({}, "stop", {
        x_groq: { id: "req_1", usage: { prompt_tokens: 12, completion_tokens: 3 } },
      }) +
      done;
    const { events } = await both(openai, body);
    expect(events).toContainEqual({ type: "usage", inputTokens: 12, outputTokens: 3 });
  });

  test("DeepSeek reasoning_content and OpenRouter reasoning stream as reasoning, never as text", async () => {
    for (const field of ["reasoning_content", "reasoning"]) {
      const body = chat({ [field]: "think" }) + chat({ content: "ok" }, "stop") + done;
      const { events } = await both(openai, body);
      expect(textOf(events)).toBe("ok");
      expect(kinds(events)).toEqual(["reasoning_delta", "text_delta", "reasoning", "finish"]);
    }
  });

  test("Gemini via OpenAI-compatible: the thought signature rides on the call", async () => {
    const body =
      chat({
        tool_calls: [
          {
            index: 0,
            id: "c1",
            type: "function",
            function: { name: "get", arguments: "{}" },
            extra_content: { google: { thought_signature: "sig-abc" } },
          },
        ],
      }) +
      chat({}, "tool_calls") +
      done;
    const { events } = await both(openai, body);
    expect(calls(events)).toEqual([
      { type: "tool_call", id: "c1", name: "get", arguments: {}, signature: "sig-abc" },
    ]);
  });

  test("OpenAI: delta.refusal arrives as text with finish reason refusal", async () => {
    const body = chat({ refusal: "I can't help with that." }) + chat({}, "stop") + done;
    const { events } = await both(openai, body);
    expect(textOf(events)).toBe("I can't help with that.");
    expect(finishOf(events)).toEqual({ type: "finish", reason: "refusal" });
  });

  test("length and content_filter are reported as such", async () => {
    for (const reason of ["length", "content_filter"] as const) {
      const { events } = await both(openai, chat({ content: "cut" }, reason) + done);
      expect(finishOf(events)).toEqual({ type: "finish", reason });
    }
  });

  test("LM Studio at a baseURL without /v1: a 200 JSON error body keeps the server's message", async () => {
    server = await startReplayServer(async (exchange: ReplayExchange) => {
      exchange.head(200, { "content-type": "application/json" });
      await exchange.write(
        JSON.stringify({ error: "Unexpected endpoint or method. (POST /chat/completions)" }),
      );
      exchange.end();
    });
    const { error } = await collect(openai(server.url).stream(request));
    expect(isModelError(error, "http")).toBe(true);
    expect(String(error)).toContain("Unexpected endpoint or method");
  });

  test("429 with only x-ratelimit-reset-* headers gives retryAfterMs from the exhausted limit", async () => {
    server = await startReplayServer((exchange) =>
      replayError(
        exchange,
        429,
        { error: { message: "Rate limit reached", type: "requests" } },
        {
          "x-ratelimit-remaining-requests": "0",
          "x-ratelimit-reset-requests": "1m2.5s",
          "x-ratelimit-remaining-tokens": "9000",
          "x-ratelimit-reset-tokens": "6m0s",
        },
      ),
    );
    const { error } = await collect(openai(server.url).stream(request));
    expect(error).toMatchObject({ type: "rate_limit", retryAfterMs: 62_500 });
  });
});

describe("OpenAI-compatible requests", () => {
  async function sent(make: Make, req: ModelRequest = request) {
    server = await startReplayServer((exchange) =>
      replaySse(exchange, [utf8(chat({}, "stop") + done)]),
    );
    await collect(make(server.url).stream(req));
    return server.requests[0];
  }

  test("a cut-off call's raw arguments go back as {} and its thought signature with it", async () => {
    const req: ModelRequest = {
      messages: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "private", signature: "x" },
            { type: "tool_use", id: "c1", name: "get", input: '{"city": "Par', signature: "sig" },
          ],
        },
        {
          role: "user",
          content: [{ type: "tool_result", toolUseId: "c1", content: [], isError: true }],
        },
      ],
      tools: request.tools,
    };
    const body = (await sent(openai, req))?.body as { messages: { tool_calls?: unknown[] }[] };
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "c1",
          type: "function",
          function: { name: "get", arguments: "{}" },
          extra_content: { google: { thought_signature: "sig" } },
        },
      ],
    });
  });

  test("reasoning models get max_completion_tokens; the settings go under their wire names", async () => {
    const make: Make = (url) =>
      openAICompatible({
        baseURL: `${url}/v1`,
        model: "o4-mini",
        maxTokens: 500,
        temperature: 0.2,
        topP: 0.9,
        stop: ["END"],
        seed: 7,
        parallelToolCalls: false,
        reasoningEffort: "low",
        extraBody: { service_tier: "flex" },
      });
    const body = (await sent(make, { ...request, toolChoice: { type: "tool", name: "get" } }))
      ?.body;
    expect(body).toMatchObject({
      max_completion_tokens: 500,
      temperature: 0.2,
      top_p: 0.9,
      stop: ["END"],
      seed: 7,
      parallel_tool_calls: false,
      reasoning_effort: "low",
      service_tier: "flex",
      tool_choice: { type: "function", function: { name: "get" } },
    });
    expect(body).not.toHaveProperty("max_tokens");
    const plain = (
      await (async () => {
        await server?.close();
        return sent(
          (url) => openAICompatible({ baseURL: `${url}/v1`, model: "llama3", maxTokens: 5 }),
          {
            ...request,
            toolChoice: "required",
          },
        );
      })()
    )?.body;
    expect(plain).toMatchObject({ max_tokens: 5, tool_choice: "required" });
  });

  test("an Azure baseURL keeps its api-version query after /chat/completions", async () => {
    server = await startReplayServer((exchange) =>
      replaySse(exchange, [utf8(chat({}, "stop") + done)]),
    );
    const model = openAICompatible({
      baseURL: `${server.url}/openai/deployments/gpt4o?api-version=2024-10-21`,
      model: "gpt-4o",
      headers: { "api-key": "azure-secret-key" },
    });
    await collect(model.stream(request));
    expect(server.requests[0]?.path).toBe(
      "/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21",
    );
    expect(server.requests[0]?.headers["api-key"]).toBe("azure-secret-key");
  });
});

describe("Anthropic streams", () => {
  const start = ev({
    type: "message_start",
    message: { usage: { input_tokens: 5, output_tokens: 1 } },
  } as never);
  const end = (reason: string) =>
    ev({
      type: "message_delta",
      delta: { stop_reason: reason },
      usage: { output_tokens: 9 },
    } as never) + ev({ type: "message_stop" });

  test("a tool's whole input in content_block_start, with no input_json_delta", async () => {
    const body =
      start +
      ev({
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_1", name: "get", input: { city: "Oslo" } },
      } as never) +
      ev({ type: "content_block_stop", index: 0 } as never) +
      end("tool_use");
    const { events } = await both(claude, body);
    expect(calls(events)).toEqual([
      { type: "tool_call", id: "toolu_1", name: "get", arguments: { city: "Oslo" } },
    ]);
  });

  test("thinking streams as reasoning; the block keeps its signature; redacted thinking is kept", async () => {
    const body =
      start +
      ev({
        type: "content_block_start",
        index: 0,
        content_block: { type: "thinking", thinking: "" },
      } as never) +
      ev({
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: "Two and two" },
      } as never) +
      ev({
        type: "content_block_delta",
        index: 0,
        delta: { type: "signature_delta", signature: "EqQBCg" },
      } as never) +
      ev({ type: "content_block_stop", index: 0 } as never) +
      ev({
        type: "content_block_start",
        index: 1,
        content_block: { type: "redacted_thinking", data: "EmwKAh" },
      } as never) +
      ev({ type: "content_block_stop", index: 1 } as never) +
      ev({
        type: "content_block_start",
        index: 2,
        content_block: { type: "text", text: "" },
      } as never) +
      ev({
        type: "content_block_delta",
        index: 2,
        delta: { type: "text_delta", text: "Four." },
      } as never) +
      ev({ type: "content_block_stop", index: 2 } as never) +
      end("end_turn");
    const { events } = await both(claude, body);
    expect(textOf(events)).toBe("Four.");
    expect(events.filter((e) => e.type === "reasoning")).toEqual([
      { type: "reasoning", block: { type: "reasoning", text: "Two and two", signature: "EqQBCg" } },
      { type: "reasoning", block: { type: "reasoning", text: "", redacted: "EmwKAh" } },
    ]);
  });

  // Issue 22, item 3: llama.cpp's Anthropic-compatible endpoint sends its error as
  // `event: error`, wrapped or flat; the message and code must survive.
  test("llama.cpp: an error frame keeps the server's message and code, whatever its shape", async () => {
    const error = {
      code: 500,
      message: "Input prompt is too big compared to KV size",
      type: "server_error",
    };
    const text = ev({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    } as never);
    const frames = [
      sseFrame({ type: "error", error }, "error"),
      sseFrame({ error }, "error"),
      sseFrame(error, "error"),
      sseFrame(error),
    ];
    for (const frame of frames) {
      const { error: failure } = await both(claude, start + text + frame);
      expect(isModelError(failure)).toBe(true);
      expect(failure).toMatchObject({ code: "server_error", type: "context_overflow" });
      expect(String(failure)).toContain("Input prompt is too big compared to KV size");
      expect(String(failure)).not.toContain("ended early");
    }
  });

  test("a refusal stop reason finishes with refusal", async () => {
    const { events } = await both(claude, `${start}${end("refusal")}`);
    expect(finishOf(events)).toEqual({ type: "finish", reason: "refusal" });
  });

  test("429 with anthropic-ratelimit-*-reset gives retryAfterMs", async () => {
    const reset = new Date(Date.now() + 30_000).toISOString();
    server = await startReplayServer((exchange) =>
      replayError(
        exchange,
        429,
        { type: "error", error: { type: "rate_limit_error", message: "slow" } },
        {
          "anthropic-ratelimit-requests-remaining": "0",
          "anthropic-ratelimit-requests-reset": reset,
        },
      ),
    );
    const { error } = await collect(claude(server.url).stream(request));
    expect(isModelError(error, "rate_limit")).toBe(true);
    const wait = (error as { retryAfterMs?: number }).retryAfterMs ?? 0;
    expect(wait).toBeGreaterThan(20_000);
    expect(wait).toBeLessThanOrEqual(30_000);
  });
});

// Issue 22, item 2: tools Anthropic runs itself are server content, never local tool calls.
describe("Anthropic server tools", () => {
  const endTurn =
    ev({
      type: "message_start",
      message: { usage: { input_tokens: 9, output_tokens: 1 } },
    } as never) +
    ev({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    } as never) +
    ev({
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: "Done." },
    } as never) +
    ev({ type: "content_block_stop", index: 0 } as never) +
    ev({ type: "message_delta", delta: { stop_reason: "end_turn" } } as never) +
    ev({ type: "message_stop" });

  for (const recording of serverToolRecordings) {
    test(`${recording.tool}: its blocks come out whole as server_tool, never as tool_call`, async () => {
      const { events, error } = await both(claude, recording.sse);
      expect(error).toBeUndefined();
      expect(textOf(events)).toBe(recording.text);
      const server = events.flatMap((e) => (e.type === "server_tool" ? [e.block] : []));
      expect(server).toEqual(
        recording.blocks.map((data) => ({ type: "server_tool", provider: "anthropic", data })),
      );
      expect(calls(events).map((e) => (e as { id: string }).id)).toEqual(
        recording.stopReason === "tool_use" ? ["toolu_01XYZ789"] : [],
      );
      expect(finishOf(events)).toEqual({
        type: "finish",
        reason: recording.stopReason === "tool_use" ? "tool_calls" : "stop",
      });
    });
  }

  test("pause_turn: the paused turn goes back as it is and the model carries on", async () => {
    const paused = webSearch.sse.replace('"stop_reason":"end_turn"', '"stop_reason":"pause_turn"');
    const { events } = await both(claude, paused);
    expect(finishOf(events)).toEqual({ type: "finish", reason: "pause" });
    const bodies = [paused, endTurn];
    server = await startReplayServer((exchange) =>
      replaySse(exchange, [utf8(bodies.shift() ?? endTurn)]),
    );
    const result = await new Agent({ model: claude(server.url) }).run("news?").result;
    expect(result).toMatchObject({ stop: "done", text: "Done.", finishReason: "stop" });
    expect(server.requests).toHaveLength(2);
    const sent = server.requests[1]?.body as { messages: { role: string; content: unknown[] }[] };
    expect(sent.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(sent.messages[1]?.content).toEqual([
      ...webSearch.blocks,
      { type: "text", text: webSearch.text },
    ]);
    // The continuation joins the paused turn's message: no two assistant messages in a row.
    expect(result.conversation.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(result.conversation.messages[1]?.content.at(-1)).toEqual({
      type: "text",
      text: "Done.",
    });
  });

  test("an agent keeps every server tool's blocks and sends them back unchanged, running only its own tools", async () => {
    for (const recording of serverToolRecordings) {
      const bodies = [recording.sse, endTurn, endTurn];
      server = await startReplayServer((exchange) =>
        replaySse(exchange, [utf8(bodies.shift() ?? endTurn)]),
      );
      const ran: unknown[] = [];
      const get = defineTool({
        name: "get",
        description: "Weather",
        readOnly: true,
        input: v.object({ city: v.string() }),
        call: (input) => {
          ran.push(input);
          return "sunny";
        },
      });
      const search = { type: "web_search_20250305", name: "web_search", max_uses: 5 };
      const model = anthropic({
        baseURL: server.url,
        apiKey: "sk-ant-test-key",
        model: "c",
        serverTools: [search],
      });
      const agent = new Agent({ model, tools: [get] });
      const first = await agent.run("go").result;
      const declared = server.requests[0]?.body as { tools?: unknown[] } | undefined;
      expect(declared?.tools).toEqual([
        { name: "get", description: "Weather", input_schema: expect.any(Object) },
        search,
      ]);
      expect(first.stop).toBe("done");
      const second = await agent.run("and?", { conversation: first.conversation }).result;
      expect(second.stop).toBe("done");
      const searched = recording.stopReason === "tool_use";
      expect(ran).toEqual(searched ? [{ city: "Paris" }] : []);
      expect(server.requests).toHaveLength(searched ? 3 : 2);
      const last = server.requests.at(-1)?.body as { messages: { content: unknown[] }[] };
      // The assistant message of the recorded turn: the server blocks exactly as the API sent
      // them, then the text, then the client call when there was one.
      const sent = last.messages[1]?.content ?? [];
      expect(sent.slice(0, recording.blocks.length)).toEqual(recording.blocks);
      expect(sent[recording.blocks.length]).toEqual({ type: "text", text: recording.text });
      if (searched) {
        expect(sent.at(-1)).toMatchObject({ type: "tool_use", id: "toolu_01XYZ789", name: "get" });
        expect(last.messages[2]?.content).toEqual([
          {
            type: "tool_result",
            tool_use_id: "toolu_01XYZ789",
            content: [{ type: "text", text: "sunny" }],
          },
        ]);
      }
      await server.close();
      server = undefined;
    }
  });
});

describe("retries on the wire", () => {
  const overloaded = sseFrame(
    { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    "error",
  );
  const answer =
    sseFrame({ type: "message_start", message: { usage: { input_tokens: 1 } } }, "message_start") +
    sseFrame(
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } },
      "content_block_delta",
    ) +
    sseFrame({ type: "message_delta", delta: { stop_reason: "end_turn" } }, "message_delta") +
    sseFrame({ type: "message_stop" }, "message_stop");

  test("Anthropic overloaded_error before any output is retried, visible as a retry event", async () => {
    const bodies = [overloaded, answer];
    server = await startReplayServer(
      (exchange) => replaySse(exchange, cutEvery(utf8(bodies.shift() ?? answer), 3)),
      0,
    );
    const model = anthropic({
      baseURL: server.url,
      apiKey: "sk-ant-test-key",
      model: "c",
      retry: { initialDelayMs: 1 },
    });
    const { events, error } = await collect(model.stream(request));
    expect(error).toBeUndefined();
    expect(kinds(events)).toEqual(["retry", "text_delta", "usage", "finish"]);
    expect(events[0]).toMatchObject({
      type: "retry",
      attempt: 1,
      error: { code: "overloaded_error" },
    });
    expect(server.requests).toHaveLength(2);
  });

  test("the same error after output is not retried: the user already saw the partial answer", async () => {
    const partial =
      sseFrame(
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "par" } },
        "content_block_delta",
      ) + overloaded;
    server = await startReplayServer((exchange) => replaySse(exchange, [utf8(partial)]), 0);
    const model = anthropic({
      baseURL: server.url,
      apiKey: "sk-ant-test-key",
      model: "c",
      retry: { initialDelayMs: 1 },
    });
    const { events, error } = await collect(model.stream(request));
    expect(kinds(events)).toEqual(["text_delta"]);
    expect(error).toMatchObject({ type: "stream", code: "overloaded_error" });
    expect(server.requests).toHaveLength(1);
  });
});

describe("Anthropic requests", () => {
  test("thinking blocks go back with signatures; cache breakpoints sit on system, the last tool and the last block", async () => {
    server = await startReplayServer((exchange) =>
      replaySse(exchange, [utf8(ev({ type: "message_stop" }))]),
    );
    const model = anthropic({
      baseURL: server.url,
      apiKey: "sk-ant-test-key",
      model: "c",
      cache: true,
      thinkingBudget: 2048,
      maxTokens: 8000,
      stop: ["END"],
      parallelToolCalls: false,
    });
    await collect(
      model.stream({
        system: "Be brief.",
        tools: request.tools,
        toolChoice: "required",
        messages: [
          { role: "user", content: [{ type: "text", text: "go" }] },
          {
            role: "assistant",
            content: [
              { type: "reasoning", text: "plan", signature: "sig1" },
              { type: "reasoning", text: "other provider's, unsigned" },
              { type: "tool_use", id: "t1", name: "get", input: {} },
            ],
          },
          {
            role: "user",
            content: [{ type: "tool_result", toolUseId: "t1", content: [], isError: false }],
          },
        ],
      }),
    );
    const body = server.requests[0]?.body as Record<string, unknown> & {
      messages: { content: unknown[] }[];
    };
    expect(body.system).toEqual([
      { type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } },
    ]);
    expect(body.tools).toEqual([
      { name: "get", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } },
    ]);
    expect(body.messages[1]?.content).toEqual([
      { type: "thinking", thinking: "plan", signature: "sig1" },
      { type: "tool_use", id: "t1", name: "get", input: {} },
    ]);
    expect(body.messages[2]?.content.at(-1)).toMatchObject({
      cache_control: { type: "ephemeral" },
    });
    expect(body).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 2048 },
      max_tokens: 8000,
      stop_sequences: ["END"],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
    });
  });
});

describe("finish reasons on the run result", () => {
  test("a cut-off, filtered or refused answer ends the run with that cause and is not re-prompted", async () => {
    for (const finish of ["length", "content_filter", "refusal"] as const) {
      const model = scriptedModel([
        { text: finish === "refusal" ? "" : "partial", finish },
        { text: "again" },
      ]);
      const result = await new Agent({ model }).run("go").result;
      expect(result.stop).toBe(finish);
      expect(result.finishReason).toBe(finish);
      expect(model.requests).toHaveLength(1);
    }
  });

  test("reasoning reaches the run as its own events and stays out of the answer, kept in the transcript", async () => {
    server = await startReplayServer((exchange) =>
      replaySse(exchange, [
        utf8(chat({ reasoning_content: "hmm" }) + chat({ content: "4" }, "stop") + done),
      ]),
    );
    const run = new Agent({ model: openai(server.url) }).run("2+2?");
    const seen: string[] = [];
    for await (const event of run) {
      if (event.type === "reasoning_delta") seen.push(`r:${event.text}`);
      if (event.type === "text_delta") seen.push(`t:${event.text}`);
    }
    const result = await run.result;
    expect(seen).toEqual(["r:hmm", "t:4"]);
    expect(result).toMatchObject({ text: "4", stop: "done", finishReason: "stop" });
    expect(result.conversation.messages.at(-1)?.content).toEqual([
      { type: "reasoning", text: "hmm" },
      { type: "text", text: "4" },
    ]);
  });
});
