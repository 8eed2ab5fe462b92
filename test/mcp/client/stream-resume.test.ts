// 2025-11-25 stream resumption on the client (design.md "Consuming MCP", M19): a request's
// event stream that the server closes before the response, or that drops, goes on with a GET
// carrying `Last-Event-ID` after the server's `retry:` delay; bounded attempts with backoff, a
// byte budget, the caller's signal, and a typed error when it cannot resume.
import { afterEach, describe, expect, it, vi } from "vitest";
import { McpSession, type ServerMessage } from "../../../src/mcp/client/mcp-session.ts";
import { connectMcp } from "../../../src/mcp/index.ts";
import { caught } from "../../support/caught.ts";
import { createFakeMcp } from "../../support/fake-mcp-fetch.ts";

const URL_ = "http://x.test/mcp";

// An event stream of raw SSE text; `drop` errors the body after the text, as a cut
// connection does.
const stream = (text: string, drop?: Error) =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        if (!drop) controller.close();
      },
      // Asked for more once the text is read: the cut comes after it, not instead of it.
      pull(controller) {
        if (drop) controller.error(drop);
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  );
const event = (id: string, message: unknown) => `id: ${id}\ndata: ${JSON.stringify(message)}\n\n`;
const result = (id: number) => ({ jsonrpc: "2.0", id, result: { ok: true } });
const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } };

interface Seen {
  method: string;
  headers: Headers;
  at: number;
}
// A scripted server: POSTs and GETs answered in order by the two scripts.
const scripted = (post: () => Response, get: (lastEventId: string | null) => Response) => {
  const seen: Seen[] = [];
  const fetch = (async (_: unknown, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    const method = init.method ?? "GET";
    seen.push({ method, headers, at: Date.now() });
    return method === "POST" ? post() : get(headers.get("last-event-id"));
  }) as typeof globalThis.fetch;
  return { seen, fetch };
};
// A session past initialize: its id and version are sent from now on.
const sessionOn = async (fetch: typeof globalThis.fetch, maxMessageBytes?: number) => {
  let first = true;
  const session = new McpSession(
    URL_,
    new Headers(),
    (async (url: string, init: RequestInit) => {
      if (!first) return fetch(url, init);
      first = false;
      return Response.json(
        { jsonrpc: "2.0", id: 1, result: {} },
        { headers: { "mcp-session-id": "s-1" } },
      );
    }) as typeof globalThis.fetch,
    maxMessageBytes,
  );
  await session.request(session.newRequestId(), "initialize", {}, { label: "initialize" });
  session.useProtocolVersion("2025-11-25");
  return session;
};

