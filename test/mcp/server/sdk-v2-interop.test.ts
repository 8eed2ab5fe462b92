// The official SDK v2 client (@modelcontextprotocol/client 2.4.0), pinned to 2026-07-28 or in
// `auto` negotiation, against createMcpHandler, in-process through its transport's `fetch`: it
// discovers the server, lists and calls tools, and answers a tool's question through its own
// elicitation and sampling handlers (it fulfils `input_required` and retries with the state).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import type { McpHandler } from "../../../src/mcp/index.ts";
import { fixtureHandler, fixtureSources } from "./fixture.ts";

const URL_ = new URL("http://127.0.0.1:3000/mcp");
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
});

async function connect(
  handler: McpHandler,
  mode: "auto" | "legacy" | { pin: string } = { pin: "2026-07-28" },
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(URL_, {
    fetch: (input, init) => handler.fetch(new Request(input, init)),
  });
  const client = new Client(
    { name: "sdk-v2-client", version: "2.4.0" },
    {
      capabilities: { elicitation: { form: {} }, sampling: {} },
      versionNegotiation: { mode },
    },
  );
  client.setRequestHandler("elicitation/create", async () => ({
    action: "accept",
    content: { name: "Ada" },
  }));
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    content: { type: "text", text: "Bonjour" },
    model: "sdk-model",
  }));
  clients.push(client);
  await client.connect(transport);
  return client;
}

describe("the SDK v2 client reads resources and prompts from createMcpHandler", () => {
  for (const mode of [{ pin: "2026-07-28" }, "legacy"] as const) {
    const modern = mode !== "legacy";
    it(`lists and reads resources and gets prompts (${modern ? "2026-07-28" : "legacy"})`, async () => {
      const client = await connect(fixtureHandler(fixtureSources()).handler, mode);
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.uri)).toEqual(["docs://logo", "docs://readme"]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["notes://{id}"]);
      const read = await client.readResource({ uri: "notes://2" });
      expect(read.contents).toEqual([{ uri: "notes://2", mimeType: "text/plain", text: "Note 2" }]);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(["summarize"]);
      const prompt = await client.getPrompt({ name: "summarize", arguments: { text: "x" } });
      expect(prompt.messages[0]).toEqual({
        role: "user",
        content: { type: "text", text: "Summarize: x" },
      });
      const missing = await client
        .readResource({ uri: "docs://none" })
        .catch((e: unknown) => e as Error);
      // The v2 client reads 2025's -32002 as its ResourceNotFoundError too (code -32602).
      expect(missing?.constructor.name).toBe("ResourceNotFoundError");
      expect(missing).toMatchObject({ code: -32602, data: { uri: "docs://none" } });
    });
  }
});

describe("the SDK v2 client pinned to 2026-07-28 against createMcpHandler", () => {
  it("connects, lists the tools and calls one", async () => {
    const client = await connect(fixtureHandler({ sessions: "memory" }).handler);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    const result = await client.callTool({ name: "echo", arguments: { message: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "echo: hi" }]);
  });

  it("in auto mode, probes with server/discover and stays on 2026-07-28", async () => {
    const seen: string[] = [];
    const { handler } = fixtureHandler();
    const watching: McpHandler = {
      ...handler,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        seen.push(request.headers.get("mcp-method") ?? "(none)");
        return handler.fetch(request);
      },
    };
    const client = await connect(watching, "auto");
    const result = await client.callTool({ name: "ask", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "Hello Ada" }]);
    expect(seen[0]).toBe("server/discover");
    expect(seen).not.toContain("(none)");
  });

  it("answers a tool's form question and a sampling request through input_required", async () => {
    const client = await connect(fixtureHandler().handler);
    const asked = await client.callTool({ name: "ask", arguments: {} });
    expect(asked.content).toEqual([{ type: "text", text: "Hello Ada" }]);
    const sampled = await client.callTool({ name: "sample", arguments: { prompt: "Hi" } });
    expect(sampled.content).toEqual([{ type: "text", text: "sdk-model said Bonjour (no reason)" }]);
  });
});
