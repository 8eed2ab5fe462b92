// connectMcp against the official SDK v2 server (`@modelcontextprotocol/server` 2.4.0, in memory
// through its `fetch`): pinned to 2026-07-28 against a modern-only endpoint, `auto` against a
// dual-era one (it stays on 2026-07-28), and a question asked with `inputRequired` answered
// through onInteraction (design.md "Consuming MCP", "2026-07-28").
import {
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  McpServer,
} from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { InteractionResponse } from "../../../src/index.ts";
import { connectMcp } from "../../../src/mcp/index.ts";
import { caught } from "../../support/caught.ts";

function sdkServer() {
  const server = new McpServer({ name: "sdk-v2", version: "2.4.0" });
  server.registerTool(
    "add",
    {
      description: "Adds two numbers",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      }),
    },
    async (args) => {
      const { a, b } = args as { a: number; b: number };
      return { content: [{ type: "text", text: String(a + b) }] };
    },
  );
  server.registerTool(
    "greet",
    { description: "Asks for a name", inputSchema: fromJsonSchema({ type: "object" }) },
    async (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "name");
      if (typeof answer?.name !== "string") {
        return inputRequired({
          inputRequests: {
            name: inputRequired.elicit({
              message: "Your name?",
              requestedSchema: {
                type: "object",
                properties: { name: { type: "string" } },
                required: ["name"],
              },
            } as never),
          },
          requestState: "round-1",
        });
      }
      return { content: [{ type: "text", text: `Hello, ${answer.name}` }] };
    },
  );
  return server;
}

function recorded(handler: { fetch: (request: Request) => Promise<Response> }) {
  const methods: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const text = request.method === "POST" ? await request.clone().text() : "";
    methods.push(text === "" ? request.method : String(JSON.parse(text).method));
    return handler.fetch(request);
  };
  return { fetch: fetch as typeof globalThis.fetch, methods };
}

const url = "http://127.0.0.1:3000/mcp";

describe("connectMcp against the SDK v2 server", () => {
  it("pinned to 2026-07-28: lists, calls, and answers an inputRequired question", async () => {
    const handler = createMcpHandler(() => sdkServer(), { legacy: "reject" });
    const wire = recorded(handler);
    const toolset = await connectMcp({
      url,
      fetch: wire.fetch,
      protocol: "2026-07-28",
      formInteractions: true,
    });
    expect((await toolset.listTools()).map((tool) => tool.name)).toEqual(["add", "greet"]);
    expect((await toolset.call("add", { a: 2, b: 3 })).content).toEqual([
      { type: "text", text: "5" },
    ]);
    const prompts: string[] = [];
    const result = await toolset.call(
      "greet",
      {},
      {
        onInteraction: async (request) => {
          prompts.push(request.prompt);
          return InteractionResponse.submit(request.id, { name: "Ada" });
        },
      },
    );
    expect(prompts).toEqual(["Your name?"]);
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada" }]);
    await toolset.shutdown();
    expect(wire.methods).not.toContain("initialize");
  });

  it("in auto mode against a dual-era endpoint, stays on 2026-07-28", async () => {
    const handler = createMcpHandler(() => sdkServer());
    const wire = recorded(handler);
    const toolset = await connectMcp({ url, fetch: wire.fetch });
    expect((await toolset.call("add", { a: 1, b: 1 })).content).toEqual([
      { type: "text", text: "2" },
    ]);
    expect(wire.methods[0]).toBe("server/discover");
    expect(wire.methods).not.toContain("initialize");
  });

  it("pinned to 2025-11-25 against a modern-only endpoint, fails typed", async () => {
    const handler = createMcpHandler(() => sdkServer(), { legacy: "reject" });
    const error = await caught(
      connectMcp({ url, fetch: handler.fetch as typeof fetch, protocol: "2025-11-25" }),
    );
    expect(["protocol", "transport"]).toContain(error.type);
  });
});
