// One MCP `tools/call` round trip, in-process, no sockets: our connectMcp client through our
// createMcpHandler (the handler's `fetch` is the client's transport: every message is serialised
// to JSON, every answer is a real Response, and the handler reads `fetch(url, init)` with a string
// body directly rather than building a Request, which is the same path any in-process user gets)
// next to the official SDK's Client and McpServer over its
// InMemoryTransport (which passes message objects, no HTTP at all), measured in the same run.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { loadAddHandler, loadDist } from "./load.ts";
import { compare, interleaved, section, time } from "./report.ts";

type Mcp = typeof import("../src/mcp/index.ts");

async function ours() {
  const { connectMcp } = await loadDist<Mcp>("mcp/index.js");
  const handler = await loadAddHandler();
  const client = await connectMcp({ url: "http://localhost/mcp", fetch: handler.fetch });
  return {
    call: () => client.call("add", { a: 1, b: 2 }),
    close: () => client.shutdown(),
  };
}

function sdkServer(): McpServer {
  const server = new McpServer({ name: "bench", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  return server;
}

// The SDK's own fastest path: message objects handed across, no HTTP.
async function sdkInMemory() {
  const server = sdkServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(clientSide);
  return sdkClient(client, server);
}

// Like for like with ours: the SDK's web-standard Streamable HTTP server transport, its
// Streamable HTTP client transport, and an in-process fetch between them.
async function sdkHttp() {
  const server = sdkServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    enableJsonResponse: true,
  });
  await server.connect(transport);
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
      // The SDK hands every request its transport-wide signal, and undici's Request adds a
      // listener to it per request that is only freed by GC; dropping it keeps a long benchmark
      // free of MaxListeners warnings without changing what a round trip does.
      fetch: (input, init) =>
        transport.handleRequest(new Request(input, { ...init, signal: null })),
    }),
  );
  return sdkClient(client, server);
}

function sdkClient(client: Client, server: McpServer) {
  return {
    call: () => client.callTool({ name: "add", arguments: { a: 1, b: 2 } }),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/**
 * Measures a `tools/call` round trip: our client + handler vs the SDK's client + server over
 * its in-memory transport and over its Streamable HTTP transports, p50/avg/p99.
 */
export async function mcpRoundTrip(): Promise<void> {
  const toolwire = await ours();
  const inMemory = await sdkInMemory();
  const http = await sdkHttp();
  try {
    const { a, b, c } = await interleaved({ a: toolwire.call, b: inMemory.call, c: http.call });
    section("MCP tools/call round trip, in-process (no sockets): toolwire vs the official SDK");
    console.log("toolwire: connectMcp → createMcpHandler, the handler's fetch as transport");
    console.log("SDK in-memory: Client → McpServer over InMemoryTransport (no HTTP)");
    console.log("SDK HTTP: Client → McpServer over Streamable HTTP transports, in-process fetch");
    compare("p50 vs SDK in-memory", time(a.p50), time(b.p50), a.p50 / b.p50, "<= 0.5x");
    compare("avg vs SDK in-memory", time(a.avg), time(b.avg), a.avg / b.avg);
    compare("p99 vs SDK in-memory", time(a.p99), time(b.p99), a.p99 / b.p99);
    compare("p50 vs SDK HTTP", time(a.p50), time(c.p50), a.p50 / c.p50, "<= 0.5x");
    compare("avg vs SDK HTTP", time(a.avg), time(c.avg), a.avg / c.avg);
    compare("p99 vs SDK HTTP", time(a.p99), time(c.p99), a.p99 / c.p99);
  } finally {
    await toolwire.close();
    await inMemory.close();
    await http.close();
  }
}
