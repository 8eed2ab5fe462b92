import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { createMcpHandler } from "../../src/mcp/index.ts";
import { serve } from "../../src/node/index.ts";
import { fixtureToolset } from "../mcp/server/fixture.ts";

describe("serve", () => {
  it("bridges node:http to a fetch handler: method, path, headers and body", async () => {
    const server = await serve(
      {
        fetch: async (request) =>
          Response.json(
            {
              method: request.method,
              path: new URL(request.url).pathname,
              body: await request.text(),
              x: request.headers.get("x-test"),
            },
            { headers: { "set-cookie": "a=1" } },
          ),
      },
      { port: 0 },
    );
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${server.url}/echo?q=1`, {
        method: "POST",
        body: "hello",
        headers: { "x-test": "yes" },
      });
      expect(await response.json()).toEqual({
        method: "POST",
        path: "/echo",
        body: "hello",
        x: "yes",
      });
      expect(response.headers.get("set-cookie")).toBe("a=1");
    } finally {
      await server.close();
    }
  });

  it("flushes a streaming body chunk by chunk", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const encoder = new TextEncoder();
    const server = await serve(
      {
        fetch: () =>
          new Response(
            new ReadableStream({
              async start(controller) {
                controller.enqueue(encoder.encode("first\n"));
                await released;
                controller.enqueue(encoder.encode("second\n"));
                controller.close();
              },
            }),
            { headers: { "content-type": "text/event-stream" } },
          ),
      },
      { port: 0 },
    );
    try {
      const response = await fetch(server.url);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      // The second chunk is held back until now, so the first arrived on its own.
      expect(new TextDecoder().decode(first.value)).toBe("first\n");
      release();
      let rest = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
      }
      expect(rest).toBe("second\n");
    } finally {
      await server.close();
    }
  });

  it("serves an MCP handler to the official SDK client over a real socket, and closes on abort", async () => {
    const controller = new AbortController();
    const handler = createMcpHandler(fixtureToolset().toolset, {
      name: "n",
      version: "1",
      sessions: "memory",
    });
    const server = await serve(handler, { port: 0, signal: controller.signal });
    const client = new Client({ name: "c", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const seen: number[] = [];
    const result = await client.callTool({ name: "slow", arguments: { steps: 2 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual([1, 2]);
    await client.close();
    controller.abort();
    await server.close();
    await expect(fetch(`${server.url}/mcp`)).rejects.toThrow();
  });

  it("closes when the signal aborts while it is still starting to listen", async () => {
    const controller = new AbortController();
    const starting = serve(
      { fetch: () => new Response("up") },
      {
        port: 0,
        signal: controller.signal,
      },
    );
    controller.abort();
    const server = await starting;
    try {
      await expect(fetch(server.url)).rejects.toThrow();
    } finally {
      await server.close();
    }
  });

  it("refuses a DNS-rebinding Host over a real socket", async () => {
    const handler = createMcpHandler(fixtureToolset().toolset, { name: "n", version: "1" });
    const server = await serve(handler, { port: 0 });
    try {
      const { request } = await import("node:http");
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = request(
          `${server.url}/mcp`,
          {
            method: "POST",
            headers: {
              host: "attacker.example",
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode);
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
      });
      expect(status).toBe(403);
    } finally {
      await server.close();
    }
  });
});
