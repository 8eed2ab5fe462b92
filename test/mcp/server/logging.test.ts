import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, Toolset } from "../../../src/index.ts";
import { createMcpHandler, type McpHandlerOptions } from "../../../src/mcp/index.ts";
import { post, rpc, sseMessages } from "./fixture.ts";

const chatty = defineTool({
  name: "chatty",
  description: "Logs at three levels",
  input: v.object({}),
  call: (_input, ctx) => {
    ctx.log("debug", "details");
    ctx.log("info", { step: 1 }, "worker");
    ctx.log("error", "broke, recovered");
    return "done";
  },
});

const handlerWith = (options: Partial<McpHandlerOptions> = {}) =>
  createMcpHandler(Toolset.local([chatty]), { name: "logs", version: "1.0.0", ...options });

const call = (id: number) => rpc(id, "tools/call", { name: "chatty", arguments: {} });

const logsOf = (messages: Record<string, unknown>[]) =>
  messages.filter((m) => m.method === "notifications/message").map((m) => m.params);

describe("MCP logging", () => {
  it("streams ctx.log as notifications/message before the result, all levels by default", async () => {
    const response = await handlerWith().fetch(post(call(1)));
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const messages = await sseMessages(response);
    expect(logsOf(messages)).toEqual([
      { level: "debug", data: "details" },
      { level: "info", data: { step: 1 }, logger: "worker" },
      { level: "error", data: "broke, recovered" },
    ]);
    expect(messages.at(-1)).toMatchObject({ id: 1, result: { content: [{ text: "done" }] } });
  });

  it("drops messages below the level a session set with logging/setLevel", async () => {
    const handler = handlerWith({ sessions: "memory" });
    const init = await handler.fetch(
      post(rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {} })),
    );
    const session = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
    const set = await handler.fetch(post(rpc(2, "logging/setLevel", { level: "info" }), session));
    expect(await set.json()).toMatchObject({ id: 2, result: {} });
    const messages = await sseMessages(await handler.fetch(post(call(3), session)));
    expect(logsOf(messages).map((log) => (log as { level: string }).level)).toEqual([
      "info",
      "error",
    ]);
  });

  it("answers plain JSON when every message is filtered out (stateless level)", async () => {
    const handler = handlerWith();
    await handler.fetch(post(rpc(1, "logging/setLevel", { level: "emergency" })));
    const response = await handler.fetch(post(call(2)));
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ id: 2, result: { isError: false } });
  });
});
