// The AI SDK bridge against real AI SDK provider packages pointed at the local replay server,
// and `generateText` with the AI SDK's mock model (docs/design.md, "Models", the AI SDK bridge).
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { generateText as generateText7, stepCountIs as stepCountIs7 } from "ai-7";
import { MockLanguageModelV4 } from "ai-7/test";
import { createOpenAICompatible as createOpenAICompatible7 } from "ai-sdk-openai-compatible-3";
import * as v from "valibot";
import { afterEach, describe, expect, test } from "vitest";
import { Agent } from "../../src/agent/agent.ts";
import { aiSdkModel } from "../../src/ai-sdk/ai-sdk-model.ts";
import { aiSdkTools } from "../../src/ai-sdk/ai-sdk-tools.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import type { ModelRequest } from "../../src/models/model.ts";
import { isModelError } from "../../src/models/model-error.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { collect } from "../support/model-collect.ts";
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

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }),
  call: ({ a, b }) => String(a + b),
});

const chat = (delta: object, finish: string | null = null, extra: object = {}) =>
  sseFrame({
    id: "c1",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
const done = "data: [DONE]\n\n";

// Issue 22, item 4: a provider package of each AI SDK major, V3 (AI SDK 6) and V4 (AI SDK 7).
const majors = [
  { sdk: "AI SDK 6: @ai-sdk/openai-compatible 2, LanguageModelV3", create: createOpenAICompatible },
  {
    sdk: "AI SDK 7: @ai-sdk/openai-compatible 3, LanguageModelV4",
    create: createOpenAICompatible7,
  },
];

const request: ModelRequest = {
  messages: [{ role: "user", content: [{ type: "text", text: "2+3?" }] }],
  tools: [{ name: "add", inputSchema: { type: "object" } }],
};

describe.each(majors)("aiSdkModel over $sdk", ({ create }) => {
  const compatible = (url: string) =>
    create({ name: "local", baseURL: `${url}/v1`, includeUsage: true })("m");

  test("an agent run streams reasoning and text, calls the tool and reports usage, cut into 3-byte slices", async () => {
    const turns = [
      chat({ role: "assistant", reasoning_content: "use add" }) +
        chat({
          tool_calls: [
            {
              index: 0,
              id: "call_1",
              type: "function",
              function: { name: "add", arguments: '{"a":2,' },
            },
          ],
        }) +
        chat({ tool_calls: [{ index: 0, function: { arguments: '"b":3}' } }] }) +
        chat({}, "tool_calls", { usage: { prompt_tokens: 10, completion_tokens: 5 } }) +
        done,
      chat({ content: "It is " }) +
        chat({ content: "5." }, "stop", { usage: { prompt_tokens: 20, completion_tokens: 2 } }) +
        done,
    ];
    let turn = 0;
    server = await startReplayServer(
      (exchange) => replaySse(exchange, cutEvery(utf8(turns[turn++] ?? done), 3)),
      0,
    );
    const run = new Agent({ model: aiSdkModel(compatible(server.url)), tools: [add] }).run("2+3?");
    const kinds: string[] = [];
    let streamed = "";
    for await (const event of run) {
      kinds.push(event.type);
      if (event.type === "tool_input_delta") {
        expect(event).toMatchObject({ callId: "call_1", toolName: "add", turn: 1 });
        streamed += event.text;
      }
    }
    const result = await run.result;
    expect(result).toMatchObject({ text: "It is 5.", stop: "done", finishReason: "stop" });
    // The provider's tool-input-delta parts reach the run, before the call they build.
    expect(streamed).toBe('{"a":2,"b":3}');
    expect(kinds.lastIndexOf("tool_input_delta")).toBeLessThan(kinds.indexOf("tool_call"));
    expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: 7 });
    expect(kinds).toContain("reasoning_delta");
    const second = server.requests[1]?.body as { messages: { role: string; content?: unknown }[] };
    expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(second.messages[2]).toMatchObject({
      role: "tool",
      tool_call_id: "call_1",
      content: "5",
    });
  });

  test("a 429 becomes rate_limit with the response's retry hint", async () => {
    server = await startReplayServer((exchange) =>
      replayError(exchange, 429, { error: { message: "slow down" } }, { "retry-after": "7" }),
    );
    const model = create({ name: "local", baseURL: `${server.url}/v1` })("m");
    const { error } = await collect(aiSdkModel(model).stream(request));
    expect(isModelError(error, "rate_limit")).toBe(true);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 7000 });
  });

  test("aborting mid-stream cancels the request: the server sees the client leave", async () => {
    let gone: Promise<void> | undefined;
    server = await startReplayServer(async (exchange: ReplayExchange) => {
      gone = exchange.clientGone;
      exchange.head(200, { "content-type": "text/event-stream" });
      await exchange.write(chat({ content: "Hello" }));
    });
    const controller = new AbortController();
    const reader = aiSdkModel(compatible(server.url))
      .stream(request, { signal: controller.signal })
      .getReader();
    expect((await reader.read()).value).toEqual({ type: "text_delta", text: "Hello" });
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ type: "cancelled" });
    await gone;
  });

  test("an image the user attached reaches the provider as image data", async () => {
    server = await startReplayServer((exchange) =>
      replaySse(exchange, [utf8(chat({ content: "A dot." }, "stop") + done)]),
    );
    const image: ModelRequest = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
          ],
        },
      ],
      tools: [],
    };
    const { events, error } = await collect(aiSdkModel(compatible(server.url)).stream(image));
    expect(error).toBeUndefined();
    expect(events).toContainEqual({ type: "text_delta", text: "A dot." });
    const sent = server.requests[0]?.body as { messages: { content: unknown[] }[] };
    expect(sent.messages[0]?.content).toEqual([
      { type: "text", text: "What is this?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ]);
  });
});

