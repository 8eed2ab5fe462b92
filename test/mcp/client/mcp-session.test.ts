import { describe, expect, it } from "vitest";
import { McpSession } from "../../../src/mcp/client/mcp-session.ts";
import type { ServerMessage } from "../../../src/mcp/client/route-message.ts";
import { caught } from "../../support/caught.ts";

const URL_ = "http://x.test/mcp";
type Seen = { init: RequestInit; body: Record<string, unknown> | undefined };
const server = (answer: (body: Record<string, unknown> | undefined) => Response) => {
  const seen: Seen[] = [];
  const fetch = (async (_: unknown, init: RequestInit = {}) => {
    const body = typeof init.body === "string" ? JSON.parse(init.body) : undefined;
    seen.push({ init, body });
    return answer(body);
  }) as typeof globalThis.fetch;
  return { seen, fetch };
};
const sse = (...messages: unknown[]) =>
  new Response(messages.map((m) => `data: ${JSON.stringify(m)}\n\n`).join(""), {
    headers: { "content-type": "text/event-stream" },
  });

describe("McpSession", () => {
  it("sends the caller's and the MCP headers, adopts the session id once, never follows redirects", async () => {
    const { seen, fetch } = server((body) =>
      Response.json(
        { jsonrpc: "2.0", id: body?.id, result: {} },
        { headers: { "mcp-session-id": `s-${seen.length}` } },
      ),
    );
    const session = new McpSession(URL_, new Headers({ "x-api-key": "k" }), fetch);
    await session.request(session.newRequestId(), "initialize", {}, { label: "initialize" });
    session.useProtocolVersion("2025-06-18");
    await session.request(session.newRequestId(), "ping", {}, { label: "ping" });
    expect(session.sessionId).toBe("s-1");
    const headers = new Headers(seen[1]?.init.headers);
    expect(Object.fromEntries(headers)).toMatchObject({
      "x-api-key": "k",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": "s-1",
      "mcp-protocol-version": "2025-06-18",
    });
    expect(new Headers(seen[0]?.init.headers).has("mcp-session-id")).toBe(false);
    expect(seen.every(({ init }) => init.redirect === "manual")).toBe(true);
    expect(seen.map(({ body }) => body?.id)).toEqual([1, 2]);
  });

  it("routes server messages on an SSE answer to onMessage and returns the matching response", async () => {
    const { fetch } = server((body) =>
      sse(
        { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } },
        { jsonrpc: "2.0", id: "srv-1", method: "ping" },
        { jsonrpc: "2.0", id: 999, result: { other: true } },
        { jsonrpc: "2.0", id: body?.id, result: { ok: true } },
      ),
    );
    const session = new McpSession(URL_, new Headers(), fetch);
    const messages: ServerMessage[] = [];
    const result = await session.request(
      session.newRequestId(),
      "tools/call",
      {},
      {
        label: "t",
        onMessage: (message) => messages.push(message),
      },
    );
    expect(result).toEqual({ ok: true });
    expect(messages.map((m) => m.type)).toEqual(["notification", "request"]);
  });

  it("fails typed: JSON-RPC error, a stream that ends early, a redirect, an expired session", async () => {
    const cases: [Response, string, string][] = [
      [
        Response.json({ jsonrpc: "2.0", id: 1, error: { code: -1, message: "no" } }),
        "protocol",
        "no",
      ],
      [sse({ jsonrpc: "2.0", method: "notifications/message" }), "transport", "ended"],
      [
        new Response(null, { status: 308, headers: { location: "http://evil/" } }),
        "transport",
        "redirect",
      ],
      [Response.json({ jsonrpc: "2.0", id: 7, result: {} }), "protocol", "no JSON-RPC response"],
    ];
    for (const [response, type, text] of cases) {
      const session = new McpSession(URL_, new Headers(), (async () => response) as typeof fetch);
      const error = await caught(session.request(1, "tools/call", {}, { label: "t" }));
      expect(error.type, text).toBe(type);
      expect(error.message).toContain(text);
    }
    let calls = 0;
    const expiring = new McpSession(URL_, new Headers(), (async () =>
      calls++ === 0
        ? Response.json(
            { jsonrpc: "2.0", id: 1, result: {} },
            { headers: { "mcp-session-id": "s" } },
          )
        : new Response("", { status: 404 })) as typeof fetch);
    await expiring.request(1, "initialize", {}, { label: "initialize" });
    expect((await caught(expiring.request(2, "ping", {}, { label: "ping" }))).message).toContain(
      "session expired",
    );
  });

  it("reports an id-null JSON-RPC error when the awaited response never comes", async () => {
    const parseError = {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" },
    };
    const answers = [
      Response.json(parseError),
      Response.json([parseError, { jsonrpc: "2.0", id: 9, result: {} }]),
      sse({ jsonrpc: "2.0", method: "notifications/message" }, parseError),
    ];
    for (const response of answers) {
      const session = new McpSession(URL_, new Headers(), (async () => response) as typeof fetch);
      const error = await caught(session.request(1, "tools/call", {}, { label: "t" }));
      expect(error.data).toEqual({
        type: "protocol",
        message: "tools/call failed: Parse error (JSON-RPC error -32700 with id null)",
      });
    }
  });

  it("still returns the awaited response when an id-null error came before it", async () => {
    const { fetch } = server((body) =>
      sse(
        { jsonrpc: "2.0", id: null, error: { code: -32600, message: "bad batch entry" } },
        { jsonrpc: "2.0", id: body?.id, result: { ok: true } },
      ),
    );
    const session = new McpSession(URL_, new Headers(), fetch);
    const result = await session.request(session.newRequestId(), "ping", {}, { label: "ping" });
    expect(result).toEqual({ ok: true });
  });

  it("waits for cancellation notices, then DELETEs once for every close()", async () => {
    const { seen, fetch } = server((body) =>
      body?.method === "initialize"
        ? Response.json(
            { jsonrpc: "2.0", id: body.id, result: {} },
            { headers: { "mcp-session-id": "s" } },
          )
        : new Response(null, { status: 202 }),
    );
    const session = new McpSession(URL_, new Headers(), fetch);
    await session.request(1, "initialize", {}, { label: "initialize" });
    void session.cancelRequest(5, "bored", "t");
    const closing = [session.close(), session.close()];
    await Promise.all(closing);
    expect(closing[0]).toBe(closing[1]);
    expect(seen.map(({ init, body }) => body?.method ?? init.method)).toEqual([
      "initialize",
      "notifications/cancelled",
      "DELETE",
    ]);
    expect(seen[1]?.body?.params).toEqual({ requestId: 5, reason: "bored" });
  });

  it("sends no DELETE when the server issued no session id", async () => {
    const { seen, fetch } = server(() => new Response(null, { status: 202 }));
    await new McpSession(URL_, new Headers(), fetch).close();
    expect(seen).toEqual([]);
  });
});
