// 2025-11-25 resumable streams on createMcpHandler (design.md "Serving MCP", S29): the priming
// event, ids and `retry`, polling with `ssePollMs`, replay on a GET with `Last-Event-ID`, and
// ids that only the session that opened the stream can use; then toolwire's client and server
// together across a polled call.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, Toolset } from "../../../src/index.ts";
import { connectMcp, createMcpHandler, type McpHandlerOptions } from "../../../src/mcp/index.ts";
import { CLIENT_HEADERS, post, rpc } from "./fixture.ts";

const URL_ = "http://127.0.0.1:3000/mcp";

// A tool that reports progress, waits for the test to open its gate, reports again and returns.
const gated = () => {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const tool = defineTool({
    name: "gated",
    description: "Waits for the test",
    input: v.object({}),
    call: async (_, ctx) => {
      ctx.progress({ progress: 1, message: "before" });
      await gate;
      ctx.progress({ progress: 2, message: "after" });
      return "done";
    },
  });
  return { tool, open: () => open() };
};

const serverWith = async (options: Partial<McpHandlerOptions> = {}, version = "2025-11-25") => {
  const { tool, open } = gated();
  const handler = createMcpHandler(Toolset.local([tool]), {
    name: "s",
    version: "1",
    sessions: "memory",
    ...options,
  });
  const init = rpc(1, "initialize", {
    protocolVersion: version,
    capabilities: {},
    clientInfo: { name: "c", version: "1" },
  });
  const opened = await handler.fetch(post(init));
  const session = opened.headers.get("mcp-session-id") as string;
  const headers = { "mcp-session-id": session, "mcp-protocol-version": version };
  const call = (id: number) =>
    handler.fetch(
      post(
        rpc(id, "tools/call", { name: "gated", arguments: {}, _meta: { progressToken: "p" } }),
        headers,
      ),
    );
  const resume = (lastEventId: string | undefined, sessionId = session) =>
    handler.fetch(
      new Request(URL_, {
        headers: {
          host: CLIENT_HEADERS.host,
          accept: "text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": version,
          ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
        },
      }),
    );
  return { handler, session, call, resume, open };
};

interface Event {
  id?: string;
  retry?: string;
  data: string;
}
// Reads SSE events as they come; `count` stops after that many (the stream may stay open).
async function readEvents(response: Response, count = Number.POSITIVE_INFINITY) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: Event[] = [];
  let buffer = "";
  while (events.length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const event: Event = { data: "" };
      for (const line of buffer.slice(0, end).split("\n")) {
        const [field, ...rest] = line.split(": ");
        const value = rest.join(": ");
        if (field === "id") event.id = value;
        if (field === "retry") event.retry = value;
        if (field === "data") event.data = value;
      }
      events.push(event);
      buffer = buffer.slice(end + 2);
    }
  }
  if (events.length >= count) await reader.cancel();
  return events;
}
const messages = (events: Event[]) =>
  events.filter((e) => e.data !== "").map((e) => JSON.parse(e.data) as Record<string, unknown>);

