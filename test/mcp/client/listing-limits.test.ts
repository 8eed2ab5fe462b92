// What a hostile server's listing can cost the client (issue 23, items 1 and 4): the tools of
// all pages together are capped by count (`maxTools`) and bytes (`maxListBytes`), so a server
// inventing a cursor with every 3.4 MB page of 100,000 tools no longer exhausts the heap; a
// tool nested past `maxSchemaDepth` (100,000 levels, 1 MB) or larger than `maxToolBytes` is
// skipped by name rather than breaking every later model request with a stack overflow.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/index.ts";
import { isToolError, type ToolLog } from "../../../src/index.ts";
import { connectMcp } from "../../../src/mcp/index.ts";
import type { Model } from "../../../src/models/index.ts";
import { scriptedModel } from "../../../src/models/index.ts";
import { caught } from "../../support/caught.ts";

const URL_ = "https://hostile.example.test/mcp";

interface ListingServer {
  fetch: typeof fetch;
  /** `tools/list` pages served so far. */
  pages(): number;
}

/**
 * A 2025 server whose `tools/list` answers with `page(n)`'s entries (JSON text, joined as
 * is) and a fresh cursor, for `pages` pages (endless by default).
 */
function listingServer(page: (n: number) => string[], pages = Number.POSITIVE_INFINITY) {
  let served = 0;
  const json = (text: string) =>
    new Response(text, { headers: { "content-type": "application/json" } });
  const fetchImpl = async (_input: RequestInfo | URL, init?: RequestInit) => {
    if (init?.method !== "POST") return new Response(null, { status: 405 });
    const message = JSON.parse(String(init.body)) as { id?: number; method: string };
    if (message.id === undefined) return new Response(null, { status: 202 });
    if (message.method === "initialize") {
      const result = {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "hostile", version: "1" },
      };
      return json(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    }
    if (message.method === "tools/list") {
      const n = served++;
      const cursor = n + 1 < pages ? `,"nextCursor":"c${n + 1}"` : "";
      const tools = page(n).join(",");
      return json(`{"jsonrpc":"2.0","id":${message.id},"result":{"tools":[${tools}]${cursor}}}`);
    }
    // `server/discover` among them: a 2025 server does not know it, so `auto` falls back.
    const error = { code: -32601, message: `${message.method} not found` };
    return json(JSON.stringify({ jsonrpc: "2.0", id: message.id, error }));
  };
  return { fetch: fetchImpl as typeof fetch, pages: () => served } satisfies ListingServer;
}

// 34 bytes an entry, as in the report: 100,000 of them are 3.4 MB, under the 4 MiB cap.
const small = (page: number, index: number) =>
  `{"name":"p${page}_${index}","inputSchema":{}}`.padEnd(34, " ");

describe("the listing's caps (maxTools, maxListBytes)", () => {
  it("abandons an endless listing of 100,000-tool pages after the first page, typed", async () => {
    const server = listingServer(
      (n) => Array.from({ length: 100_000 }, (_, i) => small(n, i)),
      // Finite, so today's unbounded code finishes (with 600,000 tools) instead of running out
      // of memory; the default cap stops after the first page anyway.
      6,
    );
    const error = await caught(connectMcp({ url: URL_, fetch: server.fetch }));
    expect(error.type).toBe("transport");
    expect(error.message).toContain("10000 tools (maxTools)");
    expect(server.pages()).toBe(1);
  }, 60_000);

  it("abandons a listing past maxListBytes, however few tools each page holds", async () => {
    // 40 tools of ~100 KiB a page: 4 MB a page, under maxTools for 250 pages.
    const description = "d".repeat(100 * 1024);
    const server = listingServer((n) =>
      Array.from(
        { length: 40 },
        (_, i) => `{"name":"p${n}_${i}","description":"${description}","inputSchema":{}}`,
      ),
    );
    const error = await caught(connectMcp({ url: URL_, fetch: server.fetch }));
    expect(error.type).toBe("transport");
    expect(error.message).toContain("maxListBytes");
    // 32 MiB of entries is reached on the ninth page.
    expect(server.pages()).toBeLessThanOrEqual(9);
  }, 60_000);

  it("refuses caps that are not whole numbers", async () => {
    for (const options of [
      { maxTools: 0 },
      { maxListBytes: 10 },
      { maxSchemaDepth: 1.5 },
      { maxToolBytes: "big" as never },
    ]) {
      const error = await caught(connectMcp({ url: URL_, ...options }));
      expect(error.type).toBe("invalid_configuration");
    }
  });

  it("holds for any page size and entry size: typed failure, pages bounded by the caps", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(1, 9_999, 10_000, 10_001, 100_000), fc.nat({ max: 100_000 })),
        fc.oneof(fc.constant(0), fc.nat({ max: 100_000 })),
        fc.integer({ min: 1, max: 40 }),
        async (wanted, padding, pages) => {
          // Whole entries that fit a 4 MiB page.
          const entry = 40 + padding;
          const perPage = Math.max(
            1,
            Math.min(wanted, Math.floor((4 * 1024 * 1024 - 200) / entry)),
          );
          const pad = " ".repeat(padding);
          const server = listingServer(
            (n) =>
              Array.from(
                { length: perPage },
                (_, i) => `{"name":"p${n}_${i}","inputSchema":{}${pad}}`,
              ),
            pages,
          );
          const totalTools = perPage * pages;
          const settled = await connectMcp({ url: URL_, fetch: server.fetch }).then(
            async (toolset) => ({ ok: true as const, count: (await toolset.listTools()).length }),
            (error: unknown) => ({ ok: false as const, error }),
          );
          if (settled.ok) {
            expect(settled.count).toBe(totalTools);
            expect(settled.count).toBeLessThanOrEqual(10_000);
          } else {
            expect(isToolError(settled.error, "transport")).toBe(true);
            expect(totalTools > 10_000 || perPage * pages * entry > 32 * 1024 * 1024).toBe(true);
          }
          // Never a page beyond the one that crossed a cap.
          expect(server.pages()).toBeLessThanOrEqual(Math.ceil(10_001 / perPage));
        },
      ),
      { numRuns: 8 },
    );
  }, 300_000);
});

