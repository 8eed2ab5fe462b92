import { afterEach, describe, expect, test } from "vitest";
import {
  anthropic,
  anthropicBody,
  anthropicDecoder,
  anthropicMessage,
} from "../../src/models/anthropic.ts";
import type { Message } from "../../src/models/message.ts";
import type { ModelEvent, ModelRequest } from "../../src/models/model.ts";
import { isModelError } from "../../src/models/model-error.ts";
import { collect, textOf } from "../support/model-collect.ts";
import {
  type ReplayExchange,
  type ReplayServer,
  replayError,
  replaySse,
  startReplayServer,
} from "../support/model-replay-server.ts";
import { cutAt, cutEvery, insideChar, sseFrame, utf8 } from "../support/sse-wire.ts";

const KEY = "sk-ant-test-SECRET-987654321";
const request: ModelRequest = {
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
};

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: (exchange: ReplayExchange) => Promise<void> | void) {
  server = await startReplayServer(handler);
  return anthropic({
    baseURL: server.url,
    apiKey: KEY,
    model: "claude-test",
    contextWindow: 200_000,
    retry: false,
  });
}

const frame = (data: { type: string }) => sseFrame(data, data.type);

const messageStart = (usage: object) =>
  frame({
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-test",
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  } as { type: string });

const blockStart = (index: number, content_block: object) =>
  frame({ type: "content_block_start", index, content_block } as { type: string });
const delta = (index: number, d: object) =>
  frame({ type: "content_block_delta", index, delta: d } as { type: string });
const blockStop = (index: number) =>
  frame({ type: "content_block_stop", index } as { type: string });
const messageDelta = (stop_reason: string, usage: object) =>
  frame({ type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage } as {
    type: string;
  });
const messageStop = frame({ type: "message_stop" });
const ping = frame({ type: "ping" });

