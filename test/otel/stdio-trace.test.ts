// `toolwire/otel` over stdio, in Node: the agent's run, its tool call and the client's request
// in this process, the server's span in the child (exported there, handed back by its `spans`
// tool), joined into one trace through `params._meta` in both protocol eras (design.md,
// "Observability").
import { join } from "node:path";
import { SpanKind } from "@opentelemetry/api";
import { describe, expect, test } from "vitest";
import { Agent, modeApprover } from "../../src/agent/index.ts";
import { scriptedModel } from "../../src/models/index.ts";
import { connectStdio } from "../../src/node/index.ts";
import { otelObserver } from "../../src/otel/index.ts";
import { isChildOf, otelCapture } from "../support/otel-capture.ts";

const fixture = join(import.meta.dirname, "../node/fixtures/traced-toolset.ts");

interface ServerSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

describe.each(["2026-07-28", "2025-11-25"] as const)("over stdio, %s", (protocol) => {
  test("one trace holds invoke_agent → execute_tool → client tools/call → server tools/call", async () => {
    const otel = otelCapture();
    const observer = otelObserver(otel);
    const tools = await connectStdio({
      command: process.execPath,
      args: ["--import", "tsx", fixture],
      stderr: "ignore",
      protocol,
      observer,
    });
    try {
      const agent = new Agent({
        model: scriptedModel([
          {
            toolCalls: [
              { name: "echo", arguments: { message: "hi" } },
              { name: "fail", arguments: {} },
            ],
          },
          { text: "done" },
        ]),
        toolsets: [tools],
        approver: modeApprover("allow"),
        observer,
      });
      expect((await agent.run("echo hi").result).stop).toBe("done");
      const reported = await tools.call("spans", {});
      const served = JSON.parse(
        reported.content[0]?.type === "text" ? reported.content[0].text : "[]",
      ) as ServerSpan[];

      const run = otel.span("invoke_agent");
      const tool = otel.span("execute_tool echo");
      const client = otel.span("tools/call echo", SpanKind.CLIENT);
      expect(isChildOf(tool, run)).toBe(true);
      expect(isChildOf(client, tool)).toBe(true);
      expect(client.attributes["network.transport"]).toBe("pipe");
      expect(client.attributes["mcp.protocol.version"]).toBe(protocol);
      const server = served.find((span) => span.name === "tools/call echo");
      expect(server).toMatchObject({
        kind: SpanKind.SERVER,
        traceId: run.spanContext().traceId,
        parentSpanId: client.spanContext().spanId,
        attributes: { "mcp.method.name": "tools/call", "gen_ai.tool.name": "echo" },
      });
      // The server's side knows its requests came over stdio, not HTTP.
      expect(server?.attributes["network.transport"]).toBe("pipe");
      expect(server?.attributes["network.protocol.name"]).toBeUndefined();
      // The tool ran with the server's span current: its own span is a child of it.
      const own = served.find((span) => span.name === "echo's own work");
      expect(own).toMatchObject({ traceId: run.spanContext().traceId });
      expect(own?.parentSpanId).toBe(server?.spanId);
      const failed = served.find((span) => span.name === "tools/call fail");
      expect(failed?.attributes["error.type"]).toBe("tool_error");
      expect(otel.span("execute_tool fail").attributes["error.type"]).toBe("tool_error");
    } finally {
      await tools.shutdown();
      await otel.shutdown();
    }
  }, 30_000);
});
