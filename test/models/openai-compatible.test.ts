import { afterEach, describe, expect, test } from "vitest";
import type { Message } from "../../src/models/message.ts";
import type { ModelEvent, ModelRequest } from "../../src/models/model.ts";
import { isModelError } from "../../src/models/model-error.ts";
import {
  openAIBody,
  openAICompatible,
  openAIDecoder,
  openAIMessages,
} from "../../src/models/openai-compatible.ts";
import { argumentPieces, collect, textOf } from "../support/model-collect.ts";
import {
  type ReplayExchange,
  type ReplayServer,
  replayError,
  replaySse,
  startReplayServer,
} from "../support/model-replay-server.ts";
import { cutAt, cutEvery, insideChar, sseFrame, utf8 } from "../support/sse-wire.ts";

const KEY = "sk-test-SECRET-0123456789";
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const request: ModelRequest = { messages: [user("hi")], tools: [] };

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: (exchange: ReplayExchange) => Promise<void> | void) {
  server = await startReplayServer(handler);
  return openAICompatible({
    baseURL: `${server.url}/v1/`,
    apiKey: KEY,
    model: "gpt-test",
    retry: false,
  });
}

function chunk(delta: object, finish: string | null = null) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-test",
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function usageChunk(usage: object) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-test",
    choices: [],
    usage,
  };
}

const wire = (...frames: unknown[]) => frames.map((f) => sseFrame(f)).join("") + sseFrame("[DONE]");