describe("createMcpHandler: resumable 2025-11-25 streams", () => {
  it("opens a stream with a priming event (id, retry) and gives every event an id", async () => {
    const server = await serverWith();
    const answer = server.call(2);
    server.open();
    const events = await readEvents(await answer);
    expect(events[0]).toMatchObject({ data: "", retry: "1000" });
    expect(events.every((event) => /^[0-9a-f-]{36}_\d+$/.test(event.id ?? ""))).toBe(true);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(messages(events).at(-1)).toMatchObject({
      id: 2,
      result: { content: [{ text: "done" }] },
    });
    // It finished on an open connection: a resumption gets the response, not the progress again.
    const replayed = messages(await readEvents(await server.resume(events[0]?.id)));
    expect(replayed.map((m) => m.method ?? m.id)).toEqual([2]);
  });

  it("closes a running request's connection after ssePollMs and replays the rest on a GET with Last-Event-ID", async () => {
    const server = await serverWith({ ssePollMs: 20, sseRetryMs: 50 });
    const first = await readEvents(await server.call(2));
    // The stream ended with the call still running: priming and the first progress only.
    expect(first[0]?.retry).toBe("50");
    expect(messages(first).map((m) => m.method)).toEqual(["notifications/progress"]);
    server.open();
    const rest = await readEvents(await server.resume(first.at(-1)?.id));
    expect(messages(rest).map((m) => m.method ?? m.id)).toEqual(["notifications/progress", 2]);
  });

  it("replays only what follows the id after a dropped connection, and a finished stream in full", async () => {
    const server = await serverWith();
    const [priming, before] = await readEvents(await server.call(2), 2);
    expect(messages([before as Event])[0]).toMatchObject({ params: { progress: 1 } });
    server.open();
    // The client went away after `before`; the call went on and finished meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const after = messages(await readEvents(await server.resume(before?.id)));
    expect(after.map((m) => m.method ?? m.id)).toEqual(["notifications/progress", 2]);
    const again = messages(await readEvents(await server.resume(priming?.id)));
    expect(again.map((m) => m.method ?? m.id)).toEqual(["notifications/progress", 2]);
  });

  it("honours an event id only on the session that opened its stream", async () => {
    const server = await serverWith({ ssePollMs: 20 });
    const other = await serverWith();
    const [priming] = await readEvents(await server.call(2));
    const id = priming?.id as string;
    const init = rpc(1, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    });
    const second = (await server.handler.fetch(post(init))).headers.get("mcp-session-id") as string;
    expect((await server.resume(id, second)).status).toBe(404);
    expect((await server.resume(`${crypto.randomUUID()}_0`)).status).toBe(404);
    expect((await other.resume(id, other.session)).status).toBe(404);
    // Without an id the GET is the session's standalone stream (resource updates), not a replay.
    const standalone = await server.resume(undefined);
    expect(standalone.status).toBe(200);
    expect(standalone.headers.get("content-type")).toBe("text/event-stream");
    await standalone.body?.cancel();
    server.open();
    expect(messages(await readEvents(await server.resume(id))).at(-1)).toMatchObject({ id: 2 });
  });

  it("streams as before for a 2025-06-18 session and without sessions: no priming, no ids", async () => {
    const cases = [
      { server: await serverWith({}, "2025-06-18"), status: 404 },
      { server: await serverWith({ sessions: "stateless" }), status: 405 },
    ];
    for (const { server, status } of cases) {
      const answer = server.call(2);
      server.open();
      const events = await readEvents(await answer);
      expect(events.every((event) => event.id === undefined && event.data !== "")).toBe(true);
      expect(messages(events).at(-1)).toMatchObject({ id: 2 });
      // Nothing to resume: no stream of the session has an id (404); no sessions at all (405).
      expect((await server.resume("x_1")).status).toBe(status);
    }
  });
});

describe("connectMcp and createMcpHandler across a polled call", () => {
  it("gets the result of a call whose connection the server closes twice", async () => {
    const tool = defineTool({
      name: "long",
      description: "Outlasts two poll intervals",
      input: v.object({}),
      call: async (_, ctx) => {
        ctx.progress({ progress: 1 });
        await new Promise((resolve) => setTimeout(resolve, 120));
        return "finally";
      },
    });
    const handler = createMcpHandler(Toolset.local([tool]), {
      name: "s",
      version: "1",
      sessions: "memory",
      ssePollMs: 50,
      sseRetryMs: 1,
    });
    const seen: string[] = [];
    const fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(init?.method ?? "GET");
      return handler.fetch(input as string, init);
    }) as typeof globalThis.fetch;
    const remote = await connectMcp({ url: URL_, fetch, protocol: "2025-11-25" });
    try {
      const result = await remote.call("long", {});
      expect(result.content).toEqual([{ type: "text", text: "finally" }]);
      // The standalone GET (405), then at least the two resumptions.
      expect(seen.filter((method) => method === "GET").length).toBeGreaterThanOrEqual(3);
    } finally {
      await remote.shutdown();
    }
  });
});
