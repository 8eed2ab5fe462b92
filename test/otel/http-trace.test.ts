// `toolwire/otel` over real HTTP in Node, set up as a Node service is (`@opentelemetry/sdk-node`
// registers Node's AsyncLocalStorage context manager): one trace from the agent's run through
// the client's `tools/call` to the server's, and the server's span is current while the tool
// runs, so what the tool starts (its own span here, a fetch's span under an HTTP
// instrumentation) nests under it. design.md, "Observability" (O2).

import { context, SpanKind } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import * as v from "valibot";
import { afterAll, beforeAll, expect, test } from "vitest";
import { Agent, modeApprover } from "../../src/agent/index.ts";
import { defineTool, Toolset } from "../../src/index.ts";
import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
import { scriptedModel } from "../../src/models/index.ts";
import { serve } from "../../src/node/index.ts";
import { otelObserver } from "../../src/otel/index.ts";
import { isChildOf, otelCapture } from "../support/otel-capture.ts";

const manager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(manager.enable());
});
afterAll(() => {
  manager.disable();
  context.disable();
});

test("over HTTP the trace runs invoke_agent → execute_tool → client and server tools/call → the tool's own span", async () => {
  const otel = otelCapture();
  const observer = otelObserver(otel);
  const tracer = otel.tracerProvider.getTracer("the tool's own");
  const lookup = defineTool({
    name: "lookup",
    description: "Looks a word up",
    readOnly: true,
    input: v.object({ word: v.string() }),
    call: async ({ word }) => {
      // After an await, as a tool's fetch would be: the context survives it.
      await new Promise((resolve) => setTimeout(resolve, 1));
      const span = tracer.startSpan("lookup's own work");
      span.end();
      return `${word}: a word`;
    },
  });
  const server = await serve(
    createMcpHandler(Toolset.local([lookup]), { name: "dict", version: "1.0.0", observer }),
    { port: 0 },
  );
  const dict = await connectMcp({ url: new URL("/mcp", server.url), namespace: "dict", observer });
  try {
    const agent = new Agent({
      model: scriptedModel([
        { toolCalls: [{ name: "dict__lookup", arguments: { word: "otel" } }] },
        { text: "done" },
      ]),
      toolsets: [dict],
      approver: modeApprover("allow"),
      observer,
    });
    expect((await agent.run("look up otel").result).stop).toBe("done");
  } finally {
    await dict.shutdown();
    await server.close();
  }
  const run = otel.span("invoke_agent");
  const tool = otel.span("execute_tool dict__lookup");
  const client = otel.span("tools/call lookup", SpanKind.CLIENT);
  const served = otel.span("tools/call lookup", SpanKind.SERVER);
  const own = otel.span("lookup's own work");
  expect(isChildOf(tool, run)).toBe(true);
  expect(isChildOf(client, tool)).toBe(true);
  expect(isChildOf(served, client)).toBe(true);
  expect(isChildOf(own, served)).toBe(true);
  expect(client.attributes["network.transport"]).toBe("tcp");
  expect(client.attributes["server.address"]).toBe("127.0.0.1");
  // The server knows its request came over HTTP (it names its host), on the span and metric.
  expect(served.attributes).toMatchObject({
    "network.transport": "tcp",
    "network.protocol.name": "http",
  });
  const call = (await otel.durations()).find(
    (point) =>
      point.name === "mcp.server.operation.duration" &&
      point.attributes["mcp.method.name"] === "tools/call",
  );
  expect(call?.attributes["network.transport"]).toBe("tcp");
  await otel.shutdown();
});