describe("openAICompatible", () => {
  test("streams text cut every 7 bytes and inside multi-byte characters", async () => {
    const text = wire(
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "Grüße, " }),
      chunk({ content: "wörld ☕🎉" }),
      chunk({}, "stop"),
      usageChunk({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }),
    );
    const cuts = [insideChar(text, "ü"), insideChar(text, "☕"), insideChar(text, "🎉") + 1];
    const pieces = cutAt(utf8(text), cuts).flatMap((piece) => cutEvery(piece, 7));
    const model = await serve((exchange) => replaySse(exchange, pieces));
    // Record what the client's body delivered, to prove the cuts arrived as cut.
    const received: number[] = [];
    const recording = openAICompatible({
      baseURL: `${server?.url}/v1`,
      model: "gpt-test",
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const body = response.body?.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(piece, controller) {
              received.push(piece.byteLength);
              controller.enqueue(piece);
            },
          }),
        );
        return new Response(body, response);
      },
    });
    const { events, error } = await collect(recording.stream(request));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("Grüße, wörld ☕🎉");
    expect(events.slice(-2)).toEqual([
      { type: "usage", inputTokens: 12, outputTokens: 5 },
      { type: "finish", reason: "stop" },
    ]);
    expect(received.length).toBeGreaterThan(10);
    expect(model.id).toBe("gpt-test");
  });

  test("joins parallel tool calls interleaved by index, with usage incl. cached tokens", async () => {
    const args0 = JSON.stringify({ city: "Zürich", units: "metric", note: 'say "hi"' });
    const args1 = JSON.stringify({ query: "naïve ☕", limit: 3 });
    const frames: unknown[] = [
      chunk({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            index: 0,
            id: "call_a",
            type: "function",
            function: { name: "weather", arguments: "" },
          },
        ],
      }),
      chunk({
        tool_calls: [
          { index: 1, id: "call_b", type: "function", function: { name: "search", arguments: "" } },
        ],
      }),
    ];
    // Fragments of 3 characters, alternating between the two calls.
    for (let i = 0; i < Math.max(args0.length, args1.length); i += 3) {
      if (i < args0.length)
        frames.push(
          chunk({ tool_calls: [{ index: 0, function: { arguments: args0.slice(i, i + 3) } }] }),
        );
      if (i < args1.length)
        frames.push(
          chunk({ tool_calls: [{ index: 1, function: { arguments: args1.slice(i, i + 3) } }] }),
        );
    }
    frames.push(chunk({}, "tool_calls"));
    frames.push(
      usageChunk({
        prompt_tokens: 100,
        completion_tokens: 20,
        prompt_tokens_details: { cached_tokens: 64 },
      }),
    );
    const model = await serve((exchange) =>
      replaySse(exchange, cutEvery(utf8(wire(...frames)), 37)),
    );
    const { events, error } = await collect(model.stream(request));
    expect(error).toBeUndefined();
    expect(argumentPieces(events)).toEqual(
      new Map([
        ["call_a", args0],
        ["call_b", args1],
      ]),
    );
    expect(events.filter((e) => e.type !== "tool_input_delta")).toEqual([
      { type: "tool_call", id: "call_a", name: "weather", arguments: JSON.parse(args0) },
      { type: "tool_call", id: "call_b", name: "search", arguments: JSON.parse(args1) },
      { type: "usage", inputTokens: 100, outputTokens: 20, cacheReadTokens: 64 },
      { type: "finish", reason: "tool_calls" },
    ] satisfies ModelEvent[]);
  });

  test("passes arguments that are not valid JSON on as the raw string", async () => {
    const frames = [
      chunk({
        tool_calls: [{ index: 0, id: "c1", function: { name: "f", arguments: '{"a": 1' } }],
      }),
      chunk({}, "tool_calls"),
    ];
    const model = await serve((exchange) => replaySse(exchange, [utf8(wire(...frames))]));
    const { events } = await collect(model.stream(request));
    expect(events.slice(0, 2)).toEqual([
      { type: "tool_input_delta", id: "c1", name: "f", text: '{"a": 1' },
      { type: "tool_call", id: "c1", name: "f", arguments: '{"a": 1' },
    ]);
  });

  test("sends the documented request body and headers", async () => {
    const model = await serve((exchange) =>
      replaySse(exchange, [utf8(wire(chunk({ content: "ok" }, "stop")))]),
    );
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image", mimeType: "image/png", data: "AAAA" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "calling" },
          { type: "tool_use", id: "t1", name: "zeta", input: { x: 1 } },
          { type: "tool_use", id: "t2", name: "alpha", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "t1",
            content: [{ type: "text", text: "one" }],
            isError: false,
          },
          {
            type: "tool_result",
            toolUseId: "t2",
            content: [{ type: "json", value: { ok: false } }],
            isError: true,
          },
        ],
      },
    ];
    const tools = [
      { name: "zeta", description: "Z", inputSchema: { type: "object" } },
      { name: "alpha", inputSchema: { type: "object", properties: {} } },
    ];
    await collect(model.stream({ system: "be brief", messages, tools, maxTokens: 50 }));
    const sent = server?.requests[0];
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(sent?.body).toEqual({
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 50,
      messages: [
        { role: "system", content: "be brief" },
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          ],
        },
        {
          role: "assistant",
          content: "calling",
          tool_calls: [
            { id: "t1", type: "function", function: { name: "zeta", arguments: '{"x":1}' } },
            { id: "t2", type: "function", function: { name: "alpha", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "t1", content: "one" },
        { role: "tool", tool_call_id: "t2", content: '{"ok":false}' },
      ],
      tools: [
        {
          type: "function",
          function: { name: "zeta", description: "Z", parameters: { type: "object" } },
        },
        {
          type: "function",
          function: { name: "alpha", parameters: { type: "object", properties: {} } },
        },
      ],
    });
  });

  test("sends no Authorization header without an API key, and the user's extra headers", async () => {
    server = await startReplayServer((exchange) =>
      replaySse(exchange, [utf8(wire(chunk({ content: "ok" }, "stop")))]),
    );
    const model = openAICompatible({
      baseURL: server.url,
      model: "llama",
      headers: { "X-Trace": "1" },
    });
    const { error } = await collect(model.stream(request));
    expect(error).toBeUndefined();
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.headers["x-trace"]).toBe("1");
    expect(server.requests[0]?.path).toBe("/chat/completions");
  });

  test("turns 401 into an http error without the API key, even when the body echoes it", async () => {
    const model = await serve((exchange) =>
      replayError(exchange, 401, {
        error: {
          message: `Incorrect API key provided: ${KEY}.`,
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      }),
    );
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "http")).toBe(true);
    expect(error).toMatchObject({
      status: 401,
      code: "invalid_api_key",
      provider: "openai-compatible",
    });
    expect(String((error as Error).message)).toContain("Incorrect API key provided: [redacted]");
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect((error as Error).message).not.toContain(KEY);
  });

  test("turns 429 into rate_limit with retry-after in milliseconds", async () => {
    const model = await serve((exchange) =>
      replayError(
        exchange,
        429,
        { error: { message: "Rate limit reached", code: "rate_limit_exceeded" } },
        { "retry-after": "2" },
      ),
    );
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "rate_limit")).toBe(true);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 2000 });
  });

  test("turns 429 insufficient_quota into http, not rate_limit: waiting will not help", async () => {
    // OpenAI's body when the account is out of credit, with the retry-after it may still send.
    const body = {
      error: {
        message: "You exceeded your current quota, please check your plan and billing details.",
        type: "insufficient_quota",
        param: null,
        code: "insufficient_quota",
      },
    };
    const model = await serve((exchange) =>
      replayError(exchange, 429, body, { "retry-after": "20" }),
    );
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "rate_limit")).toBe(false);
    expect(isModelError(error, "http")).toBe(true);
    expect((error as Error & { toJSON(): unknown }).toJSON()).toEqual({
      type: "http",
      provider: "openai-compatible",
      status: 429,
      code: "insufficient_quota",
      message: "You exceeded your current quota, please check your plan and billing details.",
    });
  });

  test("turns context_length_exceeded into context_overflow", async () => {
    const model = await serve((exchange) =>
      replayError(exchange, 400, {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      }),
    );
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "context_overflow")).toBe(true);
    expect(error).toMatchObject({ status: 400 });
  });

  test("turns 500 with a non-JSON body into an http error", async () => {
    const model = await serve(async (exchange) => {
      exchange.head(500, { "content-type": "text/plain" });
      await exchange.write("upstream exploded");
      exchange.end();
    });
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "http")).toBe(true);
    expect(error).toMatchObject({
      status: 500,
      message: "openai-compatible: HTTP 500: upstream exploded",
    });
  });

  test("fails with a stream error, keeping earlier events, when the server drops the socket", async () => {
    const model = await serve(async (exchange) => {
      exchange.head(200, { "content-type": "text/event-stream" });
      await exchange.write(sseFrame(chunk({ content: "partial" })));
      await exchange.write('data: {"id":"chatcmpl-1","choi');
      exchange.destroy();
    });
    const { events, error } = await collect(model.stream(request));
    expect(textOf(events)).toBe("partial");
    expect(isModelError(error, "stream")).toBe(true);
  });

  test("fails with a stream error when the body ends before any finish reason", async () => {
    const model = await serve((exchange) =>
      replaySse(exchange, [utf8(sseFrame(chunk({ content: "a" })))]),
    );
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "stream")).toBe(true);
    expect((error as Error).message).toContain("ended early");
  });

  test("turns an error chunk after the 200 status into a typed error", async () => {
    const model = await serve((exchange) =>
      replaySse(exchange, [
        utf8(
          sseFrame(chunk({ content: "a" })) +
            sseFrame({ error: { message: "prompt is too long", code: null } }),
        ),
      ]),
    );
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "context_overflow")).toBe(true);
  });

  test("aborting the signal mid-stream aborts the fetch (the server sees the client leave)", async () => {
    let gone: Promise<void> | undefined;
    const model = await serve(async (exchange) => {
      gone = exchange.clientGone;
      exchange.head(200, { "content-type": "text/event-stream" });
      await exchange.write(sseFrame(chunk({ content: "first" })));
    });
    const controller = new AbortController();
    const reader = model.stream(request, { signal: controller.signal }).getReader();
    expect(await reader.read()).toEqual({
      done: false,
      value: { type: "text_delta", text: "first" },
    });
    controller.abort();
    const error = await reader.read().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isModelError(error, "cancelled")).toBe(true);
    await gone;
  });

  test("cancelling the stream aborts the fetch", async () => {
    let gone: Promise<void> | undefined;
    const model = await serve(async (exchange) => {
      gone = exchange.clientGone;
      exchange.head(200, { "content-type": "text/event-stream" });
      await exchange.write(sseFrame(chunk({ content: "first" })));
    });
    const reader = model.stream(request).getReader();
    await reader.read();
    await reader.cancel();
    await gone;
  });

  test("names its provider as gen_ai.provider.name from the base URL's host, or as told", () => {
    const providerOf = (baseURL: string, provider?: string) =>
      openAICompatible(
        provider === undefined ? { baseURL, model: "m" } : { baseURL, model: "m", provider },
      ).provider;
    expect(providerOf("https://api.openai.com/v1")).toBe("openai");
    expect(
      providerOf("https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21"),
    ).toBe("azure.ai.openai");
    expect(providerOf("https://generativelanguage.googleapis.com/v1beta/openai")).toBe(
      "gcp.gemini",
    );
    expect(providerOf("https://api.groq.com/openai/v1")).toBe("groq");
    expect(providerOf("https://api.mistral.ai/v1")).toBe("mistral_ai");
    expect(providerOf("https://api.deepseek.com")).toBe("deepseek");
    expect(providerOf("https://api.x.ai/v1")).toBe("x_ai");
    // Any other host speaks OpenAI's format: a local server, a router, a look-alike domain.
    expect(providerOf("http://127.0.0.1:11434/v1")).toBe("openai");
    expect(providerOf("https://openrouter.ai/api/v1")).toBe("openai");
    expect(providerOf("https://groq.com.example.net/v1")).toBe("openai");
    expect(providerOf("https://notgroq.com/v1")).toBe("openai");
    expect(providerOf("not a url")).toBe("openai");
    expect(providerOf("http://127.0.0.1:11434/v1", "ollama")).toBe("ollama");
    expect(providerOf("https://api.groq.com/openai/v1", "my-gateway")).toBe("my-gateway");
  });

  test("a pre-aborted signal fails with cancelled before any request", async () => {
    const model = await serve((exchange) => replaySse(exchange, []));
    const { error } = await collect(model.stream(request, { signal: AbortSignal.abort("stop") }));
    expect(isModelError(error, "cancelled")).toBe(true);
    expect(error).toMatchObject({ data: { reason: "stop" } });
    expect(server?.requests).toEqual([]);
  });
});

