// A server flooding the client with its own requests (issue 23, item 3): every `ping` used to
// become its own concurrent reply POST, so 10,000 pings on the standalone GET stream kept
// `connectMcp` from finishing and grew memory by hundreds of MiB, and 3,000 pings on a call's
// stream printed MaxListenersExceededWarning. Replies now go four at a time per session, at
// most `maxPendingReplies` (default 256) waiting; the connection's own requests are not
// starved and no warning is printed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { connectMcp } from "../../../src/mcp/index.ts";
import { capturedWarnings } from "../../support/process-warnings.ts";

const URL_ = "https://flood.example.test/mcp";

interface FloodPlan {
  /** Requests the server sends on the standalone GET stream, once it is opened. */
  standalone: Array<Record<string, unknown>>;
  /** Requests the server sends on the `tools/call` stream before its result. */
  onCall: Array<Record<string, unknown>>;
}

/** A 2025 server with a session that floods its streams as `plan` says. */
function floodingServer(plan: FloodPlan) {
  const stats = { inFlight: 0, peak: 0, replies: 0, repliedIds: new Set<unknown>(), listed: 0 };
  const sse = (messages: Array<Record<string, unknown>>, end: Record<string, unknown> | null) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        const encoder = new TextEncoder();
        // In chunks of 500 events, as a server writes them.
        for (let i = 0; i < messages.length; i += 500) {
          const text = messages
            .slice(i, i + 500)
            .map((message) => `data: ${JSON.stringify(message)}\n\n`)
            .join("");
          controller.enqueue(encoder.encode(text));
        }
        if (end) {
          controller.enqueue(encoder.encode(`data: ${JSON.stringify(end)}\n\n`));
          controller.close();
        }
      },
    });
  const json = (value: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(value), {
      headers: { "content-type": "application/json", ...headers },
    });
  const events = { "content-type": "text/event-stream" };
  const fetchImpl = async (_input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const signal = init?.signal ?? undefined;
    if (init?.method === "DELETE") return new Response(null, { status: 200 });
    if (init?.method === "GET") {
      const body = sse(plan.standalone, null);
      // Open until the client aborts it, like a real standalone stream.
      signal?.addEventListener("abort", () => body.cancel().catch(() => {}), { once: true });
      return new Response(body, { headers: events });
    }
    const message = JSON.parse(String(init?.body)) as Record<string, unknown>;
    const { id, method } = message;
    if (method === undefined) {
      // A reply to one of the server's requests: held a macrotask, with an abort listener on
      // its signal meanwhile, as `fetch` itself adds one for every request.
      stats.replies += 1;
      stats.repliedIds.add(id);
      stats.inFlight += 1;
      stats.peak = Math.max(stats.peak, stats.inFlight);
      const onAbort = () => {};
      signal?.addEventListener("abort", onAbort, { once: true });
      await new Promise((resolve) => setTimeout(resolve, 0));
      signal?.removeEventListener("abort", onAbort);
      stats.inFlight -= 1;
      return new Response(null, { status: 202 });
    }
    if (id === undefined) return new Response(null, { status: 202 });
    if (method === "initialize") {
      const result = {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "flood", version: "1" },
      };
      return json({ jsonrpc: "2.0", id, result }, { "mcp-session-id": "s-1" });
    }
    if (method === "tools/list") {
      stats.listed += 1;
      const tools = [{ name: "echo", inputSchema: { type: "object" } }];
      return json({ jsonrpc: "2.0", id, result: { tools } });
    }
    if (method === "tools/call") {
      const result = { content: [{ type: "text", text: "called" }] };
      return new Response(sse(plan.onCall, { jsonrpc: "2.0", id, result }), { headers: events });
    }
    // `server/discover` among them: unknown to a 2025 server, so `auto` falls back.
    return json({ jsonrpc: "2.0", id, error: { code: -32601, message: "not found" } });
  };
  return { fetch: fetchImpl as typeof fetch, stats };
}

const pings = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ({
    jsonrpc: "2.0",
    id: `${prefix}${i}`,
    method: "ping",
  }));

// Lets queued replies drain: a bounded number of macrotasks, each finishing what it can.
async function drained(stats: { inFlight: number }): Promise<void> {
  for (let turn = 0; turn < 100_000 && stats.inFlight > 0; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

describe("a flood of server requests", () => {
  it("connects past 10,000 pings on the standalone stream, four replies at a time", async () => {
    const server = floodingServer({ standalone: pings(10_000, "s"), onCall: [] });
    const warnings = await capturedWarnings(async () => {
      const toolset = await connectMcp({ url: URL_, fetch: server.fetch });
      expect((await toolset.listTools()).map((info) => info.name)).toEqual(["echo"]);
      expect(server.stats.listed).toBe(1);
      await drained(server.stats);
      await toolset.shutdown();
    });
    expect(warnings).toEqual([]);
    expect(server.stats.peak).toBeLessThanOrEqual(4);
    expect(server.stats.replies).toBeGreaterThan(0);
    expect(server.stats.replies).toBeLessThanOrEqual(10_000);
  }, 60_000);

  it("finishes a call past 3,000 pings on its stream without a MaxListenersExceededWarning", async () => {
    const server = floodingServer({ standalone: [], onCall: pings(3000, "c") });
    const warnings = await capturedWarnings(async () => {
      const toolset = await connectMcp({ url: URL_, fetch: server.fetch });
      const result = await toolset.call("echo", {});
      expect(result.content).toEqual([{ type: "text", text: "called" }]);
      await drained(server.stats);
      await toolset.shutdown();
    });
    expect(warnings).toEqual([]);
    expect(server.stats.peak).toBeLessThanOrEqual(4);
  }, 60_000);

  it("holds for any flood: connect and call finish, replies bounded in flight and waiting, each for a sent id", async () => {
    const request = fc.constantFrom("ping", "sampling/createMessage", "roots/list", "x/unknown");
    const flood = (prefix: string) =>
      fc.tuple(fc.integer({ min: 0, max: 10_000 }), request).map(([count, method]) =>
        Array.from({ length: count }, (_, i) => ({
          jsonrpc: "2.0",
          id: `${prefix}${i}`,
          method,
        })),
      );
    await fc.assert(
      fc.asyncProperty(
        flood("s"),
        flood("c"),
        fc.integer({ min: 1, max: 512 }),
        async (standalone, onCall, maxPendingReplies) => {
          const server = floodingServer({ standalone, onCall });
          const warnings = await capturedWarnings(async () => {
            const toolset = await connectMcp({ url: URL_, fetch: server.fetch, maxPendingReplies });
            const result = await toolset.call("echo", {});
            expect(result.isError).toBe(false);
            await drained(server.stats);
            await toolset.shutdown();
          });
          expect(warnings).toEqual([]);
          expect(server.stats.peak).toBeLessThanOrEqual(4);
          const sent = new Set<unknown>([...standalone, ...onCall].map((message) => message.id));
          for (const id of server.stats.repliedIds) expect(sent.has(id)).toBe(true);
          expect(server.stats.replies).toBeLessThanOrEqual(sent.size);
        },
      ),
      { numRuns: 6 },
    );
  }, 300_000);
});