describe("anthropic", () => {
  test("streams text and a tool call whose JSON arrives in many pieces, with cache usage", async () => {
    const input = { path: "notes/café.md", content: 'line "one"\nline ☕ two' };
    const json = JSON.stringify(input);
    const pieces: string[] = [];
    for (let i = 0; i < json.length; i += 4) pieces.push(json.slice(i, i + 4));
    const text =
      messageStart({
        input_tokens: 10,
        output_tokens: 1,
        cache_creation_input_tokens: 200,
        cache_read_input_tokens: 3000,
      }) +
      ping +
      blockStart(0, { type: "text", text: "" }) +
      delta(0, { type: "text_delta", text: "Écrire " }) +
      delta(0, { type: "text_delta", text: "le fichier ☕" }) +
      blockStop(0) +
      blockStart(1, { type: "tool_use", id: "toolu_01", name: "write_file", input: {} }) +
      delta(1, { type: "input_json_delta", partial_json: "" }) +
      pieces.map((p) => delta(1, { type: "input_json_delta", partial_json: p })).join("") +
      blockStop(1) +
      messageDelta("tool_use", { output_tokens: 42 }) +
      messageStop;
    const cuts = [insideChar(text, "É"), insideChar(text, "☕"), insideChar(text, "é")];
    const chunks = cutAt(utf8(text), cuts).flatMap((c) => cutEvery(c, 53));
    const model = await serve((exchange) => replaySse(exchange, chunks));
    const { events, error } = await collect(model.stream(request));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("Écrire le fichier ☕");
    // The file's content streams as the model writes it, one piece per input_json_delta.
    expect(events.filter((e) => e.type === "tool_input_delta")).toEqual(
      pieces.map((text) => ({
        type: "tool_input_delta",
        id: "toolu_01",
        name: "write_file",
        text,
      })),
    );
    expect(events.filter((e) => e.type !== "text_delta" && e.type !== "tool_input_delta")).toEqual([
      { type: "tool_call", id: "toolu_01", name: "write_file", arguments: input },
      {
        type: "usage",
        inputTokens: 3210,
        outputTokens: 42,
        cacheReadTokens: 3000,
        cacheWriteTokens: 200,
      },
      { type: "finish", reason: "tool_calls" },
    ] satisfies ModelEvent[]);
    expect(model.contextWindow).toBe(200_000);
  });

  test("gives a tool with no input_json_delta an empty object", async () => {
    const text =
      messageStart({ input_tokens: 5, output_tokens: 1 }) +
      blockStart(0, { type: "tool_use", id: "toolu_02", name: "now", input: {} }) +
      blockStop(0) +
      messageDelta("tool_use", { output_tokens: 3 }) +
      messageStop;
    const model = await serve((exchange) => replaySse(exchange, [utf8(text)]));
    const { events } = await collect(model.stream(request));
    expect(events[0]).toEqual({ type: "tool_call", id: "toolu_02", name: "now", arguments: {} });
  });

  test("sends the documented request body and headers", async () => {
    const model = await serve((exchange) =>
      replaySse(exchange, [
        utf8(
          messageStart({ input_tokens: 1, output_tokens: 1 }) +
            messageDelta("end_turn", { output_tokens: 1 }) +
            messageStop,
        ),
      ]),
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
          { type: "text", text: "" },
          { type: "tool_use", id: "t1", name: "shot", input: { x: 1 } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "and then?" },
          {
            type: "tool_result",
            toolUseId: "t1",
            content: [
              { type: "text", text: "done" },
              { type: "image", mimeType: "image/jpeg", data: "BBBB" },
            ],
            isError: true,
          },
        ],
      },
    ];
    const tools = [
      { name: "zeta", description: "Z", inputSchema: { type: "object" } },
      { name: "alpha", inputSchema: { type: "object" } },
    ];
    const { error } = await collect(model.stream({ system: "be brief", messages, tools }));
    expect(error).toBeUndefined();
    const sent = server?.requests[0];
    expect(sent?.path).toBe("/v1/messages");
    expect(sent?.headers).toMatchObject({
      "x-api-key": KEY,
      "anthropic-version": "2023-06-01",
      "anthropic-dangerous-direct-browser-access": "true",
      "content-type": "application/json",
    });
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.body).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      stream: true,
      system: "be brief",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "t1", name: "shot", input: { x: 1 } }],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t1",
              content: [
                { type: "text", text: "done" },
                {
                  type: "image",
                  source: { type: "base64", media_type: "image/jpeg", data: "BBBB" },
                },
              ],
              is_error: true,
            },
            { type: "text", text: "and then?" },
          ],
        },
      ],
      tools: [
        { name: "zeta", description: "Z", input_schema: { type: "object" } },
        { name: "alpha", input_schema: { type: "object" } },
      ],
    });
  });

  test("names its provider anthropic, as gen_ai.provider.name has it", () => {
    expect(anthropic({ apiKey: "k", model: "claude-sonnet-4-5" }).provider).toBe("anthropic");
  });

  test("turns 401 into an http error without the API key", async () => {
    const model = await serve((exchange) =>
      replayError(exchange, 401, {
        type: "error",
        error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` },
      }),
    );
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "http")).toBe(true);
    expect(error).toMatchObject({
      status: 401,
      code: "authentication_error",
      provider: "anthropic",
    });
    expect((error as Error).message).not.toContain(KEY);
    expect(JSON.stringify(error)).not.toContain(KEY);
  });

  test("turns 429 with an HTTP-date retry-after into rate_limit", async () => {
    const model = await serve((exchange) =>
      replayError(
        exchange,
        429,
        {
          type: "error",
          error: {
            type: "rate_limit_error",
            message: "Number of request tokens has exceeded your per-minute rate limit",
          },
        },
        { "retry-after": new Date(Date.now() + 30_000).toUTCString() },
      ),
    );
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "rate_limit")).toBe(true);
    const wait = (error as { retryAfterMs?: number }).retryAfterMs ?? -1;
    expect(wait).toBeGreaterThan(25_000);
    expect(wait).toBeLessThanOrEqual(30_000);
  });

  test("turns 400 prompt is too long into context_overflow", async () => {
    const model = await serve((exchange) =>
      replayError(exchange, 400, {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "prompt is too long: 208310 tokens > 200000 maximum",
        },
      }),
    );
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "context_overflow")).toBe(true);
    expect(error).toMatchObject({ status: 400, code: "invalid_request_error" });
  });

  test("turns 529 overloaded into an http error with its status", async () => {
    const model = await serve((exchange) =>
      replayError(exchange, 529, {
        type: "error",
        error: { type: "overloaded_error", message: "Overloaded" },
      }),
    );
    const { error } = await collect(model.stream(request));
    expect(error).toMatchObject({ type: "http", status: 529, code: "overloaded_error" });
  });

  test("gives a 529 whose body is not Anthropic's JSON the overloaded_error code", async () => {
    const model = await serve(async (exchange) => {
      // A proxy in front of the API may replace the JSON body with its own page.
      exchange.head(529, { "content-type": "text/html" });
      await exchange.write("<html><body>Overloaded</body></html>");
      exchange.end();
    });
    const { error } = await collect(model.stream(request));
    expect(error).toMatchObject({ type: "http", status: 529, code: "overloaded_error" });
    expect(isModelError(error, "rate_limit")).toBe(false);
  });

  test("turns an error event mid-stream into a stream error, keeping earlier text", async () => {
    const text =
      messageStart({ input_tokens: 1, output_tokens: 1 }) +
      blockStart(0, { type: "text", text: "" }) +
      delta(0, { type: "text_delta", text: "Hel" }) +
      frame({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } } as {
        type: string;
      });
    const model = await serve((exchange) => replaySse(exchange, [utf8(text)]));
    const { events, error } = await collect(model.stream(request));
    expect(textOf(events)).toBe("Hel");
    expect(error).toMatchObject({ type: "stream", code: "overloaded_error" });
  });

  test("fails with a stream error when the server drops the socket mid-way", async () => {
    const model = await serve(async (exchange) => {
      exchange.head(200, { "content-type": "text/event-stream" });
      await exchange.write(messageStart({ input_tokens: 1, output_tokens: 1 }));
      await exchange.write('event: content_block_delta\ndata: {"type":"content_');
      exchange.destroy();
    });
    const { error } = await collect(model.stream(request));
    expect(isModelError(error, "stream")).toBe(true);
  });

  test("fails with a stream error when the body ends before message_stop", async () => {
    const text =
      messageStart({ input_tokens: 1, output_tokens: 1 }) +
      blockStart(0, { type: "text", text: "" });
    const model = await serve((exchange) => replaySse(exchange, [utf8(text)]));
    const { error } = await collect(model.stream(request));
    expect(error).toMatchObject({ type: "stream" });
    expect((error as Error).message).toContain("ended early");
  });

  test("aborting the signal mid-stream aborts the fetch (the server sees the client leave)", async () => {
    let gone: Promise<void> | undefined;
    const model = await serve(async (exchange) => {
      gone = exchange.clientGone;
      exchange.head(200, { "content-type": "text/event-stream" });
      await exchange.write(
        messageStart({ input_tokens: 1, output_tokens: 1 }) +
          blockStart(0, { type: "text", text: "" }) +
          delta(0, { type: "text_delta", text: "first" }),
      );
    });
    const controller = new AbortController();
    const reader = model.stream(request, { signal: controller.signal }).getReader();
    expect((await reader.read()).value).toEqual({ type: "text_delta", text: "first" });
    controller.abort(new Error("user pressed stop"));
    const error = await reader.read().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ type: "cancelled", data: { reason: "user pressed stop" } });
    await gone;
  });
});

function run(events: { type: string; [key: string]: unknown }[], end = false) {
  const decoder = anthropicDecoder([]);
  const out: ModelEvent[] = [];
  const emit = (e: ModelEvent) => out.push(e);
  for (const event of events)
    decoder.event({ event: event.type, data: JSON.stringify(event), id: "" }, emit);
  if (end) decoder.end(emit);
  return out;
}

const stop = (reason: string) => [
  { type: "message_delta", delta: { stop_reason: reason }, usage: { output_tokens: 2 } },
  { type: "message_stop" },
];

describe("anthropicDecoder", () => {
  test("maps stop reasons", () => {
    expect(run(stop("end_turn")).at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(run(stop("max_tokens")).at(-1)).toEqual({ type: "finish", reason: "length" });
    expect(run(stop("refusal")).at(-1)).toEqual({ type: "finish", reason: "refusal" });
    expect(run(stop("tool_use")).at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
    expect(run(stop("pause_turn")).at(-1)).toEqual({ type: "finish", reason: "pause" });
  });

  test("streams thinking as reasoning and keeps the whole block with its signature; skips pings and unknown events", () => {
    const out = run([
      { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "s" } },
      { type: "content_block_stop", index: 0 },
      { type: "ping" },
      { type: "brand_new_event" },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "ok" } },
      ...stop("end_turn"),
    ]);
    expect(out).toEqual([
      { type: "reasoning_delta", text: "hmm" },
      { type: "reasoning", block: { type: "reasoning", text: "hmm", signature: "s" } },
      { type: "text_delta", text: "ok" },
      { type: "usage", inputTokens: 3, outputTokens: 2 },
      { type: "finish", reason: "stop" },
    ]);
  });

  test("uses the event name when the data has no type, and finishes at the end of the body after a stop reason", () => {
    const decoder = anthropicDecoder([]);
    const out: ModelEvent[] = [];
    const emit = (e: ModelEvent) => out.push(e);
    decoder.event(
      { event: "message_delta", data: '{"delta":{"stop_reason":"end_turn"}}', id: "" },
      emit,
    );
    decoder.end(emit);
    expect(out).toEqual([{ type: "finish", reason: "stop" }]);
  });

  test("passes invalid tool JSON on as the raw string", () => {
    const out = run([
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: "f", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"a":' },
      },
      { type: "content_block_stop", index: 0 },
    ]);
    expect(out).toEqual([
      { type: "tool_input_delta", id: "t", name: "f", text: '{"a":' },
      { type: "tool_call", id: "t", name: "f", arguments: '{"a":' },
    ]);
  });

  test("redacts secrets from the excerpt of an event that is not JSON", () => {
    const decoder = anthropicDecoder(["sk-ant"]);
    expect(() => decoder.event({ event: "ping", data: "key sk-ant {", id: "" }, () => {})).toThrow(
      "event ping is not JSON: key [redacted] {",
    );
  });
});

describe("anthropicMessage", () => {
  test("sends arguments kept as raw text as an empty input object", () => {
    expect(
      anthropicMessage({
        role: "assistant",
        content: [{ type: "tool_use", id: "t", name: "f", input: "{bad" }],
      }),
    ).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "t", name: "f", input: {} }],
    });
  });

  test("renders non-image tool content as text, drops empty text and omits empty result content", () => {
    expect(
      anthropicMessage({
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "a",
            content: [
              { type: "json", value: [1] },
              { type: "text", text: "" },
            ],
            isError: false,
          },
          { type: "tool_result", toolUseId: "b", content: [], isError: false },
        ],
      }),
    ).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "a", content: [{ type: "text", text: "[1]" }] },
        { type: "tool_result", tool_use_id: "b" },
      ],
    });
  });

  test("puts a placeholder in a message left without content", () => {
    expect(anthropicMessage({ role: "assistant", content: [{ type: "text", text: " " }] })).toEqual(
      {
        role: "assistant",
        content: [{ type: "text", text: "(empty)" }],
      },
    );
  });
});

describe("anthropicBody", () => {
  test("always sets max_tokens, the request's bound winning over the adapter's", () => {
    expect(anthropicBody({ messages: [], tools: [] }, {}, { model: "m" })).toEqual({
      model: "m",
      max_tokens: 4096,
      messages: [],
      stream: true,
    });
    expect(
      anthropicBody({ messages: [], tools: [] }, {}, { model: "m", maxTokens: 100 }).max_tokens,
    ).toBe(100);
    expect(
      anthropicBody({ messages: [], tools: [], maxTokens: 9 }, {}, { model: "m", maxTokens: 100 })
        .max_tokens,
    ).toBe(9);
  });

  test("forbids tool calls with tool_choice none, sending the tools the transcript refers to", () => {
    const tools = [{ name: "echo", inputSchema: { type: "object" } }];
    const body = anthropicBody({ messages: [], tools, toolChoice: "none" }, {}, { model: "m" });
    expect(body.tool_choice).toEqual({ type: "none" });
    expect(body.tools).toEqual([{ name: "echo", input_schema: { type: "object" } }]);
    expect(
      anthropicBody({ messages: [], tools, toolChoice: "auto" }, {}, { model: "m", maxTokens: 1 }),
    ).not.toHaveProperty("tool_choice");
    expect(
      anthropicBody(
        { messages: [], tools: [], toolChoice: "none" },
        {},
        { model: "m", maxTokens: 1 },
      ),
    ).not.toHaveProperty("tool_choice");
  });

  test("trims trailing whitespace off a final assistant message, which the API rejects", () => {
    const partial = {
      role: "assistant" as const,
      content: [{ type: "text" as const, text: "Half an \n" }],
    };
    const user = { role: "user" as const, content: [{ type: "text" as const, text: "go " }] };
    const body = anthropicBody({ messages: [user, partial], tools: [] }, {}, { model: "m" });
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "go " }] },
      { role: "assistant", content: [{ type: "text", text: "Half an" }] },
    ]);
    expect(partial.content[0]?.text).toBe("Half an \n");
    const earlier = anthropicBody({ messages: [partial, user], tools: [] }, {}, { model: "m" });
    expect((earlier.messages as { content: { text: string }[] }[])[0]?.content[0]?.text).toBe(
      "Half an \n",
    );
  });
});