function run(chunks: unknown[], done = true): { events: ModelEvent[]; error?: unknown } {
  const decoder = openAIDecoder(["sk-x"]);
  const events: ModelEvent[] = [];
  const emit = (e: ModelEvent) => events.push(e);
  try {
    for (const chunk of chunks)
      decoder.event({ event: "message", data: JSON.stringify(chunk), id: "" }, emit);
    if (done) decoder.event({ event: "message", data: "[DONE]", id: "" }, emit);
    else decoder.end(emit);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

const choice = (delta: object, finish_reason: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason }],
});

describe("openAIDecoder", () => {
  test("numbers calls without an id and accepts arguments sent as one object", () => {
    const { events } = run([
      choice({
        tool_calls: [
          { index: 0, function: { name: "a", arguments: { x: 1 } } },
          { index: 1, function: { name: "b" } },
        ],
      }),
      choice({}, "tool_calls"),
    ]);
    expect(events).toEqual([
      { type: "tool_input_delta", id: "call_1", name: "a", text: '{"x":1}' },
      { type: "tool_call", id: "call_1", name: "a", arguments: { x: 1 } },
      { type: "tool_call", id: "call_2", name: "b", arguments: {} },
      { type: "finish", reason: "tool_calls" },
    ]);
  });

  test("reports tool_calls when a server says stop after calling tools", () => {
    const { events } = run([
      choice(
        { tool_calls: [{ index: 0, id: "c", function: { name: "a", arguments: "{}" } }] },
        "stop",
      ),
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  test("maps length and content_filter", () => {
    expect(run([choice({ content: "a" }, "length")]).events.at(-1)).toEqual({
      type: "finish",
      reason: "length",
    });
    expect(run([choice({}, "content_filter")]).events.at(-1)).toEqual({
      type: "finish",
      reason: "content_filter",
    });
  });

  test("accepts a body that ends after the finish reason without [DONE]", () => {
    const { events, error } = run(
      [
        choice({ content: "hi" }, "stop"),
        { choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } },
      ],
      false,
    );
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "text_delta", text: "hi" },
      { type: "usage", inputTokens: 1, outputTokens: 2 },
      { type: "finish", reason: "stop" },
    ]);
  });

  test("fails with invalid_response for a chunk that is not JSON or a call without a name", () => {
    const decoder = openAIDecoder([]);
    expect(() => decoder.event({ event: "message", data: "{oops", id: "" }, () => {})).toThrow(
      /not JSON/,
    );
    const { error } = run([
      choice({ tool_calls: [{ index: 0, id: "c", function: { arguments: "{}" } }] }, "tool_calls"),
    ]);
    expect(isModelError(error, "invalid_response")).toBe(true);
  });

  test("redacts secrets from error chunks", () => {
    const { error } = run([{ error: { message: "bad key sk-x", type: "auth" } }]);
    expect((error as Error).message).not.toContain("sk-x");
  });

  test("redacts secrets from the excerpt of a chunk that is not JSON", () => {
    const decoder = openAIDecoder(["sk-x"]);
    expect(() =>
      decoder.event({ event: "message", data: "echo: key sk-x {", id: "" }, () => {}),
    ).toThrow("chunk is not JSON: echo: key [redacted] {");
  });
});