describe("aiSdkModel streamed arguments", () => {
  test("a call that arrives whole streams as one piece; a provider-executed call streams none", async () => {
    const model = new MockLanguageModelV3({
      doStream: {
        stream: convertArrayToReadableStream([
          { type: "tool-input-start", id: "srv", toolName: "web_search", providerExecuted: true },
          { type: "tool-input-delta", id: "srv", delta: '{"q":"x"}' },
          { type: "tool-input-end", id: "srv" },
          {
            type: "tool-call",
            toolCallId: "srv",
            toolName: "web_search",
            input: '{"q":"x"}',
            providerExecuted: true,
          },
          { type: "tool-input-start", id: "c1", toolName: "add" },
          { type: "tool-input-delta", id: "c1", delta: '{"a":' },
          { type: "tool-input-end", id: "c1" },
          // The call's input goes further than what streamed: the rest comes as one piece.
          { type: "tool-call", toolCallId: "c1", toolName: "add", input: '{"a":2}' },
          { type: "tool-call", toolCallId: "c2", toolName: "add", input: '{"a":3}' },
          {
            type: "finish",
            finishReason: { unified: "tool-calls", raw: undefined },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 1, text: 1, reasoning: undefined },
            },
          },
        ]),
      },
    });
    const { events, error } = await collect(aiSdkModel(model).stream(request));
    expect(error).toBeUndefined();
    expect(events.filter((e) => e.type === "tool_input_delta")).toEqual([
      { type: "tool_input_delta", id: "c1", name: "add", text: '{"a":' },
      { type: "tool_input_delta", id: "c1", name: "add", text: "2}" },
      { type: "tool_input_delta", id: "c2", name: "add", text: '{"a":3}' },
    ]);
  });
});

describe("aiSdkModel provider", () => {
  test("names the AI SDK model's provider as gen_ai.provider.name", () => {
    const providerOf = (provider: string) =>
      aiSdkModel(new MockLanguageModelV3({ provider, modelId: "m" })).provider;
    expect(providerOf("openai.chat")).toBe("openai");
    expect(providerOf("openai.responses")).toBe("openai");
    expect(providerOf("anthropic.messages")).toBe("anthropic");
    expect(providerOf("google.generative-ai")).toBe("gcp.gemini");
    expect(providerOf("google.vertex.chat")).toBe("gcp.vertex_ai");
    expect(providerOf("vertex.anthropic.messages")).toBe("gcp.vertex_ai");
    expect(providerOf("amazon-bedrock")).toBe("aws.bedrock");
    expect(providerOf("azure.chat")).toBe("azure.ai.openai");
    expect(providerOf("mistral.chat")).toBe("mistral_ai");
    expect(providerOf("groq.chat")).toBe("groq");
    expect(providerOf("deepseek.chat")).toBe("deepseek");
    expect(providerOf("xai.chat")).toBe("x_ai");
    // One the conventions do not name keeps its own name.
    expect(providerOf("ollama.chat")).toBe("ollama");
    expect(providerOf("constructor.chat")).toBe("constructor");
  });

  test("the provider packages name theirs: @ai-sdk/anthropic, @ai-sdk/openai-compatible", () => {
    expect(aiSdkModel(createAnthropic({ apiKey: "k" })("claude-sonnet-4-5")).provider).toBe(
      "anthropic",
    );
    const local = createOpenAICompatible({ name: "local", baseURL: "http://127.0.0.1:1/v1" });
    expect(aiSdkModel(local("qwen3")).provider).toBe("local");
  });
});

