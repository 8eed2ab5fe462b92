// `toolwire/otel` with the OpenTelemetry SDK's in-memory exporters, in Node, Chromium, workerd
// (no nodejs_compat) and Deno: an agent run's spans form one trace down to the MCP client's
// request, whose trace context the server receives in `params._meta` (SEP-414); `isError`,
// cancellation and a JSON-RPC error are told apart; the duration metric is recorded; nothing of
// the payloads is recorded unless asked. design.md, "Observability".
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import * as v from "valibot";
import { Agent, modeApprover } from "../../src/agent/index.ts";
import { defineTool, isToolError } from "../../src/index.ts";
import { connectMcp } from "../../src/mcp/index.ts";
import { openAICompatible, scriptedModel } from "../../src/models/index.ts";
import { otelObserver } from "../../src/otel/index.ts";
import { createFakeFetch, sseResponse } from "../support/model-fetch.ts";
import { isChildOf, otelCapture } from "../support/otel-capture.ts";
import { roundTripServer } from "../support/round-trip-tools.ts";
import { assert, assertEqual, assertRejects, type PortableCase } from "./harness.ts";

const URL_ = "http://localhost/mcp";

// The round-trip server behind a `fetch` that keeps the JSON-RPC requests it was sent, and
// answers `tools/call` of `work` with a JSON-RPC error, as a faulty server would.
function recordingServer(options: Parameters<typeof roundTripServer>[0] = {}) {
  const server = roundTripServer(options);
  const sent: Record<string, unknown>[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body =
      request.method === "POST"
        ? ((await request.clone().json()) as {
            id?: unknown;
            method?: string;
            params?: { name?: string };
          })
        : undefined;
    if (body?.method !== undefined) sent.push(body);
    if (body?.method === "tools/call" && body.params?.name === "work") {
      return Response.json({
        jsonrpc: "2.0",
        id: body.id,
        error: { code: -32603, message: "the server fell over" },
      });
    }
    return server.handler.fetch(request);
  };
  return { fetch, sent, observed: server.observed };
}

function toolCalls(sent: Record<string, unknown>[]) {
  return sent
    .filter((message) => message.method === "tools/call")
    .map((message) => message.params as { name: string; _meta?: Record<string, unknown> });
}

// The part types of the conventions' message schemas (gen-ai-input-messages.json and
// gen-ai-output-messages.json of semantic-conventions-genai) that toolwire writes, each with the
// fields the schema requires beside `type`.
const REQUIRED_FIELDS: Record<string, string[]> = {
  text: ["content"],
  tool_call: ["name"],
  tool_call_response: ["response"],
  reasoning: ["content"],
  blob: ["modality", "content"],
  server_tool_call: ["name", "server_tool_call"],
  server_tool_call_response: ["server_tool_call_response"],
};

// A recorded `gen_ai.input.messages` or `gen_ai.output.messages`, checked against the schema's
// shape: a JSON list of `{ role, parts }` with a known role and parts of known types with their
// required fields, and a `finish_reason` on each output message.
function conventionMessages(recorded: unknown, kind: "input" | "output"): unknown {
  assert(typeof recorded === "string", `gen_ai.${kind}.messages is recorded as a JSON string`);
  const messages = JSON.parse(recorded) as unknown;
  assert(Array.isArray(messages), "the messages are a list");
  for (const message of messages as Record<string, unknown>[]) {
    assert(
      ["system", "user", "assistant", "tool"].includes(String(message.role)),
      `a role of the schema, not ${String(message.role)}`,
    );
    assert(Array.isArray(message.parts), "a message has parts");
    if (kind === "output") assert(typeof message.finish_reason === "string", "a finish_reason");
    for (const part of message.parts as Record<string, unknown>[]) {
      const required = REQUIRED_FIELDS[String(part.type)];
      assert(required, `a part type of the schema, not ${String(part.type)}`);
      for (const field of required) assert(field in part, `${String(part.type)} has ${field}`);
    }
  }
  return messages;
}

