// Our connectMcp against our createMcpHandler, in-process: the client's `fetch` is the
// handler's, so every byte goes through both real implementations with no socket between.
import { describe, expect, it } from "vitest";
import {
  InteractionResponse,
  isReadOnly,
  isToolError,
  type ToolLog,
  type ToolProgress,
} from "../../src/index.ts";
import { connectMcp } from "../../src/mcp/index.ts";
import { caught } from "../support/caught.ts";
import { roundTripServer } from "../support/round-trip-tools.ts";

const URL_ = "http://localhost/mcp";

async function connected(options: Parameters<typeof roundTripServer>[0] = {}) {
  const server = roundTripServer(options);
  const methods: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    methods.push(init?.method ?? "GET");
    return server.handler.fetch(input as string, init);
  };
  const toolset = await connectMcp({ url: URL_, fetch, formInteractions: true });
  return { ...server, toolset, methods };
}

describe("MCP round trip: connectMcp → createMcpHandler", () => {
  it("works with the handler's own fetch as the client's transport", async () => {
    const { handler } = roundTripServer();
    const toolset = await connectMcp({ url: URL_, fetch: handler.fetch });
    expect((await toolset.call("echo", { message: "hi" })).content).toEqual([
      { type: "text", text: "echo: hi" },
    ]);
    await toolset.shutdown();
  });

  it("lists every tool with its schemas and read-only annotation", async () => {
    const { toolset } = await connected({ pageSize: 2 });
    const tools = await toolset.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["add", "ask", "echo", "fail", "wait", "work"]);
    const add = tools.find((tool) => tool.name === "add");
    expect(add?.description).toBe("Adds two numbers");
    expect(add?.outputSchema?.schema).toMatchObject({ properties: { sum: { type: "number" } } });
    expect(tools.filter(isReadOnly).map((tool) => tool.name)).toEqual(["add", "echo"]);
    await toolset.shutdown();
  });

  it("calls a tool; structuredContent and isError results come back as results", async () => {
    const { toolset } = await connected();
    expect((await toolset.call("echo", { message: "hi" })).content).toEqual([
      { type: "text", text: "echo: hi" },
    ]);
    const sum = await toolset.call("add", { a: 2, b: 3 });
    expect(sum.isError).toBe(false);
    expect(sum.structuredContent).toEqual({ sum: 5 });
    const failed = await toolset.call("fail", {});
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: "text", text: "record not found" }]);
    await toolset.shutdown();
  });

  it("refuses invalid arguments before sending, with the remote schema's issues", async () => {
    const { toolset, methods } = await connected();
    const sent = methods.length;
    const error = await caught(toolset.call("add", { a: "two", b: 3 }));
    expect(isToolError(error, "invalid_arguments")).toBe(true);
    expect(methods.length).toBe(sent);
    await toolset.shutdown();
  });

  it("forwards progress and log messages while the tool runs", async () => {
    const { toolset } = await connected();
    const progress: ToolProgress[] = [];
    const logs: ToolLog[] = [];
    const result = await toolset.call(
      "work",
      { steps: 3 },
      { onProgress: (p) => progress.push(p), onLog: (log) => logs.push(log) },
    );
    expect(result.content).toEqual([{ type: "text", text: "worked 3" }]);
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(logs).toEqual(
      [1, 2, 3].map((n) => ({ level: "info", data: `step ${n}`, logger: "work" })),
    );
    await toolset.shutdown();
  });

  it("cancels: aborting the caller's signal fires the served tool's ctx.signal", async () => {
    const { toolset, observed } = await connected();
    const controller = new AbortController();
    const call = toolset.call("wait", {}, { signal: controller.signal });
    await observed.started;
    controller.abort("user pressed stop");
    expect(isToolError(await caught(call), "cancelled")).toBe(true);
    const reason = await observed.aborted;
    expect(isToolError(reason, "cancelled")).toBe(true);
    await toolset.shutdown();
  });

  it("maps elicitation to an interaction step and the answer back to the tool", async () => {
    const { toolset } = await connected();
    const result = await toolset.call(
      "ask",
      {},
      {
        onInteraction: async (request) => {
          expect(request.prompt).toBe("Your name?");
          expect(request.kind.type).toBe("form");
          return InteractionResponse.submit(request.id, { name: "Ada" });
        },
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "Hello Ada" }]);
    const declined = await toolset.call(
      "ask",
      {},
      { onInteraction: async (request) => InteractionResponse.decline(request.id) },
    );
    expect(declined.isError).toBe(true);
    await toolset.shutdown();
  });

  it("with sessions, shutdown ends the session with one DELETE", async () => {
    const { toolset, methods } = await connected({ sessions: "memory" });
    expect((await toolset.call("echo", { message: "s" })).isError).toBe(false);
    await Promise.all([toolset.shutdown(), toolset.shutdown()]);
    expect(methods.filter((method) => method === "DELETE")).toHaveLength(1);
  });
});
