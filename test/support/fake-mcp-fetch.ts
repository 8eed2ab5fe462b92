// A tiny in-memory MCP server as a `fetch` function (no sockets, web standards only), so client
// tests run in every runtime. Hooks let a test break any exchange on purpose.

/** One request the fake received. */
export interface FakeRequest {
  method: string;
  headers: Headers;
  /** The parsed JSON body, `undefined` for none. */
  body: unknown;
}

/** What the fake answers a `tools/call` with. */
export interface FakeCallOutcome {
  /** The `CallToolResult`. */
  result?: Record<string, unknown>;
  /** A JSON-RPC error instead. */
  error?: { code: number; message: string };
  /** Progress values sent first; the answer then travels as an SSE stream. */
  progress?: number[];
}

/** Fake MCP server options. */
export interface FakeMcpOptions {
  /** The `tools/list` entries. */
  tools?: Record<string, unknown>[];
  /** Entries per `tools/list` page (default: all in one page). */
  pageSize?: number;
  /** The `protocolVersion` answered to `initialize` (default 2025-06-18). */
  protocolVersion?: string;
  /** The session id to issue (default none: stateless). */
  sessionId?: string;
  /** Leaves `tools` out of the server capabilities. */
  noToolsCapability?: boolean;
  /** Answers `tools/call`; default echoes the arguments as JSON text. */
  call?(name: string, args: unknown): FakeCallOutcome | Promise<FakeCallOutcome>;
  /** Answers a request itself when it returns a response (malformed answers, HTTP errors). */
  override?(message: Record<string, unknown>, request: Request): Response | undefined;
  /** Status of the answer to DELETE (default 200). */
  deleteStatus?: number;
}

/** A fake server. */
export interface FakeMcp {
  /** Pass as `connectMcp({ fetch })`. */
  fetch: typeof fetch;
  /** Every request, in order. */
  requests: FakeRequest[];
  /** The JSON-RPC bodies whose `method` is `method`. */
  messages(method: string): Record<string, unknown>[];
}

const json = (value: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), {
    headers: { "content-type": "application/json", ...headers },
  });

/**
 * Creates a fake MCP server.
 *
 * @param options The inventory and the hooks.
 * @returns The fake.
 */
export function createFakeMcp(options: FakeMcpOptions = {}): FakeMcp {
  const requests: FakeRequest[] = [];
  const tools = options.tools ?? [];
  const pageSize = options.pageSize ?? Math.max(tools.length, 1);
  const handle = async (request: Request): Promise<Response> => {
    const text = await request.text();
    const body: unknown = text === "" ? undefined : JSON.parse(text);
    requests.push({ method: request.method, headers: request.headers, body });
    if (request.method === "DELETE")
      return new Response(null, { status: options.deleteStatus ?? 200 });
    const message = body as Record<string, unknown>;
    const overridden = options.override?.(message, request);
    if (overridden) return overridden;
    if (message.id === undefined || message.method === undefined) {
      return new Response(null, { status: 202 });
    }
    const id = message.id;
    const params = (message.params ?? {}) as Record<string, unknown>;
    switch (message.method) {
      case "initialize":
        return json(
          {
            jsonrpc: "2.0",
            id,
            result: {
              protocolVersion: options.protocolVersion ?? "2025-06-18",
              capabilities: options.noToolsCapability ? {} : { tools: {} },
              serverInfo: { name: "fake", version: "1.0.0" },
            },
          },
          options.sessionId ? { "mcp-session-id": options.sessionId } : {},
        );
      case "tools/list": {
        const start = typeof params.cursor === "string" ? Number(params.cursor) : 0;
        const page = tools.slice(start, start + pageSize);
        const next =
          start + pageSize < tools.length ? { nextCursor: String(start + pageSize) } : {};
        return json({ jsonrpc: "2.0", id, result: { tools: page, ...next } });
      }
      case "tools/call": {
        const outcome = options.call
          ? await options.call(String(params.name), params.arguments)
          : { result: { content: [{ type: "text", text: JSON.stringify(params.arguments) }] } };
        const answer = outcome.error
          ? { jsonrpc: "2.0", id, error: outcome.error }
          : { jsonrpc: "2.0", id, result: outcome.result ?? {} };
        if (!outcome.progress) return json(answer);
        const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
        const events = [
          "id: 0\ndata:\n\n",
          ...outcome.progress.map(
            (progress) =>
              `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress } })}\n\n`,
          ),
          `event: message\ndata: ${JSON.stringify(answer)}\n\n`,
        ];
        return new Response(events.join(""), { headers: { "content-type": "text/event-stream" } });
      }
      default:
        return json({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
    }
  };
  return {
    fetch: (input, init) => handle(new Request(input, init)),
    requests,
    messages: (method) =>
      requests
        .map((r) => r.body)
        .filter(
          (b): b is Record<string, unknown> =>
            typeof b === "object" && b !== null && (b as { method?: unknown }).method === method,
        ),
  };
}