export const cases: PortableCase[] = [
  {
    name: "otel: invoke_agent → chat → execute_tool → tools/call, its trace context in _meta",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver(otel);
      const server = recordingServer({ observer });
      const remote = await connectMcp({ url: URL_, fetch: server.fetch, observer });
      const model = scriptedModel([
        {
          toolCalls: [{ name: "echo", arguments: { message: "hi" } }],
          usage: { inputTokens: 12, outputTokens: 3 },
        },
        { text: "done" },
      ]);
      const agent = new Agent({
        model,
        toolsets: [remote],
        approver: modeApprover("allow"),
        observer,
      });
      const result = await agent.run("say hi").result;
      assertEqual(result.stop, "done");
      await remote.shutdown();

      const run = otel.span("invoke_agent");
      const chats = otel.spans().filter((span) => span.name === "chat scripted");
      const tool = otel.span("execute_tool echo");
      const client = otel.span("tools/call echo", SpanKind.CLIENT);
      const served = otel.span("tools/call echo", SpanKind.SERVER);
      assertEqual(chats.length, 2, "one chat span per model turn");
      assert(run.parentSpanContext === undefined, "invoke_agent is the root");
      assert(
        chats.every((chat) => isChildOf(chat, run)),
        "chat spans are children of invoke_agent",
      );
      assert(isChildOf(tool, run), "execute_tool is a child of invoke_agent");
      assert(isChildOf(client, tool), "the client's tools/call is a child of execute_tool");
      assert(isChildOf(served, client), "the server's tools/call is a child of the client's");
      assertEqual(served.attributes["mcp.method.name"], "tools/call");
      assertEqual(served.attributes["gen_ai.tool.name"], "echo");
      assertEqual(served.attributes["jsonrpc.request.id"], client.attributes["jsonrpc.request.id"]);
      assertEqual(served.attributes["mcp.protocol.version"], "2026-07-28");
      assertEqual(run.attributes["gen_ai.operation.name"], "invoke_agent");
      assertEqual(chats[0]?.attributes["gen_ai.operation.name"], "chat");
      assertEqual(chats[0]?.attributes["gen_ai.request.model"], "scripted");
      assertEqual(chats[0]?.attributes["gen_ai.usage.input_tokens"], 12);
      assert(
        chats[0]?.attributes["gen_ai.provider.name"] === undefined,
        "a model that names no provider leaves gen_ai.provider.name unset",
      );
      assertEqual(tool.attributes["gen_ai.tool.name"], "echo");
      assertEqual(client.attributes["mcp.method.name"], "tools/call");
      assertEqual(client.attributes["gen_ai.tool.name"], "echo");
      assertEqual(client.attributes["network.transport"], "tcp");
      assertEqual(client.attributes["server.address"], "localhost");
      assert(typeof client.attributes["jsonrpc.request.id"] === "string", "jsonrpc.request.id");
      assert(typeof client.attributes["mcp.protocol.version"] === "string", "mcp.protocol.version");
      assert(client.attributes["error.type"] === undefined, "a good call has no error.type");

      // What crossed the wire: the client span's own context, beside the progress token.
      const [call] = toolCalls(server.sent);
      const { traceId, spanId } = client.spanContext();
      assertEqual(call?._meta?.traceparent, `00-${traceId}-${spanId}-01`);
      assert(call?._meta?.progressToken !== undefined, "progressToken is kept");
      // Connecting (discover or initialize, tools/list) is traced and propagated too.
      assert(
        server.sent.every((message) => {
          const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
          return message.id === undefined || typeof meta?.traceparent === "string";
        }),
        "every request carries a traceparent",
      );
      // The 2026 codec answers server/discover itself; it has its server span all the same.
      const discover = otel.span("server/discover", SpanKind.SERVER);
      assert(
        isChildOf(discover, otel.span("server/discover", SpanKind.CLIENT)),
        "the server's server/discover follows _meta",
      );
      await otel.shutdown();
    },
  },
  {
    name: "otel: a 2025-11-25 session's requests carry trace context and the session id",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver(otel);
      const server = recordingServer({ sessions: "memory", observer });
      const remote = await connectMcp({
        url: URL_,
        fetch: server.fetch,
        observer,
        protocol: "2025-11-25",
      });
      await remote.call("echo", { message: "hi" });
      const client = otel.span("tools/call echo", SpanKind.CLIENT);
      const served = otel.span("tools/call echo", SpanKind.SERVER);
      const [call] = toolCalls(server.sent);
      const { traceId, spanId } = client.spanContext();
      assertEqual(call?._meta?.traceparent, `00-${traceId}-${spanId}-01`);
      assert(isChildOf(served, client), "the server's span is a child of the client's");
      assertEqual(client.attributes["mcp.protocol.version"], "2025-11-25");
      assertEqual(served.attributes["mcp.protocol.version"], "2025-11-25");
      assert(typeof client.attributes["mcp.session.id"] === "string", "mcp.session.id");
      assertEqual(served.attributes["mcp.session.id"], client.attributes["mcp.session.id"]);
      // The requests the 2025 codec answers itself get their server span too.
      const initialize = otel.span("initialize", SpanKind.CLIENT);
      assertEqual(initialize.attributes["mcp.method.name"], "initialize");
      const initialized = otel.span("initialize", SpanKind.SERVER);
      assert(isChildOf(initialized, initialize), "the server's initialize follows _meta");
      const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
      const setLevel = await server.fetch(URL_, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
          "mcp-session-id": String(client.attributes["mcp.session.id"]),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 99,
          method: "logging/setLevel",
          params: { level: "error", _meta: { traceparent } },
        }),
      });
      assertEqual(setLevel.status, 200);
      const level = otel.span("logging/setLevel", SpanKind.SERVER);
      assertEqual(level.parentSpanContext?.spanId, "b7ad6b7169203331");
      assertEqual(level.attributes["jsonrpc.request.id"], "99");
      assertEqual(level.attributes["mcp.session.id"], client.attributes["mcp.session.id"]);
      assert(level.attributes["error.type"] === undefined, "setLevel succeeded");
      await remote.shutdown();
      await otel.shutdown();
    },
  },
  {
    name: "otel: isError is error.type tool_error; cancelled and a JSON-RPC error are told apart",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver(otel);
      const server = recordingServer({ observer });
      const remote = await connectMcp({ url: URL_, fetch: server.fetch, observer });

      const failed = await remote.call("fail", {});
      assertEqual(failed.isError, true);
      for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
        const toolError = otel.span("tools/call fail", kind);
        assertEqual(toolError.attributes["error.type"], "tool_error");
        assertEqual(toolError.status.code, SpanStatusCode.ERROR);
      }

      const stop = new AbortController();
      const waiting = remote.call("wait", {}, { signal: stop.signal });
      await server.observed.started;
      stop.abort();
      await assertRejects(
        () => waiting,
        (error) => isToolError(error, "cancelled"),
      );
      // The request itself may end a moment after the call: a 2026 `tools/call` reads an
      // answer already on its way, in case it names a task to cancel.
      const cancelled = await otel.ended("tools/call wait", SpanKind.CLIENT);
      assertEqual(cancelled.attributes["error.type"], "cancelled");
      assert(
        cancelled.attributes["rpc.response.status_code"] === undefined,
        "a cancelled call got no JSON-RPC answer",
      );

      await assertRejects(
        () => remote.call("work", { steps: 1 }),
        (error) => isToolError(error, "protocol"),
      );
      const broken = otel.span("tools/call work", SpanKind.CLIENT);
      assertEqual(broken.attributes["error.type"], "-32603");
      assertEqual(broken.attributes["rpc.response.status_code"], "-32603");
      assertEqual(broken.status.code, SpanStatusCode.ERROR);
      // Arguments the server refuses: MCP answers them as a tool error (`isError`), which the
      // client raises as `invalid_arguments`; the server's span says what went over the wire.
      await assertRejects(
        () => remote.call("add", { a: "one", b: 2 }),
        (error) => isToolError(error, "invalid_arguments"),
      );
      assertEqual(
        otel.span("tools/call add", SpanKind.SERVER).attributes["error.type"],
        "tool_error",
      );
      await remote.shutdown();
      await otel.shutdown();
    },
  },
  {
    name: "otel: mcp.client.operation.duration is recorded per method, tool and outcome",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver(otel);
      const server = recordingServer();
      const remote = await connectMcp({ url: URL_, fetch: server.fetch, observer });
      await remote.call("echo", { message: "a" });
      await remote.call("echo", { message: "b" });
      await remote.call("fail", {});
      await remote.shutdown();
      const durations = await otel.durations();
      const calls = durations.filter(
        (point) =>
          point.name === "mcp.client.operation.duration" &&
          point.attributes["mcp.method.name"] === "tools/call",
      );
      const echo = calls.find((point) => point.attributes["gen_ai.tool.name"] === "echo");
      const fail = calls.find((point) => point.attributes["gen_ai.tool.name"] === "fail");
      assertEqual(echo?.count, 2);
      assertEqual(echo?.unit, "s");
      assert(echo?.attributes["error.type"] === undefined, "a good call has no error.type");
      assertEqual(fail?.attributes["error.type"], "tool_error");
      assertEqual(echo?.attributes["network.transport"], "tcp");
      await otel.shutdown();
    },
  },
  {
    name: "otel: mcp.server.operation.duration is recorded per method, tool and outcome",
    async run() {
      const otel = otelCapture();
      const server = recordingServer({ observer: otelObserver(otel) });
      const remote = await connectMcp({ url: URL_, fetch: server.fetch });
      await remote.call("echo", { message: "a" });
      await remote.call("echo", { message: "b" });
      await assertRejects(() => remote.call("add", { a: "one", b: 2 }));
      await remote.shutdown();
      const served = (await otel.durations()).filter(
        (point) =>
          point.name === "mcp.server.operation.duration" &&
          point.attributes["mcp.method.name"] === "tools/call",
      );
      const echo = served.find((point) => point.attributes["gen_ai.tool.name"] === "echo");
      const add = served.find((point) => point.attributes["gen_ai.tool.name"] === "add");
      assertEqual(echo?.count, 2);
      assertEqual(echo?.unit, "s");
      assert(echo?.attributes["error.type"] === undefined, "a good call has no error.type");
      assertEqual(add?.count, 1);
      assertEqual(add?.attributes["error.type"], "tool_error");
      await otel.shutdown();
    },
  },
  {
    name: "otel: a model turn records gen_ai.client.operation.duration and gen_ai.client.token.usage",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver(otel);
      const model = scriptedModel([
        {
          toolCalls: [{ name: "echo", arguments: { message: "hi" } }],
          usage: { inputTokens: 12, outputTokens: 3 },
        },
        { text: "done", usage: { inputTokens: 20, outputTokens: 5 } },
      ]);
      const server = recordingServer();
      const remote = await connectMcp({ url: URL_, fetch: server.fetch });
      const agent = new Agent({
        model,
        toolsets: [remote],
        approver: modeApprover("allow"),
        observer,
      });
      await agent.run("say hi").result;
      await remote.shutdown();
      const points = await otel.durations();
      const chat = points.filter((point) => point.name === "gen_ai.client.operation.duration");
      assertEqual(chat.length, 1, "one series: chat on the scripted model");
      assertEqual(chat[0]?.count, 2);
      assertEqual(chat[0]?.unit, "s");
      assertEqual(chat[0]?.attributes["gen_ai.operation.name"], "chat");
      assertEqual(chat[0]?.attributes["gen_ai.request.model"], "scripted");
      const tokens = points.filter((point) => point.name === "gen_ai.client.token.usage");
      const input = tokens.find((point) => point.attributes["gen_ai.token.type"] === "input");
      const output = tokens.find((point) => point.attributes["gen_ai.token.type"] === "output");
      assertEqual(input?.unit, "{token}");
      assertEqual([input?.count, input?.sum], [2, 32]);
      assertEqual([output?.count, output?.sum], [2, 8]);
      assertEqual(input?.attributes["gen_ai.request.model"], "scripted");
      assert(
        points.every((point) => point.attributes["gen_ai.provider.name"] === undefined),
        "the scripted model names no provider",
      );
      await otel.shutdown();
    },
  },
  {
    name: "otel: the model's provider is gen_ai.provider.name on invoke_agent, chat and their metrics; cache reads; streamed",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver(otel);
      const call = { index: 0, id: "call_1", type: "function" };
      const turns = [
        [
          {
            choices: [
              {
                index: 0,
                delta: {
                  tool_calls: [
                    { ...call, function: { name: "echo", arguments: '{"message":"hi"}' } },
                  ],
                },
                finish_reason: "tool_calls",
              },
            ],
            usage: {
              prompt_tokens: 12,
              completion_tokens: 3,
              prompt_tokens_details: { cached_tokens: 8 },
            },
          },
        ],
        [
          {
            choices: [{ index: 0, delta: { content: "done" }, finish_reason: "stop" }],
            usage: { prompt_tokens: 20, completion_tokens: 1 },
          },
        ],
      ];
      const provider = createFakeFetch((_request, index) =>
        sseResponse([...(turns[index] ?? []), "[DONE]"]),
      );
      // Groq's OpenAI-compatible endpoint: the adapter names it from the host.
      const model = openAICompatible({
        baseURL: "https://api.groq.com/openai/v1",
        model: "llama-3.3-70b-versatile",
        fetch: provider.fetch,
      });
      const echo = defineTool({
        name: "echo",
        description: "Echoes a message",
        readOnly: true,
        input: v.object({ message: v.string() }),
        call: ({ message }) => message,
      });
      const agent = new Agent({ model, tools: [echo], approver: modeApprover("allow"), observer });
      const result = await agent.run("say hi").result;
      assertEqual(result.stop, "done");

      const run = otel.span("invoke_agent");
      const chats = otel.spans().filter((span) => span.name === "chat llama-3.3-70b-versatile");
      assertEqual(chats.length, 2, "one chat span per model turn");
      assertEqual(run.attributes["gen_ai.provider.name"], "groq");
      for (const chat of chats) {
        assertEqual(chat.attributes["gen_ai.provider.name"], "groq");
        assertEqual(chat.attributes["gen_ai.request.stream"], true, "every turn is streamed");
      }
      // Cache reads the provider reported, per turn and for the run.
      assertEqual(chats[0]?.attributes["gen_ai.usage.cache_read.input_tokens"], 8);
      assertEqual(chats[1]?.attributes["gen_ai.usage.cache_read.input_tokens"], undefined);
      assertEqual(run.attributes["gen_ai.usage.cache_read.input_tokens"], 8);
      assertEqual(run.attributes["gen_ai.usage.input_tokens"], 32);
      // The conventions ask for no provider on a tool's execution: the tool ran here.
      assert(
        otel.span("execute_tool echo").attributes["gen_ai.provider.name"] === undefined,
        "execute_tool has no gen_ai.provider.name",
      );
      const points = await otel.durations();
      const duration = points.filter((point) => point.name === "gen_ai.client.operation.duration");
      assertEqual(
        duration.map((point) => [point.count, point.attributes["gen_ai.provider.name"]]),
        [[2, "groq"]],
      );
      const tokens = points.filter((point) => point.name === "gen_ai.client.token.usage");
      assertEqual(tokens.length, 2, "one series per token type");
      for (const point of tokens) assertEqual(point.attributes["gen_ai.provider.name"], "groq");
      await otel.shutdown();
    },
  },
  {
    name: "otel: a resource read's spans carry mcp.resource.uri, their name and metric do not",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver(otel);
      const server = recordingServer({
        observer,
        resources: [{ uri: "docs://readme", name: "readme", read: () => "# Hi" }],
      });
      const remote = await connectMcp({ url: URL_, fetch: server.fetch, observer });
      await remote.readResource("docs://readme");
      await remote.shutdown();
      for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
        const read = otel.span("resources/read", kind);
        assertEqual(read.attributes["mcp.resource.uri"], "docs://readme");
      }
      assert(
        otel.span("tools/list", SpanKind.CLIENT).attributes["mcp.resource.uri"] === undefined,
        "only a request about a resource has mcp.resource.uri",
      );
      const points = await otel.durations();
      const reads = points.filter(
        (point) => point.attributes["mcp.method.name"] === "resources/read",
      );
      assertEqual(reads.length, 2, "the client's duration and the server's");
      assert(
        reads.every((point) => point.attributes["mcp.resource.uri"] === undefined),
        "no resource URI on a metric",
      );
      await otel.shutdown();
    },
  },
  {
    name: "otel: no arguments, results or prompts by default; all of them on recordPayloads",
    async run() {
      const secret = "the-user-said-7f3a";
      const spansOf = async (recordPayloads: boolean | undefined) => {
        const otel = otelCapture();
        const observer = otelObserver(
          recordPayloads === undefined ? otel : { ...otel, recordPayloads },
        );
        const server = recordingServer();
        const remote = await connectMcp({ url: URL_, fetch: server.fetch, observer });
        const model = scriptedModel([
          { toolCalls: [{ name: "echo", arguments: { message: secret } }] },
          { text: `I said ${secret}` },
        ]);
        const agent = new Agent({
          model,
          instructions: `Never repeat ${secret}`,
          toolsets: [remote],
          approver: modeApprover("allow"),
          observer,
        });
        await agent.run(`please echo ${secret}`).result;
        await remote.shutdown();
        const spans = otel.spans();
        const texts = JSON.stringify(
          spans.map((span) => [span.name, span.attributes, span.status, span.events]),
        );
        const system = spans.find((span) => span.name === "chat scripted")?.attributes[
          "gen_ai.system_instructions"
        ];
        await otel.shutdown();
        return { texts, system };
      };
      assert(
        !(await spansOf(undefined)).texts.includes(secret),
        "a payload was recorded by default",
      );
      const { texts: recorded, system } = await spansOf(true);
      assertEqual(
        JSON.parse(String(system)),
        [{ type: "text", content: `Never repeat ${secret}` }],
        "system instructions as the conventions' list of parts",
      );
      for (const key of [
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
      ]) {
        assert(recorded.includes(key), `${key} is recorded with recordPayloads`);
      }
      assert(recorded.includes(secret), "the payloads are recorded with recordPayloads");
    },
  },
  {
    name: "otel: recorded messages follow the conventions' schema: role and parts, tool results as tool messages",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver({ ...otel, recordPayloads: true });
      const echo = defineTool({
        name: "echo",
        description: "Echoes",
        readOnly: true,
        input: v.object({ message: v.string() }),
        // Two texts, which the model receives one per line.
        call: ({ message }) => ({
          content: [
            { type: "text", text: "echo:" },
            { type: "text", text: message },
          ],
          isError: false,
        }),
      });
      const model = scriptedModel([
        {
          reasoning: "the user wants an echo",
          toolCalls: [{ id: "call_a", name: "echo", arguments: { message: "hi" } }],
        },
        { text: "it said hi" },
      ]);
      const agent = new Agent({
        model,
        tools: [echo],
        approver: modeApprover("allow"),
        observer,
      });
      await agent.run("please echo hi").result;
      const run = otel.span("invoke_agent").attributes;
      const [first, second] = otel
        .spans()
        .filter((span) => span.name === "chat scripted")
        .map((span) => span.attributes);
      const user = { role: "user", parts: [{ type: "text", content: "please echo hi" }] };
      const calling = {
        role: "assistant",
        parts: [
          { type: "reasoning", content: "the user wants an echo" },
          { type: "tool_call", id: "call_a", name: "echo", arguments: { message: "hi" } },
        ],
      };
      assertEqual(conventionMessages(run["gen_ai.input.messages"], "input"), [user]);
      assertEqual(conventionMessages(first?.["gen_ai.input.messages"], "input"), [user]);
      assertEqual(conventionMessages(first?.["gen_ai.output.messages"], "output"), [
        { ...calling, finish_reason: "tool_call" },
      ]);
      assertEqual(conventionMessages(second?.["gen_ai.input.messages"], "input"), [
        user,
        calling,
        {
          role: "tool",
          parts: [{ type: "tool_call_response", id: "call_a", response: "echo:\nhi" }],
        },
      ]);
      const answer = {
        role: "assistant",
        parts: [{ type: "text", content: "it said hi" }],
        finish_reason: "stop",
      };
      assertEqual(conventionMessages(second?.["gen_ai.output.messages"], "output"), [answer]);
      assertEqual(conventionMessages(run["gen_ai.output.messages"], "output"), [answer]);
      await otel.shutdown();
    },
  },
  {
    name: "otel: a run's input messages keep their order, tool results split off, an image as a blob",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver({ ...otel, recordPayloads: true });
      const agent = new Agent({ model: scriptedModel([{ text: "a cat" }]), observer });
      await agent.run([
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "call_z", name: "zoom", input: { factor: 2 } }],
        },
        {
          // A tool result and the user's text in one user message, as the loop keeps them.
          role: "user",
          content: [
            {
              type: "tool_result",
              toolUseId: "call_z",
              content: [{ type: "image", mimeType: "image/png", data: "AAAA" }],
              isError: false,
            },
            { type: "text", text: "and now?" },
          ],
        },
      ]).result;
      const run = otel.span("invoke_agent").attributes;
      assertEqual(conventionMessages(run["gen_ai.input.messages"], "input"), [
        {
          role: "user",
          parts: [
            { type: "text", content: "what is this?" },
            { type: "blob", modality: "image", mime_type: "image/png", content: "iVBORw0KGgo=" },
          ],
        },
        {
          role: "assistant",
          parts: [{ type: "tool_call", id: "call_z", name: "zoom", arguments: { factor: 2 } }],
        },
        {
          role: "tool",
          parts: [
            {
              type: "tool_call_response",
              id: "call_z",
              // Not only text: the content list itself.
              response: [{ type: "image", mimeType: "image/png", data: "AAAA" }],
            },
          ],
        },
        { role: "user", parts: [{ type: "text", content: "and now?" }] },
      ]);
      await otel.shutdown();
    },
  },
  {
    name: "otel: the server's span follows _meta, linked to the HTTP request's own context",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver(otel);
      const server = recordingServer({ observer });
      // An HTTP layer that traces its requests itself sends its own `traceparent` header.
      const http = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
      const remote = await connectMcp({
        url: URL_,
        observer,
        fetch: (input, init) => {
          const request = new Request(input, init);
          request.headers.set("traceparent", http);
          return server.fetch(request);
        },
      });
      await remote.call("echo", { message: "hi" });
      const client = otel.span("tools/call echo", SpanKind.CLIENT);
      const served = otel.span("tools/call echo", SpanKind.SERVER);
      assert(isChildOf(served, client), "_meta wins over the HTTP header as the parent");
      assertEqual(
        served.links.map((link) => link.context.spanId),
        ["b7ad6b7169203331"],
        "the HTTP request's context is a link",
      );
      await otel.shutdown();
    },
  },
  {
    name: "otel: a client's server.address is the endpoint's host, an IPv6 one without brackets",
    async run() {
      const otel = otelCapture();
      const observer = otelObserver(otel);
      for (const endpoint of ["http://[::1]:8080/mcp", "https://calc.example/mcp"]) {
        observer
          .start({
            type: "mcp_request",
            side: "client",
            method: "ping",
            id: 1,
            params: {},
            endpoint,
          })
          .end({ type: "done", result: {} });
      }
      const pings = otel.spans().map((span) => span.attributes);
      assertEqual(
        pings.map((ping) => [ping["server.address"], ping["server.port"]]),
        [
          ["::1", 8080],
          ["calc.example", 443],
        ],
      );
      const durations = (await otel.durations()).filter(
        (point) => point.name === "mcp.client.operation.duration",
      );
      assertEqual(durations.map((point) => point.attributes["server.address"]).sort(), [
        "::1",
        "calc.example",
      ]);
      await otel.shutdown();
    },
  },
  {
    name: "otel: without an observer no request carries trace context",
    async run() {
      const server = recordingServer();
      const remote = await connectMcp({ url: URL_, fetch: server.fetch });
      const model = scriptedModel([
        { toolCalls: [{ name: "echo", arguments: { message: "hi" } }] },
        { text: "done" },
      ]);
      await new Agent({ model, toolsets: [remote], approver: modeApprover("allow") }).run("hi")
        .result;
      await remote.shutdown();
      const metas = server.sent.map(
        (message) => (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta,
      );
      assert(
        metas.every((meta) => meta === undefined || !("traceparent" in meta)),
        "a traceparent was sent without an observer",
      );
      assert(toolCalls(server.sent).length === 1, "the call went out");
    },
  },
];
