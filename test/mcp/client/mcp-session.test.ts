// The client's HTTP exchange (design.md "Consuming MCP", M3-M5, M7-M8): headers, session id,
// routing of what arrives on a request's stream, the typed errors a failed exchange becomes,
// deadlines and shutdown.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ToolError } from "../../../src/index.ts";
import {
  McpSession,
  type ServerMessage,
  withDeadline,
} from "../../../src/mcp/client/mcp-session.ts";
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
      // The first one is reported; a later id-null error does not replace it.
      sse(parseError, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "later" } }),
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

const answering = (response: Response | (() => Response)) =>
  new McpSession(URL_, new Headers(), (async () =>
    typeof response === "function" ? response() : response) as typeof fetch);
const requestOn = (
  response: Response,
  method = "tools/call",
  onMessage?: (m: ServerMessage) => void,
) =>
  caught(
    answering(response).request(
      3,
      method,
      {},
      onMessage ? { label: "t", onMessage } : { label: "t" },
    ),
  );

describe("McpSession: routing a request's stream", () => {
  it("returns the result of the awaited id only", async () => {
    const session = answering(
      sse(
        { jsonrpc: "2.0", id: 4, result: { other: 1 } },
        { jsonrpc: "2.0", id: "3", result: {} },
        { jsonrpc: "2.0", id: 3, result: { ok: true } },
      ),
    );
    expect(await session.request(3, "tools/call", {}, { label: "t" })).toEqual({ ok: true });
  });

  it("fails protocol with the server's message and code for the awaited id's error", async () => {
    const error = await requestOn(
      Response.json({ jsonrpc: "2.0", id: 3, error: { code: -32602, message: "bad" } }),
    );
    expect(error.data).toEqual({
      type: "protocol",
      message: "tools/call failed: bad (JSON-RPC error -32602)",
    });
  });

  it("hands requests and notifications to onMessage, in order, and ignores other ids' errors", async () => {
    const seen: ServerMessage[] = [];
    const error = await requestOn(
      sse(
        { jsonrpc: "2.0", method: "notifications/progress", params: {} },
        { jsonrpc: "2.0", id: 8, error: { code: -1, message: "not ours" } },
        { jsonrpc: "2.0", id: "s1", method: "ping" },
      ),
      "tools/call",
      (m) => seen.push(m),
    );
    expect(seen.map((m) => [m.type, m.message.method])).toEqual([
      ["notification", "notifications/progress"],
      ["request", "ping"],
    ]);
    expect(error.message).toContain("ended before its response");
  });

  it("fails protocol for a message that is not JSON-RPC, and for text that is not JSON", async () => {
    for (const value of [null, [], { jsonrpc: "1.0", id: 3, result: {} }, { id: 3 }]) {
      const error = await requestOn(sse(value));
      expect(error.type).toBe("protocol");
      expect(error.message).toContain("tools/call: the server sent Invalid Request");
    }
    const html = new Response("<html>oops</html>", {
      headers: { "content-type": "application/json" },
    });
    const error = await requestOn(html);
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("invalid JSON: <html>oops</html>");
  });
});

describe("McpSession: failures", () => {
  it("wraps a network failure as transport, naming its cause, and keeps no runtime error", async () => {
    const failed = new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") });
    const session = new McpSession(URL_, new Headers(), (() => Promise.reject(failed)) as never);
    const error = await caught(session.request(1, "initialize", {}, { label: "initialize" }));
    expect(error.data).toEqual({
      type: "transport",
      tool: "initialize",
      message: "fetch failed (ECONNREFUSED)",
    });
    expect(error.cause).toBeUndefined();
  });

  it("prefers the abort reason: a ToolError as is, anything else as cancelled", async () => {
    const timeout = new ToolError({ type: "timeout", tool: "t", timeoutMs: 1000 });
    const session = answering(Response.json({}));
    const signal = AbortSignal.abort(timeout);
    expect(await caught(session.request(1, "m", {}, { label: "t", signal }))).toBe(timeout);
    const bye = AbortSignal.abort("bye");
    expect((await caught(session.request(1, "m", {}, { label: "t", signal: bye }))).type).toBe(
      "cancelled",
    );
  });

  it("reports 404 as an expired session only once there is one, else with the body", async () => {
    const plain = await requestOn(new Response("no such path", { status: 404 }));
    expect(plain.message).toContain("HTTP 404: no such path (check the endpoint path in `url`)");
  });

  it("says where to look for the statuses the user can fix, and cuts long bodies", async () => {
    const refused = await requestOn(new Response("", { status: 401 }));
    expect(refused.message).toContain("HTTP 401 (the server refused the credentials");
    const scope = await requestOn(
      new Response("", {
        status: 403,
        headers: { "www-authenticate": 'Bearer error="insufficient_scope"' },
      }),
    );
    expect(scope.message).toContain("HTTP 403 (the server refused the credentials");
    // A 403 without a challenge is the server refusing the request, e.g. its Host check: no
    // advice to pass credentials that would not help.
    const host = await requestOn(
      new Response("Forbidden: Host `127.0.0.1:8788` is not allowed", { status: 403 }),
    );
    expect(host.message).toContain("HTTP 403: Forbidden: Host `127.0.0.1:8788` is not allowed");
    expect(host.message).not.toContain("credentials;");
    expect(host.message).toContain("`allowedHosts`");
    const other = await requestOn(new Response("boom", { status: 500 }));
    expect(other.data).toEqual({ type: "transport", tool: "t", message: "HTTP 500: boom" });
    const long = await requestOn(new Response("x".repeat(300), { status: 500 }));
    expect(long.message).toBe(`transport failure calling \`t\`: HTTP 500: ${"x".repeat(200)}…`);
  });

  it("refuses a redirect, naming where it pointed without its query", async () => {
    const error = await requestOn(
      new Response(null, { status: 307, headers: { location: "https://evil.test/x?code=1" } }),
    );
    expect(error.message).toContain("redirected to https://evil.test/x (HTTP 307)");
  });
});

describe("withDeadline", () => {
  afterEach(() => vi.useRealTimers());
  const untilAbort = (signal: AbortSignal) =>
    new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => reject(signal.reason)),
    );

  it("returns the work's value and clears its timer", async () => {
    vi.useFakeTimers();
    expect(await withDeadline("op", 1000, async () => 42)).toBe(42);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("aborts the work with timeout{tool, timeoutMs} at the deadline", async () => {
    vi.useFakeTimers();
    const pending = caught(withDeadline("tools/list", 1500, untilAbort));
    await vi.advanceTimersByTimeAsync(1500);
    expect((await pending).data).toEqual({ type: "timeout", tool: "tools/list", timeoutMs: 1500 });
  });

  it("turns the caller's abort into cancelled, before and during the work", async () => {
    expect((await caught(withDeadline("op", 1000, untilAbort, AbortSignal.abort()))).type).toBe(
      "cancelled",
    );
    const controller = new AbortController();
    const pending = caught(withDeadline("op", 60_000, untilAbort, controller.signal));
    controller.abort();
    expect((await pending).type).toBe("cancelled");
  });
});
