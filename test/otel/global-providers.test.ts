// `otelObserver()` as most programs write it: no options, the providers registered globally by
// the program's OpenTelemetry setup (what `@opentelemetry/sdk-node` does), often after the module
// that made the observer was loaded. The observer must find the providers when it records, not
// when it was made: the metrics API has no proxy provider, so a meter taken at creation would be
// the no-op one for good. design.md, "Observability" (O5).

import { context, metrics, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import * as v from "valibot";
import { afterEach, expect, test } from "vitest";
import { Agent, modeApprover } from "../../src/agent/index.ts";
import { defineTool, Toolset } from "../../src/index.ts";
import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
import { scriptedModel } from "../../src/models/index.ts";
import { serve } from "../../src/node/index.ts";
import { otelObserver } from "../../src/otel/index.ts";
import { isChildOf, otelCapture } from "../support/otel-capture.ts";

afterEach(() => {
  trace.disable();
  metrics.disable();
  context.disable();
});

const echo = defineTool({
  name: "echo",
  description: "Says it back",
  readOnly: true,
  input: v.object({ text: v.string() }),
  call: ({ text }) => text,
});

test("a default otelObserver() made before the providers are registered records spans and metrics to them", async () => {
  // Made first, as a module-level `const observer = otelObserver()` is.
  const observer = otelObserver();
  const otel = otelCapture();
  trace.setGlobalTracerProvider(otel.tracerProvider);
  metrics.setGlobalMeterProvider(otel.meterProvider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

  const server = await serve(
    createMcpHandler(Toolset.local([echo]), { name: "echo", version: "1.0.0", observer }),
    { port: 0 },
  );
  const tools = await connectMcp({ url: new URL("/mcp", server.url), observer });
  try {
    const agent = new Agent({
      model: scriptedModel([
        { toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
        { text: "done" },
      ]),
      toolsets: [tools],
      approver: modeApprover("allow"),
      observer,
    });
    expect((await agent.run("say hi").result).stop).toBe("done");
  } finally {
    await tools.shutdown();
    await server.close();
  }

  const run = otel.span("invoke_agent");
  const call = otel.span("execute_tool echo");
  const client = otel.span("tools/call echo", SpanKind.CLIENT);
  const served = otel.span("tools/call echo", SpanKind.SERVER);
  expect(isChildOf(call, run)).toBe(true);
  expect(isChildOf(client, call)).toBe(true);
  expect(isChildOf(served, client)).toBe(true);

  const recorded = await otel.durations();
  const count = (name: string, method?: string) =>
    recorded
      .filter(
        (point) =>
          point.name === name &&
          (method === undefined || point.attributes["mcp.method.name"] === method),
      )
      .reduce((sum, point) => sum + point.count, 0);
  expect(count("mcp.client.operation.duration", "tools/call")).toBe(1);
  expect(count("mcp.server.operation.duration", "tools/call")).toBe(1);
  expect(count("gen_ai.client.operation.duration")).toBe(2);
  await otel.shutdown();
});

test("the providers registered later replace those the observer recorded to before", async () => {
  const observer = otelObserver();
  const first = otelCapture();
  metrics.setGlobalMeterProvider(first.meterProvider);
  trace.setGlobalTracerProvider(first.tracerProvider);
  const model = () => scriptedModel([{ text: "one" }]);
  await new Agent({ model: model(), observer }).run("first").result;
  expect((await first.durations()).filter((p) => p.name.startsWith("gen_ai"))).toHaveLength(1);

  // A program that shuts its SDK down and starts another (a test harness, a hot reload).
  metrics.disable();
  trace.disable();
  const second = otelCapture();
  metrics.setGlobalMeterProvider(second.meterProvider);
  trace.setGlobalTracerProvider(second.tracerProvider);
  await new Agent({ model: model(), observer }).run("second").result;
  expect(second.spans().map((span) => span.name)).toContain("invoke_agent");
  expect((await second.durations()).filter((p) => p.name.startsWith("gen_ai"))).toHaveLength(1);
  // Nothing more went to the first.
  expect(first.spans().filter((span) => span.name === "invoke_agent")).toHaveLength(1);
  await first.shutdown();
  await second.shutdown();
});