describe("McpSession: resuming a request's stream (2025-11-25)", () => {
  afterEach(() => vi.useRealTimers());

  it("resumes a stream the server closed early with a GET after the last event id, waiting the retry delay", async () => {
    vi.useFakeTimers();
    const { seen, fetch } = scripted(
      () => stream(`id: e1\nretry: 500\ndata: \n\n${event("e2", progress)}`),
      () => stream(event("e3", result(2))),
    );
    const session = await sessionOn(fetch);
    const messages: ServerMessage[] = [];
    const pending = session.request(
      2,
      "tools/call",
      {},
      { label: "t", onMessage: (m) => messages.push(m) },
    );
    await vi.advanceTimersByTimeAsync(499);
    expect(seen.map((s) => s.method)).toEqual(["POST"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toEqual({ ok: true });
    const [post, get] = seen;
    expect(get?.at).toBe((post?.at ?? 0) + 500);
    expect(Object.fromEntries(get?.headers ?? [])).toMatchObject({
      "last-event-id": "e2",
      "mcp-session-id": "s-1",
      "mcp-protocol-version": "2025-11-25",
      accept: "text/event-stream",
    });
    expect(get?.headers.has("content-type")).toBe(false);
    expect(messages.map((m) => m.message.method)).toEqual(["notifications/progress"]);
  });

  it("resumes a stream whose connection dropped, and again from a resumed stream's own last id", async () => {
    const asked: (string | null)[] = [];
    const { fetch } = scripted(
      () => stream("retry: 0\nid: a\ndata: \n\n", new TypeError("terminated")),
      (lastEventId) => {
        asked.push(lastEventId);
        return asked.length === 1 ? stream(event("b", progress)) : stream(event("c", result(2)));
      },
    );
    const session = await sessionOn(fetch);
    expect(await session.request(2, "tools/call", {}, { label: "t" })).toEqual({ ok: true });
    expect(asked).toEqual(["a", "b"]);
  });

  it("fails typed when the stream gave no event id, or the server has no GET stream", async () => {
    const noId = scripted(
      () => stream(`data: ${JSON.stringify(progress)}\n\n`),
      () => stream(""),
    );
    const error = await caught(
      (await sessionOn(noId.fetch)).request(2, "tools/call", {}, { label: "t" }),
    );
    expect(error.data).toEqual({
      type: "transport",
      tool: "t",
      message:
        "the tools/call stream ended before its response and gave no event id to resume it from",
    });
    expect(noId.seen.map((s) => s.method)).toEqual(["POST"]);

    const noGet = scripted(
      () => stream("retry: 0\nid: a\ndata: \n\n"),
      () => new Response(null, { status: 405 }),
    );
    const refused = await caught(
      (await sessionOn(noGet.fetch)).request(2, "tools/call", {}, { label: "t" }),
    );
    expect(refused.data).toEqual({
      type: "transport",
      tool: "t",
      message:
        "the tools/call stream ended before its response and could not be resumed: the server offers no GET stream (HTTP 405)",
    });
  });

  it("backs off between failed reconnections and gives up after five in a row", async () => {
    vi.useFakeTimers();
    const { seen, fetch } = scripted(
      () => stream("retry: 100\nid: a\ndata: \n\n"),
      () => new Response("busy", { status: 503 }),
    );
    const session = await sessionOn(fetch);
    const pending = caught(session.request(2, "tools/call", {}, { label: "t" }));
    await vi.advanceTimersByTimeAsync(60_000);
    const error = await pending;
    expect(error.type).toBe("transport");
    expect(error.message).toContain(
      "5 attempts in a row to resume it brought nothing (last: the GET got HTTP 503)",
    );
    const times = seen.map((s) => s.at);
    const gaps = times.slice(1).map((at, i) => at - (times[i] ?? 0));
    // The server's retry first, then doubling from a quarter second, never below the retry.
    expect(gaps).toEqual([100, 500, 1000, 2000, 4000]);
  });

  it("counts a reconnection that replays nothing new as failed, one that brings new events as progress", async () => {
    let gets = 0;
    const { fetch } = scripted(
      () => stream("retry: 0\nid: a\ndata: \n\n"),
      () => {
        gets += 1;
        // Four empty polls, one with news, four empty polls, then the answer: never five
        // fruitless reconnections in a row.
        if (gets === 5) return stream(event("b", progress));
        if (gets === 10) return stream(event("c", result(2)));
        return stream(": nothing yet\n\n");
      },
    );
    const session = await sessionOn(fetch);
    vi.useFakeTimers();
    const pending = session.request(2, "tools/call", {}, { label: "t" });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await pending).toEqual({ ok: true });
    expect(gets).toBe(10);
  });

  it("stops waiting to reconnect when the caller's signal aborts, and sends no GET", async () => {
    const { seen, fetch } = scripted(
      () => stream("retry: 60000\nid: a\ndata: \n\n"),
      () => stream(event("b", result(2))),
    );
    const session = await sessionOn(fetch);
    const controller = new AbortController();
    const pending = caught(
      session.request(2, "tools/call", {}, { label: "t", signal: controller.signal }),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect((await pending).type).toBe("cancelled");
    expect(seen.map((s) => s.method)).toEqual(["POST"]);
  });

  it("bounds what the resumed streams may read in all", async () => {
    let gets = 0;
    const { fetch } = scripted(
      () => stream("retry: 0\nid: a\ndata: \n\n"),
      () => {
        gets += 1;
        // Every replay brings something new, so only the byte budget ends the loop.
        return stream(event(`n${gets}`, { ...progress, params: { pad: "x".repeat(500) } }));
      },
    );
    const session = await sessionOn(fetch, 1024);
    const error = await caught(session.request(2, "tools/call", {}, { label: "t" }));
    expect(error.message).toContain(
      "the streams resuming tools/call passed 8192 bytes (8 × maxMessageBytes)",
    );
    expect(gets).toBeGreaterThan(5);
    expect(gets).toBeLessThan(20);
  });

  it("does not resume in 2026-07-28, which has no GET stream", async () => {
    const { seen, fetch } = scripted(
      () => stream("retry: 0\nid: a\ndata: \n\n"),
      () => stream(event("b", result(2))),
    );
    const session = new McpSession(URL_, new Headers(), fetch);
    session.useModernProtocol({
      version: "2026-07-28",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    });
    const error = await caught(session.request(2, "tools/call", {}, { label: "t" }));
    expect(error.message).toContain("the tools/call stream ended before its response");
    expect(seen.map((s) => s.method)).toEqual(["POST"]);
  });
});

describe("connectMcp: a call whose stream the server closes early", () => {
  it("gets its result through the resumed stream, with the defaults", async () => {
    const fake = createFakeMcp({
      sessionId: "s-9",
      protocolVersion: "2025-11-25",
      tools: [{ name: "slow", inputSchema: { type: "object" } }],
      override: (message, request) => {
        const lastEventId = request.headers.get("last-event-id");
        if (request.method === "GET" && lastEventId === null)
          return new Response(null, { status: 405 });
        if (request.method === "GET") {
          const done = { content: [{ type: "text", text: "done" }] };
          return stream(event("e2", { jsonrpc: "2.0", id: pendingId, result: done }));
        }
        if (message.method !== "tools/call") return undefined;
        pendingId = message.id as number;
        return stream("id: e1\nretry: 0\ndata: \n\n");
      },
    });
    let pendingId = 0;
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch });
    try {
      expect(await toolset.call("slow", {})).toMatchObject({
        content: [{ type: "text", text: "done" }],
      });
      const resumed = fake.requests.filter((r) => r.headers.get("last-event-id") === "e1");
      expect(resumed.map((r) => r.method)).toEqual(["GET"]);
    } finally {
      await toolset.shutdown();
    }
  });
});
