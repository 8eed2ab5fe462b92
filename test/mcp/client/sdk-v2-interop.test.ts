// connectMcp against the official SDK v2 server (`@modelcontextprotocol/server` 2.4.0, in memory
// through its `fetch`): pinned to 2026-07-28 against a modern-only endpoint, `auto` against a
// dual-era one (it stays on 2026-07-28), and a question asked with `inputRequired` answered
// through onInteraction (design.md "Consuming MCP", "2026-07-28").
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  inputResponse,
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
  const confirmSchema = {
    type: "object" as const,
    properties: { confirm: { type: "boolean" as const } },
    required: ["confirm"],
  };
  const ask = () =>
    inputRequired({
      inputRequests: {
        confirm: inputRequired.elicit({ message: "Proceed?", requestedSchema: confirmSchema }),
      },
    });
  // The SDK's own documented "write-once tool requesting confirmation" (the `inputRequired` TSDoc
  // example): anything but an accepted `confirm: true`, a decline included, asks again.
  server.registerTool(
    "confirm",
    { description: "Asks to confirm", inputSchema: fromJsonSchema({ type: "object" }) },
    async (_args, ctx) => {
      const confirmed = acceptedContent(ctx.mcpReq.inputResponses, "confirm");
      if (confirmed?.confirm !== true) return ask();
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  // The same question, with the decline read through `inputResponse`.
  server.registerTool(
    "confirm_or_stop",
    { description: "Asks to confirm", inputSchema: fromJsonSchema({ type: "object" }) },
    async (_args, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, "confirm");
      if (view.kind !== "elicit") return ask();
      return { content: [{ type: "text", text: `the user chose ${view.action}` }] };
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
    expect((await toolset.listTools()).map((tool) => tool.name)).toEqual([
      "add",
      "confirm",
      "confirm_or_stop",
      "greet",
    ]);
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

  // Issue 22 item 5. The wire of a decline is the SDK v2 client's own: `inputResponses:
  // { confirm: { action: "decline" } }` on the retry. The SDK's documented confirm tool re-asks on
  // a decline, so its own client loops to its round cap; toolwire ends the call after one ask.
  it("declines a form question with the SDK v2 client's own wire, and does not ask again", async () => {
    const retries = (bodies: string[]) =>
      bodies
        .map((text) => JSON.parse(text))
        .filter((body) => body.method === "tools/call" && body.params.inputResponses)
        .map((body) => body.params.inputResponses);
    const handler = createMcpHandler(() => sdkServer());
    const ours: string[] = [];
    const toolset = await connectMcp({
      url,
      fetch: async (input, init) => {
        ours.push(String(init?.body));
        return handler.fetch(new Request(input, init));
      },
      formInteractions: true,
    });
    const prompts: string[] = [];
    const decline = async (request: { id: string; prompt: string }) => {
      prompts.push(request.prompt);
      return InteractionResponse.decline(request.id);
    };
    const stopped = await toolset.call("confirm_or_stop", {}, { onInteraction: decline });
    expect(stopped.content).toEqual([{ type: "text", text: "the user chose decline" }]);
    const error = await caught(toolset.call("confirm", {}, { onInteraction: decline }));
    expect(error.type).toBe("interaction_declined");
    expect(error.message).toContain("again after the caller declined");
    expect(prompts).toEqual(["Proceed?", "Proceed?"]);
    await toolset.shutdown();

    // The witness: the SDK v2 client, declining through its own elicitation handler.
    const theirs: string[] = [];
    const client = new Client(
      { name: "sdk-v2-client", version: "2.4.0" },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
    );
    client.setRequestHandler("elicitation/create", async () => ({ action: "decline" }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        fetch: async (input, init) => {
          theirs.push(String(init?.body));
          return handler.fetch(new Request(input, init));
        },
      }),
    );
    const answered = await client.callTool({ name: "confirm_or_stop", arguments: {} });
    expect(answered.content).toEqual(stopped.content);
    const looped = await client.callTool({ name: "confirm", arguments: {} }).catch(String);
    expect(looped).toContain("still required input after 10 rounds");
    await client.close();
    const declined = { confirm: { action: "decline" } };
    expect(retries(ours)).toEqual([declined, declined]);
    expect(retries(theirs).slice(0, 2)).toEqual([declined, declined]);
    expect(retries(theirs)).toHaveLength(1 + 10);
  });
});