describe("the ai peer range", () => {
  // Read through Vite's glob import, so this test needs no `node:` module.
  const manifest = Object.values(
    import.meta.glob<{
      peerDependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    }>("../../package.json", { eager: true, import: "default" }),
  )[0];

  /** Whether a `^x.y.z || ^…` range takes a version (caret ranges only, as the manifest has). */
  const accepts = (range: string, version: string) =>
    range.split("||").some((part) => {
      const [major, minor, patch] = part.trim().replace(/^\^/, "").split(".").map(Number);
      const [m, n, p] = version.split(".").map(Number);
      if (m !== major) return false;
      return (n ?? 0) > (minor ?? 0) || ((n ?? 0) === (minor ?? 0) && (p ?? 0) >= (patch ?? 0));
    });

  test("takes both AI SDK majors the bridge is tested with, so npm i toolwire ai@7 resolves", () => {
    const range = manifest?.peerDependencies.ai ?? "";
    const tested = [
      manifest?.devDependencies.ai ?? "",
      (manifest?.devDependencies["ai-7"] ?? "").replace("npm:ai@", ""),
    ];
    expect(tested.map((version) => version.split(".")[0])).toEqual(["6", "7"]);
    for (const version of tested) expect(accepts(range, version), version).toBe(true);
  });
});

describe("aiSdkModel over @ai-sdk/anthropic", () => {
  const ev = (data: { type: string } & Record<string, unknown>) => sseFrame(data, data.type);

  test("thinking streams as reasoning, and its signature goes back on the next request", async () => {
    const body =
      ev({
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [],
          stop_reason: null,
          usage: { input_tokens: 9, output_tokens: 1 },
        },
      }) +
      ev({
        type: "content_block_start",
        index: 0,
        content_block: { type: "thinking", thinking: "" },
      }) +
      ev({
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: "Add them." },
      }) +
      ev({
        type: "content_block_delta",
        index: 0,
        delta: { type: "signature_delta", signature: "SIG==" },
      }) +
      ev({ type: "content_block_stop", index: 0 }) +
      ev({
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: "toolu_1", name: "add", input: {} },
      }) +
      ev({
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: '{"a":2,"b":3}' },
      }) +
      ev({ type: "content_block_stop", index: 1 }) +
      ev({
        type: "message_delta",
        delta: { stop_reason: "tool_use" },
        usage: { output_tokens: 12 },
      }) +
      ev({ type: "message_stop" });
    const answer =
      ev({
        type: "message_start",
        message: {
          id: "msg_2",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [],
          usage: { input_tokens: 20, output_tokens: 1 },
        },
      }) +
      ev({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) +
      ev({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "5" } }) +
      ev({ type: "content_block_stop", index: 0 }) +
      ev({
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: { output_tokens: 2 },
      }) +
      ev({ type: "message_stop" });
    const bodies = [body, answer];
    let n = 0;
    server = await startReplayServer((exchange) =>
      replaySse(exchange, [utf8(bodies[n++] ?? answer)]),
    );
    const model = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: "sk-ant-test" })(
      "claude-test",
    );
    const agent = new Agent({ model: aiSdkModel(model), tools: [add] });
    const pieces: string[] = [];
    agent.on("tool_input_delta", (event) => pieces.push(`${event.callId}:${event.text}`));
    const result = await agent.run("2+3?").result;
    expect(result).toMatchObject({ text: "5", stop: "done" });
    expect(pieces).toEqual(['toolu_1:{"a":2,"b":3}']);
    const assistant = result.conversation.messages[1];
    expect(assistant?.content[0]).toMatchObject({
      type: "reasoning",
      text: "Add them.",
      providerMetadata: { anthropic: { signature: "SIG==" } },
    });
    const sent = server.requests[1]?.body as { messages: { role: string; content: unknown[] }[] };
    expect(sent.messages[1]?.content[0]).toEqual({
      type: "thinking",
      thinking: "Add them.",
      signature: "SIG==",
    });
  });
});

