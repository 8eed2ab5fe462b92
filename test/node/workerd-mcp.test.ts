// A toolset served from a real Worker module, bundled without nodejs_compat and run in plain
// Miniflare with no compatibility flags, called over HTTP by connectMcp. (The workerd vitest
// project always enables nodejs_compat_v2, so it cannot prove this.)
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Toolset } from "../../src/index.ts";
import { connectMcp } from "../../src/mcp/index.ts";
import { bundleWorker, COMPATIBILITY_DATE } from "../support/miniflare.ts";

let mf: Miniflare | undefined;
let endpoint = "";

beforeAll(async () => {
  mf = new Miniflare({
    modules: await bundleWorker(new URL("../workerd/mcp-worker.ts", import.meta.url)),
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: [],
    host: "127.0.0.1",
    port: 0,
  });
  endpoint = new URL("/mcp", await mf.ready).href;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

describe("a Worker module serving MCP (workerd, no nodejs_compat)", () => {
  let toolset: Toolset;

  it("is reachable by connectMcp over HTTP and lists its tools", async () => {
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    toolset = await connectMcp({ url: endpoint });
    const tools = await toolset.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["add", "runtime"]);
    expect(tools[0]?.outputSchema?.schema).toMatchObject({ properties: { sum: {} } });
  });

  it("runs calls inside workerd", async () => {
    const sum = await toolset.call("add", { a: 2, b: 40 });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    const runtime = await toolset.call("runtime", {});
    expect(runtime.content).toEqual([{ type: "text", text: "Cloudflare-Workers" }]);
    await toolset.shutdown();
  });

  it("refuses a foreign Host (DNS rebinding) from inside the Worker", async () => {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        origin: "http://evil.example.com",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(response.status).toBe(403);
  });
});