// `{"items":` 100,000 times: 1 MB of JSON nested 100,000 levels.
const deepSchema = (levels: number) => `${'{"items":'.repeat(levels)}{}${"}".repeat(levels)}`;

// A model that serialises each request, as every provider adapter does.
function serialisingModel(): Model {
  const scripted = scriptedModel([{ text: "fine" }]);
  return {
    id: scripted.id,
    stream: (request, options) => {
      JSON.stringify(request);
      return scripted.stream(request, options);
    },
  };
}

describe("a foreign tool's depth and size (maxSchemaDepth, maxToolBytes)", () => {
  it("skips a tool nested 100,000 levels by name, and later model requests still work", async () => {
    const logs: ToolLog[] = [];
    const server = listingServer(
      () => [
        `{"name":"deep","inputSchema":{"type":"object","properties":{"x":${deepSchema(100_000)}}}}`,
        `{"name":"plain","inputSchema":{"type":"object"}}`,
      ],
      1,
    );
    const toolset = await connectMcp({
      url: URL_,
      fetch: server.fetch,
      onLog: (log) => logs.push(log),
    });
    expect((await toolset.listTools()).map((info) => info.name)).toEqual(["plain"]);
    expect(logs).toHaveLength(1);
    expect(logs[0]?.data).toMatchObject({ tool: "deep" });
    expect(String((logs[0]?.data as { message: string } | undefined)?.message)).toContain(
      "maxSchemaDepth",
    );
    const agent = new Agent({ model: serialisingModel(), toolsets: [toolset], compaction: false });
    const result = await agent.run("hi").result;
    expect(result.error).toBeUndefined();
    expect(result.stop).toBe("done");
  }, 60_000);

  it("skips a tool over maxToolBytes by name and keeps the rest", async () => {
    const logs: ToolLog[] = [];
    const big = "b".repeat(300 * 1024);
    const server = listingServer(
      () => [
        `{"name":"big","description":"${big}","inputSchema":{}}`,
        `{"name":"plain","inputSchema":{}}`,
      ],
      1,
    );
    const toolset = await connectMcp({
      url: URL_,
      fetch: server.fetch,
      onLog: (log) => logs.push(log),
    });
    expect((await toolset.listTools()).map((info) => info.name)).toEqual(["plain"]);
    expect(logs[0]?.data).toMatchObject({ tool: "big" });
    expect(String((logs[0]?.data as { message: string } | undefined)?.message)).toContain(
      "maxToolBytes",
    );
  });

  it("names a skipped tool without the connection's credential, even in a long name", async () => {
    const logs: ToolLog[] = [];
    const token = "tok-0123456789abcdef0123456789abcdef";
    const name = `${"n".repeat(120)}${token}`;
    const big = "b".repeat(300 * 1024);
    const server = listingServer(() => [`{"name":"${name}","description":"${big}"}`], 1);
    const toolset = await connectMcp({
      url: URL_,
      fetch: server.fetch,
      headers: { authorization: `Bearer ${token}` },
      onLog: (log) => logs.push(log),
    });
    expect(await toolset.listTools()).toEqual([]);
    const line = JSON.stringify(logs);
    expect(line).toContain("maxToolBytes");
    expect(line).toContain("n".repeat(120));
    // Scrubbed before the name was cut to 140 characters: no piece of the token is left.
    expect(line).not.toContain(token.slice(0, 12));
  });

  it("holds for any depth: a tool within maxSchemaDepth is listed, a deeper one skipped", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom(125, 126, 127, 100_000, 200_000),
          fc.integer({ min: 1, max: 200_000 }),
        ),
        async (levels) => {
          const server = listingServer(
            () => [`{"name":"nested","inputSchema":${deepSchema(levels)}}`],
            1,
          );
          const toolset = await connectMcp({ url: URL_, fetch: server.fetch });
          const listed = await toolset.listTools();
          // The entry itself is one level; its schema starts at the second.
          const kept = levels + 2 <= 128 && levels * 10 + 40 <= 256 * 1024;
          expect(listed.length).toBe(kept ? 1 : 0);
          expect(() => JSON.stringify(listed)).not.toThrow();
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);
});
