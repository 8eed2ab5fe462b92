// Our connectMcp against our createMcpHandler in-process (the client's `fetch` is the
// handler's): list, call, structuredContent, isError, progress, logs, cancellation,
// elicitation and sampling, proven in Node, Chromium, workerd and Deno.
import * as v from "valibot";
import {
  defineTool,
  InteractionResponse,
  isToolError,
  type ToolLog,
  Toolset,
} from "../../src/index.ts";
import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
import { roundTripServer } from "../support/round-trip-tools.ts";
import { assert, assertEqual, assertRejects, type PortableCase } from "./harness.ts";

const URL_ = "http://localhost/mcp";

async function connect() {
  const server = roundTripServer();
  const toolset = await connectMcp({
    url: URL_,
    fetch: server.handler.fetch,
    formInteractions: true,
  });
  return { toolset, observed: server.observed };
}

// A served tool that asks the caller's model (MCP sampling) and returns what it said.
function samplingServer() {
  const haiku = defineTool({
    name: "haiku",
    description: "Asks the caller's model for a haiku",
    input: v.object({ topic: v.string() }),
    interactions: { sampling: true },
    call: async ({ topic }, { requestSampling }) => {
      const reply = await requestSampling({
        messages: [{ role: "user", content: { type: "text", text: `A haiku about ${topic}` } }],
        maxTokens: 60,
      });
      return reply.content.type === "text" ? `${reply.model}: ${reply.content.text}` : "?";
    },
  });
  return createMcpHandler(Toolset.local([haiku]), {
    name: "sampling",
    version: "1.0.0",
    interactionPolicy: "elicit",
  });
}

export const cases: PortableCase[] = [
  {
    name: "mcp round trip: lists tools and calls them (text, structuredContent, isError)",
    async run() {
      const { toolset } = await connect();
      const names = (await toolset.listTools()).map((tool) => tool.name);
      assertEqual(names, ["add", "ask", "echo", "fail", "wait", "work"]);
      const echo = await toolset.call("echo", { message: "hi" });
      assertEqual(echo.content, [{ type: "text", text: "echo: hi" }]);
      const sum = await toolset.call("add", { a: 2, b: 3 });
      assertEqual(sum.structuredContent, { sum: 5 });
      const failed = await toolset.call("fail", {});
      assert(failed.isError, "an isError result stays a result");
      await toolset.shutdown();
    },
  },
  {
    name: "mcp round trip: progress and logs reach the caller",
    async run() {
      const { toolset } = await connect();
      const progress: number[] = [];
      const logs: ToolLog[] = [];
      const result = await toolset.call(
        "work",
        { steps: 2 },
        { onProgress: (p) => progress.push(p.progress), onLog: (log) => logs.push(log) },
      );
      assertEqual(result.content, [{ type: "text", text: "worked 2" }]);
      assertEqual(progress, [1, 2]);
      assertEqual(
        logs.map((log) => log.data),
        ["step 1", "step 2"],
      );
      await toolset.shutdown();
    },
  },
  {
    name: "mcp round trip: aborting the call fires the served tool's ctx.signal",
    async run() {
      const { toolset, observed } = await connect();
      const controller = new AbortController();
      const call = toolset.call("wait", {}, { signal: controller.signal });
      await observed.started;
      controller.abort();
      await assertRejects(
        () => call,
        (error) => isToolError(error, "cancelled"),
      );
      assert(isToolError(await observed.aborted, "cancelled"), "the server's tool was cancelled");
      await toolset.shutdown();
    },
  },
  {
    name: "mcp round trip: an elicitation becomes an interaction and its answer returns",
    async run() {
      const { toolset } = await connect();
      const result = await toolset.call(
        "ask",
        {},
        {
          onInteraction: async (request) => {
            assertEqual(request.prompt, "Your name?");
            return InteractionResponse.submit(request.id, { name: "Ada" });
          },
        },
      );
      assertEqual(result.content, [{ type: "text", text: "Hello Ada" }]);
      await toolset.shutdown();
    },
  },
  {
    name: "mcp round trip: a tool's sampling request is answered by the caller's model",
    async run() {
      const handler = samplingServer();
      const toolset = await connectMcp({
        url: URL_,
        fetch: handler.fetch,
        samplingInteractions: true,
      });
      const result = await toolset.call(
        "haiku",
        { topic: "rain" },
        {
          onInteraction: async (request) => {
            assertEqual(request.prompt, "A haiku about rain");
            assertEqual(request.kind.type, "sampling");
            return InteractionResponse.submit(request.id, {
              role: "assistant",
              content: { type: "text", text: "soft rain on the roof" },
              model: "tiny",
            });
          },
        },
      );
      assertEqual(result.content, [{ type: "text", text: "tiny: soft rain on the roof" }]);
      await toolset.shutdown();
    },
  },
];