describe("aiSdkTools with AI SDK 7's generateText", () => {
  test("a read-only tool runs and a failed one reaches the model as an error", async () => {
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const turn = (content: object[], unified: "tool-calls" | "stop") => ({
      content,
      finishReason: { unified, raw: undefined },
      usage,
      warnings: [],
    });
    const failing = defineTool({
      name: "fail",
      description: "Fails",
      readOnly: true,
      input: v.object({}),
      call: () => {
        throw new Error("disk on fire");
      },
    });
    const tools = await aiSdkTools(Toolset.local([add, failing]));
    const call = (id: string, toolName: string, input: object) => ({
      type: "tool-call",
      toolCallId: id,
      toolName,
      input: JSON.stringify(input),
    });
    const model = new MockLanguageModelV4({
      doGenerate: [
        turn([call("t1", "add", { a: 2, b: 3 }), call("t2", "fail", {})], "tool-calls"),
        turn([{ type: "text", text: "5" }], "stop"),
      ] as never,
    });
    const result = await generateText7({ model, tools, prompt: "2+3?", stopWhen: stepCountIs7(3) });
    expect(result.text).toBe("5");
    expect(result.steps[0]?.toolResults[0]).toMatchObject({ toolName: "add", output: "5" });
    const sent = JSON.stringify(model.doGenerateCalls[1]?.prompt.at(-1));
    expect(sent).toContain("disk on fire");
  });
});

describe("aiSdkTools with generateText", () => {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const toolCallTurn = (toolName: string, input: object) => ({
    content: [
      { type: "tool-call" as const, toolCallId: "t1", toolName, input: JSON.stringify(input) },
    ],
    finishReason: { unified: "tool-calls" as const, raw: undefined },
    usage,
    warnings: [],
  });
  const textTurn = (text: string) => ({
    content: [{ type: "text" as const, text }],
    finishReason: { unified: "stop" as const, raw: undefined },
    usage,
    warnings: [],
  });

  test("a read-only tool runs through the toolset with the abort signal, and the model reads its result", async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const spy = defineTool({
      name: "add",
      description: "Adds",
      readOnly: true,
      input: v.object({ a: v.number(), b: v.number() }),
      call: ({ a, b }, ctx) => {
        seen.push(ctx.signal);
        return String(a + b);
      },
    });
    const tools = await aiSdkTools(Toolset.local([spy]));
    const model = new MockLanguageModelV3({
      doGenerate: [toolCallTurn("add", { a: 2, b: 3 }), textTurn("5")],
    });
    const controller = new AbortController();
    const result = await generateText({
      model,
      tools,
      prompt: "2+3?",
      stopWhen: stepCountIs(3),
      abortSignal: controller.signal,
    });
    expect(result.text).toBe("5");
    expect(result.steps[0]?.toolResults[0]).toMatchObject({ toolName: "add", output: "5" });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    const second = model.doGenerateCalls[1]?.prompt.at(-1);
    expect(second).toMatchObject({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "t1" }],
    });
  });

  test("a tool that is not read-only needs approval and does not run", async () => {
    let ran = false;
    const write = defineTool({
      name: "write",
      description: "Writes",
      input: v.object({ path: v.string() }),
      call: () => {
        ran = true;
        return "ok";
      },
    });
    const tools = await aiSdkTools(Toolset.local([write, add]));
    expect(tools.write?.needsApproval).toBe(true);
    expect(tools.add?.needsApproval).toBe(false);
    const model = new MockLanguageModelV3({ doGenerate: [toolCallTurn("write", { path: "/x" })] });
    const result = await generateText({ model, tools, prompt: "write", stopWhen: stepCountIs(3) });
    expect(ran).toBe(false);
    expect(result.content.some((part) => part.type === "tool-approval-request")).toBe(true);
  });

  test("a failed tool result reaches the model as an error", async () => {
    const failing = defineTool({
      name: "fail",
      description: "Fails",
      readOnly: true,
      input: v.object({}),
      call: () => {
        throw new Error("disk on fire");
      },
    });
    const tools = await aiSdkTools(Toolset.local([failing]));
    const model = new MockLanguageModelV3({
      doGenerate: [toolCallTurn("fail", {}), textTurn("sorry")],
    });
    await generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(3) });
    const sent = model.doGenerateCalls[1]?.prompt.at(-1);
    expect(JSON.stringify(sent)).toContain("error");
  });
});
