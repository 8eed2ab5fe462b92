// The official MCP SDK's `McpServer` over its web-standard Streamable HTTP transport, served on
// 127.0.0.1 through toolwire/node's `serve`, recording every HTTP request it receives. Node only.
//
// The web-standard transport is the SDK's own; its node:http `StreamableHTTPServerTransport`
// is a thin wrapper around it, and this keeps Node types out of the root tsconfig.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { serve } from "../../src/node/index.ts";

/** One HTTP request the server received. */
export interface RecordedRequest {
  method: string;
  headers: Headers;
  /** The JSON body (`undefined` for none). */
  body: unknown;
}

/** A running SDK server. */
export interface SdkMcpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** The JSON-RPC bodies of POSTs whose `method` is `method`. */
  messages(method: string): Record<string, unknown>[];
  /** The `McpServer`s created so far (one per session, or one per request when stateless). */
  servers: McpServer[];
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Starts an SDK MCP server.
 *
 * @param options `stateful`: sessions with `Mcp-Session-Id` (else stateless: a fresh server per
 * request); `register`: adds the tools to each new `McpServer`.
 * @returns The running server.
 */
export async function startSdkMcpServer(options: {
  stateful: boolean;
  register(server: McpServer): void;
}): Promise<SdkMcpServer> {
  const requests: RecordedRequest[] = [];
  const servers: McpServer[] = [];
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const fresh = async (stateful: boolean) => {
    const server = new McpServer({ name: "sdk-fixture", version: "9.9.9" });
    options.register(server);
    servers.push(server);
    const transport = new WebStandardStreamableHTTPServerTransport(
      stateful
        ? {
            sessionIdGenerator: () => crypto.randomUUID(),
            onsessioninitialized: (id) => void sessions.set(id, transport),
          }
        : {},
    );
    await server.connect(transport);
    return transport;
  };
  // Toolwire/node's own bridge serves the peer too, so the tests use one node:http adapter.
  const port = await serve(
    {
      fetch: async (request) => {
        const text = request.method === "POST" ? await request.clone().text() : "";
        let body: unknown;
        try {
          body = text === "" ? undefined : JSON.parse(text);
        } catch {
          body = undefined;
        }
        requests.push({ method: request.method, headers: request.headers, body });
        if (!options.stateful) return (await fresh(false)).handleRequest(request);
        const id = request.headers.get("mcp-session-id");
        if (id === null) return (await fresh(true)).handleRequest(request);
        const transport = sessions.get(id);
        if (!transport) return new Response("unknown session", { status: 404 });
        return transport.handleRequest(request);
      },
    },
    { port: 0 },
  );
  return {
    url: `${port.url}/mcp`,
    requests,
    servers,
    messages: (method) =>
      requests
        .filter((r) => r.method === "POST")
        .map((r) => r.body)
        .filter(
          (b): b is Record<string, unknown> =>
            typeof b === "object" && b !== null && (b as { method?: unknown }).method === method,
        ),
    close: async () => {
      for (const server of servers) await server.close().catch(() => {});
      await port.close();
    },
  };
}
