// A toolset served from a real Worker module, bundled without nodejs_compat and run in plain
// Miniflare with no compatibility flags, called over HTTP by connectMcp. (The workerd vitest
// project always enables nodejs_compat_v2, so it cannot prove this.)
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Toolset } from "../../src/index.ts";
import { connectMcp } from "../../src/mcp/index.ts";

let mf: Miniflare | undefined;
let endpoint = "";

beforeAll(async () => {
  // Platform `browser` fails the build on any `node:` import, so a bundle that builds
  // needs no nodejs_compat.
  const bundle = await build({
    entryPoints: [new URL("../workerd/mcp-worker.ts", import.meta.url).pathname],
    outfile: "worker.js",
    write: false,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    logLevel: "silent",
  });
  mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.js", contents: bundle.outputFiles[0]?.text ?? "" }],
    compatibilityDate: "2026-04-01",
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
