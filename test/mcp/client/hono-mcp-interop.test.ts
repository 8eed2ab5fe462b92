// Our connectMcp against `@hono/mcp` 0.3 (its StreamableHTTPTransport in Hono, with the official
// SDK 1.32 McpServer), set up as its README shows: one transport, no session id. Served
// in-process through the Hono app's `fetch`.
import { StreamableHTTPTransport } from "@hono/mcp";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { InteractionResponse } from "../../../src/index.ts";
import { connectMcp } from "../../../src/mcp/index.ts";

function honoServer() {
  const mcp = new McpServer({ name: "hono", version: "1.0.0" });
  mcp.registerTool("ask", { description: "Asks for a colour", inputSchema: {} }, async () => {
    // No `relatedRequestId`: the SDK sends the question on the standalone GET stream.
    const answer = await mcp.server.elicitInput({
      mode: "form",
      message: "Colour?",
      requestedSchema: { type: "object", properties: { colour: { type: "string" } } },
    });
    return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  });
  const transport = new StreamableHTTPTransport();
  const app = new Hono();
  const methods: string[] = [];
  app.all("/mcp", async (c) => {
    if (!mcp.isConnected()) await mcp.connect(transport);
    return transport.handleRequest(c);
  });
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    methods.push(request.method);
    return app.fetch(request);
  };
  return { fetch, methods };
}

describe("connectMcp against @hono/mcp", () => {
  // Issue 22 item 5: the server issues no session id, and its transport still has the GET stream.
  it("answers an elicitation sent on the standalone GET stream without a session id", async () => {
    const server = honoServer();
    const toolset = await connectMcp({
      url: "http://localhost/mcp",
      fetch: server.fetch,
      formInteractions: true,
    });
    const prompts: string[] = [];
    const result = await toolset.call(
      "ask",
      {},
      {
        onInteraction: async (request) => {
          prompts.push(request.prompt);
          return InteractionResponse.submit(request.id, { colour: "teal" });
        },
      },
    );
    expect(prompts).toEqual(["Colour?"]);
    expect(result.content).toEqual([
      { type: "text", text: JSON.stringify({ action: "accept", content: { colour: "teal" } }) },
    ]);
    expect(server.methods).toContain("GET");
    await toolset.shutdown();
  });
});