describe("openAIMessages", () => {
  test("sends tool results as tool messages, then a user message with tool images and the user's text", () => {
    const messages = openAIMessages({
      tools: [],
      messages: [
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "a", name: "shot", input: "{bad" }],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              toolUseId: "a",
              content: [
                { type: "image", mimeType: "image/png", data: "P" },
                { type: "text", text: "ok" },
              ],
              isError: false,
            },
            { type: "text", text: "now what?" },
          ],
        },
      ],
    });
    expect(messages).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", type: "function", function: { name: "shot", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "a", content: "ok" },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "data:image/png;base64,P" } },
          { type: "text", text: "now what?" },
        ],
      },
    ]);
  });

  test("sends plain text as a string and an empty assistant turn as empty text", () => {
    expect(
      openAIMessages({
        tools: [],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "a" },
              { type: "text", text: "b" },
            ],
          },
          { role: "assistant", content: [] },
        ],
      }),
    ).toEqual([
      { role: "user", content: "a\nb" },
      { role: "assistant", content: "" },
    ]);
  });
});

describe("openAIBody", () => {
  test("leaves out empty tools and max_tokens unless set, the request's bound winning", () => {
    const body = openAIBody({ messages: [], tools: [] }, {}, "m", {
      field: "max_tokens",
      maxTokens: undefined,
    });
    expect(body).toEqual({
      model: "m",
      messages: [],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(
      openAIBody({ messages: [], tools: [] }, {}, "m", { field: "max_tokens", maxTokens: 100 })
        .max_tokens,
    ).toBe(100);
    expect(
      openAIBody({ messages: [], tools: [], maxTokens: 7 }, {}, "m", {
        field: "max_tokens",
        maxTokens: 100,
      }).max_tokens,
    ).toBe(7);
  });

  test("sends tool_choice none with the tools, and nothing for auto or without tools", () => {
    const tools = [{ name: "echo", inputSchema: { type: "object" } }];
    expect(
      openAIBody({ messages: [], tools, toolChoice: "none" }, {}, "m", {
        field: "max_tokens",
        maxTokens: undefined,
      }),
    ).toMatchObject({
      tool_choice: "none",
      tools: [{ type: "function", function: { name: "echo" } }],
    });
    expect(
      openAIBody({ messages: [], tools, toolChoice: "auto" }, {}, "m", {
        field: "max_tokens",
        maxTokens: undefined,
      }),
    ).not.toHaveProperty("tool_choice");
    expect(
      openAIBody({ messages: [], tools: [], toolChoice: "none" }, {}, "m", {
        field: "max_tokens",
        maxTokens: undefined,
      }),
    ).not.toHaveProperty("tool_choice");
  });
});
