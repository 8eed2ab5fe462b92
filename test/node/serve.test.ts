import {
  type ClientRequest,
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type Server,
} from "node:http";
import { connect } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createMcpHandler } from "../../src/mcp/index.ts";
import { type FetchHandler, type Served, serve } from "../../src/node/index.ts";
import { fixtureToolset } from "../mcp/server/fixture.ts";

// Every node:http server `serve()` creates, to read the timeouts it was given; the servers are
// node:http's own, unchanged.
const created = vi.hoisted(() => [] as Server[]);
vi.mock("node:http", async (importOriginal) => {
  const http = await importOriginal<typeof import("node:http")>();
  const createServer = (...args: Parameters<typeof http.createServer>) => {
    const server = http.createServer(...args);
    created.push(server);
    return server;
  };
  return { ...http, createServer, default: { ...http, createServer } };
});

async function serving(handler: FetchHandler, test: (server: Served) => Promise<void>) {
  const server = await serve(handler, { port: 0 });
  try {
    await test(server);
  } finally {
    await server.close();
  }
}

interface RawAnswer {
  status: number | undefined;
  headers: IncomingHttpHeaders;
  body: string;
  /** The answer's headers as sent, names lowercased. */
  raw: [string, string][];
}

// A plain node:http request, to see the wire headers (Content-Length, Transfer-Encoding) that
// fetch would hide or normalise. `send` writes the body (default: `body`, then the end).
function raw(
  url: string,
  method = "GET",
  body?: string | Buffer,
  options: { headers?: OutgoingHttpHeaders | string[]; send?: (req: ClientRequest) => void } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          pairs.push([
            (res.rawHeaders[i] as string).toLowerCase(),
            res.rawHeaders[i + 1] as string,
          ]);
        }
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          raw: pairs,
        });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (options.send) options.send(req);
    else req.end(body);
  });
}

// An MCP POST whose body streams in (no Content-Length).
const CHUNKED_MCP_POST = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "transfer-encoding": "chunked",
};

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
            {
              headers: [
                ["set-cookie", "a=1"],
                ["set-cookie", "b=2"],
              ],
            },
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
      expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
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

  // Issue 23 (12): node:http's own timeouts (head 60 s, request 300 s) let 200 stalled uploads
  // hold ~200 MiB for five minutes.
  it("sets head, request and keep-alive timeouts by default, and takes them as options", async () => {
    const server = await serve({ fetch: () => new Response("up") }, { port: 0 });
    const node = created.at(-1) as Server;
    try {
      expect({
        headers: node.headersTimeout,
        request: node.requestTimeout,
        idle: node.keepAliveTimeout,
      }).toEqual({ headers: 10_000, request: 30_000, idle: 5_000 });
    } finally {
      await server.close();
    }
    const tuned = await serve(
      { fetch: () => new Response("up") },
      { port: 0, headersTimeoutMs: 2_000, requestTimeoutMs: 4_000, idleTimeoutMs: 1_000 },
    );
    const other = created.at(-1) as Server;
    try {
      expect([other.headersTimeout, other.requestTimeout, other.keepAliveTimeout]).toEqual([
        2_000, 4_000, 1_000,
      ]);
    } finally {
      await tuned.close();
    }
    await expect(
      serve({ fetch: () => new Response("up") }, { port: 0, requestTimeoutMs: 0 }),
    ).rejects.toMatchObject({ type: "invalid_configuration" });
  });

  it("closes the connection of a body upload that stalls, 408", async () => {
    const handler = createMcpHandler(fixtureToolset().toolset, { name: "n", version: "1" });
    const server = await serve(handler, {
      port: 0,
      headersTimeoutMs: 200,
      requestTimeoutMs: 200,
    });
    try {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), "127.0.0.1");
      let received = "";
      socket.on("data", (chunk) => {
        received += chunk;
      });
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      socket.on("error", () => {});
      socket.write(
        [
          "POST /mcp HTTP/1.1",
          "Host: 127.0.0.1",
          "Content-Type: application/json",
          "Accept: application/json, text/event-stream",
          "Content-Length: 100000",
          "",
          '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"',
        ].join("\r\n"),
      );
      // The rest of the body never comes.
      await closed;
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await server.close();
    }
  });

  it("closes the connection of a request head that stalls, 408", async () => {
    const server = await serve(
      { fetch: () => new Response("never") },
      { port: 0, headersTimeoutMs: 200 },
    );
    try {
      const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
      let received = "";
      socket.on("data", (chunk) => {
        received += chunk;
      });
      socket.on("error", () => {});
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      // The blank line that ends the head never comes.
      socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      await closed;
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await server.close();
    }
  });

  it("lets an answer take longer than requestTimeoutMs once the request has arrived", async () => {
    const handler: FetchHandler = {
      fetch: async (request) => {
        const body = await request.text();
        // Several of node:http's checks pass while the answer is pending.
        await new Promise((resolve) => setTimeout(resolve, 600));
        return new Response(`late ${body}`);
      },
    };
    const server = await serve(handler, { port: 0, headersTimeoutMs: 100, requestTimeoutMs: 100 });
    try {
      const answer = await raw(server.url, "POST", "x");
      expect([answer.status, answer.body]).toEqual([200, "late x"]);
    } finally {
      await server.close();
    }
  });

  it("closes a kept-alive connection that sends no next request", async () => {
    const server = await serve(
      { fetch: () => new Response("up") },
      { port: 0, idleTimeoutMs: 100 },
    );
    try {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), "127.0.0.1");
      let received = "";
      socket.on("data", (chunk) => {
        received += chunk;
      });
      socket.on("error", () => {});
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
      await closed;
      expect(received).toMatch(/^HTTP\/1\.1 200[\s\S]*up$/);
    } finally {
      await server.close();
    }
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
  // serve() answers createMcpHandler's handlers without a web Request or Response (design.md
  // SP1); what goes over the wire must be what `handler.fetch` answers in-process.
  it("answers an MCP handler over the socket exactly as its fetch does in-process", async () => {
    const handler = createMcpHandler(fixtureToolset().toolset, {
      name: "n",
      version: "1",
      maxBodyBytes: 4096,
    });
    const call = (id: number, name: string, args: unknown) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    });
    const json = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const modernCall = {
      ...call(2, "add", { a: 1, b: 2 }),
      params: {
        name: "add",
        arguments: { a: 1, b: 2 },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    };
    const cases: {
      path: string;
      method: string;
      headers: [string, string][];
      body?: string | Buffer;
    }[] = [
      {
        path: "/mcp",
        method: "POST",
        headers: Object.entries(json),
        body: JSON.stringify(call(1, "add", { a: 1, b: 2 })),
      },
      {
        path: "/mcp",
        method: "POST",
        headers: [
          ...Object.entries(json),
          ["mcp-protocol-version", "2026-07-28"],
          ["mcp-method", "tools/call"],
          ["mcp-name", "add"],
        ],
        body: JSON.stringify(modernCall),
      },
      {
        path: "/mcp?x=1",
        method: "POST",
        headers: Object.entries(json),
        body: JSON.stringify(call(3, "echo", { message: "é" })),
      },
      {
        path: "/mcp",
        method: "POST",
        headers: Object.entries(json),
        body: JSON.stringify(call(4, "add", { a: "1" })),
      },
      {
        path: "/mcp",
        method: "POST",
        headers: Object.entries(json),
        body: JSON.stringify(call(5, "nope", {})),
      },
      { path: "/mcp", method: "POST", headers: [["content-type", "text/plain"]], body: "{}" },
      { path: "/mcp", method: "POST", headers: [["content-type", "application/json"]], body: "{}" },
      { path: "/mcp", method: "POST", headers: Object.entries(json), body: "x".repeat(5000) },
      {
        path: "/mcp",
        method: "POST",
        headers: Object.entries(json),
        body: Buffer.from([0x7b, 0xff, 0x7d]),
      },
      { path: "/mcp", method: "POST", headers: Object.entries(json), body: "{not json" },
      // A repeated header reads as its values joined, as `Headers.get` gives them.
      {
        path: "/mcp",
        method: "POST",
        headers: [
          ...Object.entries(json),
          ["mcp-protocol-version", "2025-06-18"],
          ["MCP-Protocol-Version", "2025-11-25"],
        ],
        body: JSON.stringify(call(6, "add", { a: 1, b: 2 })),
      },
      { path: "/other", method: "POST", headers: Object.entries(json), body: "{}" },
      { path: "/mcp", method: "GET", headers: [["accept", "text/event-stream"]] },
      {
        path: "/mcp",
        method: "POST",
        headers: [...Object.entries(json), ["origin", "http://localhost:5173"]],
        body: JSON.stringify(call(7, "add", { a: 1, b: 2 })),
      },
      {
        path: "/mcp",
        method: "POST",
        headers: [...Object.entries(json), ["origin", "https://evil.example"]],
        body: "{}",
      },
      {
        path: "/mcp",
        method: "OPTIONS",
        headers: [
          ["origin", "http://localhost:5173"],
          ["access-control-request-method", "POST"],
        ],
      },
    ];
    const wireHeaders = (headers: Iterable<[string, string]>) =>
      Object.fromEntries(
        [...headers].filter(
          ([key]) =>
            !["date", "connection", "keep-alive", "content-length", "transfer-encoding"].includes(
              key,
            ),
        ),
      );
    await serving(handler, async (server) => {
      for (const { path, method, headers, body } of cases) {
        // Listed as pairs, the headers get no Host and no framing from node:http.
        const host = ["host", new URL(server.url).host];
        const length = body === undefined ? [] : ["content-length", `${Buffer.byteLength(body)}`];
        const socket = await raw(`${server.url}${path}`, method, body, {
          headers: [...host, ...headers.flat(), ...length],
        });
        const inProcess = await handler.fetch(
          new Request(`${server.url}${path}`, {
            method,
            headers: new Headers(headers),
            ...(body === undefined
              ? {}
              : { body: typeof body === "string" ? body : new Uint8Array(body) }),
          }),
        );
        const label = `${method} ${path} ${headers.map(([k, v]) => `${k}=${v}`).join(" ")}`;
        expect(socket.status, label).toBe(inProcess.status);
        expect(socket.body, label).toBe(await inProcess.text());
        expect(wireHeaders(socket.raw), label).toEqual(wireHeaders(inProcess.headers));
      }
    });
  });

  it("serves an MCP call whose body arrives in pieces", async () => {
    const handler = createMcpHandler(fixtureToolset().toolset, { name: "n", version: "1" });
    await serving(handler, async (server) => {
      const message = "é".repeat(20_000);
      const body = Buffer.from(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "echo", arguments: { message } },
        }),
      );
      const answer = await raw(`${server.url}/mcp`, "POST", undefined, {
        headers: CHUNKED_MCP_POST,
        send: (req) => {
          // Split inside a two-byte character: the halves only decode together.
          const cut = body.indexOf(Buffer.from("é")) + 1;
          req.write(body.subarray(0, cut));
          setTimeout(() => req.end(body.subarray(cut)), 20);
        },
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).result.content).toEqual([
        { type: "text", text: `echo: ${message}` },
      ]);
    });
  });

  it("gives onError the request it failed on, its body already read", async () => {
    const seen: { url: string; accept: string | null; used: boolean; read: unknown }[] = [];
    // A toolset whose listing fails: `tools/list` becomes a 500 that onError observes.
    const broken = {
      listTools: () => Promise.reject(new Error("down")),
      toolHandler: () => {
        throw new Error("unused");
      },
      shutdown: () => Promise.resolve(),
    };
    const handler = createMcpHandler(broken as never, {
      name: "n",
      version: "1",
      onError: (_error, { request }) => {
        seen.push({
          url: request.url,
          accept: request.headers.get("accept"),
          used: request.bodyUsed,
          read: request.text().then(
            () => "read again",
            (error: unknown) => error,
          ),
        });
      },
    });
    await serving(handler, async (server) => {
      const response = await fetch(`${server.url}/mcp?q=1`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(500);
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\?q=1$/);
    expect(seen[0]?.accept).toBe("application/json, text/event-stream");
    expect(seen[0]?.used).toBe(true);
    expect(await seen[0]?.read).toBeInstanceOf(TypeError);
  });

  it("lets authorize read the body and still serves the call from it", async () => {
    const bodies: string[] = [];
    const handler = createMcpHandler(fixtureToolset().toolset, {
      name: "n",
      version: "1",
      authorize: async (request) => {
        bodies.push(await request.clone().text());
        return true;
      },
    });
    await serving(handler, async (server) => {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: { message: "hi" } },
      });
      const response = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body,
      });
      expect((await response.json()).result.content).toEqual([{ type: "text", text: "echo: hi" }]);
      expect(bodies).toEqual([body]);
    });
  });

  it("cancels a 2026-07-28 call when its client disconnects from the socket", async () => {
    const { toolset, observed } = fixtureToolset();
    const handler = createMcpHandler(toolset, { name: "n", version: "1" });
    await serving(handler, async (server) => {
      const client = new AbortController();
      const pending = fetch(`${server.url}/mcp`, {
        method: "POST",
        signal: client.signal,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "wait",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "wait",
            arguments: {},
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
            },
          },
        }),
      }).catch((error: unknown) => error);
      await observed.started;
      client.abort();
      expect(await observed.aborted).toBeDefined();
      expect(await pending).toBeInstanceOf(Error);
    });
  });

  // Issue 23 (11): an anonymous 2025 caller's notification cannot be told from another's, so
  // its call ends when its own connection does.
  it("cancels an anonymous 2025 call when its client disconnects from the socket", async () => {
    const { toolset, observed } = fixtureToolset();
    const handler = createMcpHandler(toolset, { name: "n", version: "1" });
    await serving(handler, async (server) => {
      const client = new AbortController();
      const pending = fetch(`${server.url}/mcp`, {
        method: "POST",
        signal: client.signal,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "wait", arguments: {} },
        }),
      }).catch((error: unknown) => error);
      await observed.started;
      client.abort();
      expect(await observed.aborted).toBeDefined();
      expect(await pending).toBeInstanceOf(Error);
    });
  });

  it("writes a complete answer with its Content-Length, bytes unchanged", async () => {
    const text = JSON.stringify({ greeting: "héllo wörld ✓ 🎉" });
    await serving({ fetch: () => new Response(text, { status: 201 }) }, async (server) => {
      const answer = await raw(server.url);
      expect(answer.status).toBe(201);
      expect(answer.headers["content-length"]).toBe(String(Buffer.byteLength(text)));
      expect(answer.headers["transfer-encoding"]).toBeUndefined();
      expect(answer.body).toBe(text);
    });
  });

  it("keeps a Content-Length the handler set, and sends no body for HEAD", async () => {
    await serving(
      { fetch: () => new Response("twelve bytes", { headers: { "content-length": "12" } }) },
      async (server) => {
        const answer = await raw(server.url, "HEAD");
        expect(answer.status).toBe(200);
        expect(answer.headers["content-length"]).toBe("12");
        expect(answer.body).toBe("");
      },
    );
  });

  it("answers a bodyless response (204) with its status and headers", async () => {
    await serving(
      { fetch: () => new Response(null, { status: 204, headers: { "x-kind": "empty" } }) },
      async (server) => {
        const answer = await raw(server.url, "DELETE");
        expect(answer.status).toBe(204);
        expect(answer.headers["x-kind"]).toBe("empty");
        expect(answer.body).toBe("");
      },
    );
  });

  it("sends the head of a slow stream before its first chunk", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handler: FetchHandler = {
      fetch: () =>
        new Response(
          new ReadableStream({
            async pull(controller) {
              await released;
              controller.enqueue(new TextEncoder().encode("data: 1\n\n"));
              controller.close();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    };
    await serving(handler, async (server) => {
      // fetch resolves on the head; the body is still held back here.
      const response = await fetch(server.url);
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      expect(response.headers.get("content-length")).toBeNull();
      release();
      expect(await response.text()).toBe("data: 1\n\n");
    });
  });

  it("aborts the request's signal when the client disconnects", async () => {
    let aborted: (reason: unknown) => void = () => {};
    const sawAbort = new Promise((resolve) => {
      aborted = resolve;
    });
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const handler: FetchHandler = {
      fetch: (request) =>
        new Promise<Response>((_resolve, reject) => {
          request.signal.addEventListener("abort", () => {
            aborted(request.signal.aborted);
            reject(new Error("gone"));
          });
          started();
        }),
    };
    await serving(handler, async (server) => {
      const client = new AbortController();
      const pending = fetch(server.url, { signal: client.signal }).catch((error) => error);
      await running;
      client.abort();
      expect(await sawAbort).toBe(true);
      expect(await pending).toBeInstanceOf(Error);
    });
  });

  it("fails the handler's body read when the client leaves mid-body, instead of hanging", async () => {
    let failed: (error: unknown) => void = () => {};
    const readFailed = new Promise((resolve) => {
      failed = resolve;
    });
    let started: () => void = () => {};
    const reading = new Promise<void>((resolve) => {
      started = resolve;
    });
    const handler: FetchHandler = {
      fetch: async (request) => {
        const text = request.text();
        started();
        await text.then(() => failed(undefined), failed);
        return new Response("read");
      },
    };
    await serving(handler, async (server) => {
      const req = httpRequest(server.url, {
        method: "POST",
        headers: { "transfer-encoding": "chunked" },
      });
      req.on("error", () => {});
      req.write("the first half");
      await reading;
      req.destroy();
      expect(await readFailed).toBeInstanceOf(Error);
    });
  });

  it("streams a large request body to the handler and a large answer back, byte for byte", async () => {
    const size = 4 * 1024 * 1024;
    const payload = Buffer.alloc(size);
    for (let i = 0; i < size; i++) payload[i] = (i * 31) % 251;
    await serving(
      { fetch: async (request) => new Response(await request.arrayBuffer()) },
      async (server) => {
        const response = await fetch(server.url, { method: "PUT", body: payload });
        const echoed = Buffer.from(await response.arrayBuffer());
        expect(echoed.length).toBe(size);
        expect(echoed.equals(payload)).toBe(true);
      },
    );
  });

  it("holds the handler's body limit over a socket: 413, then the connection closes", async () => {
    const handler = createMcpHandler(fixtureToolset().toolset, {
      name: "n",
      version: "1",
      maxBodyBytes: 1024,
    });
    await serving(handler, async (server) => {
      // No Content-Length: the limit must hold while the body streams in.
      const answer = await raw(`${server.url}/mcp`, "POST", undefined, {
        headers: CHUNKED_MCP_POST,
        // The rest of the body never comes; the server must answer regardless.
        send: (req) =>
          req.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(4096)}`),
      });
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe("close");
    });
  });

  it("answers concurrent requests each with its own answer", async () => {
    await serving(
      {
        fetch: async (request) => {
          const body = await request.text();
          // Answer out of order, so a mixed-up bridge would show.
          await new Promise((resolve) => setTimeout(resolve, Number(body) % 7));
          return new Response(`answer ${body} ${new URL(request.url).searchParams.get("n")}`);
        },
      },
      async (server) => {
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, n) =>
            fetch(`${server.url}/?n=${n}`, { method: "POST", body: String(n) }).then((r) =>
              r.text(),
            ),
          ),
        );
        expect(answers).toEqual(Array.from({ length: 40 }, (_, n) => `answer ${n} ${n}`));
      },
    );
  });

  it("lets a handler pass the request on: new Request(request) and a proxying fetch", async () => {
    await serving(
      { fetch: async (r) => new Response(`${r.method} ${r.headers.get("x-a")} ${await r.text()}`) },
      async (upstream) => {
        const handler: FetchHandler = {
          fetch: async (request) => {
            const copy = new Request(request);
            const forwarded = await fetch(new Request(upstream.url, copy));
            return new Response(
              `${copy.url.endsWith("/in") ? "in" : copy.url} → ${await forwarded.text()}`,
            );
          },
        };
        await serving(handler, async (server) => {
          const response = await fetch(`${server.url}/in`, {
            method: "POST",
            body: "payload",
            headers: { "x-a": "1" },
          });
          expect(await response.text()).toBe("in → POST 1 payload");
        });
      },
    );
  });

  it("answers 500 without the error's details when the handler throws", async () => {
    const handler: FetchHandler = {
      fetch: () => {
        throw new Error("database password is hunter2");
      },
    };
    await serving(handler, async (server) => {
      const answer = await raw(server.url);
      expect(answer.status).toBe(500);
      expect(answer.body).not.toContain("hunter2");
    });
  });

  it("gives the handler a full web Request: clone, repeated headers, body methods", async () => {
    const handler: FetchHandler = {
      fetch: async (request) => {
        const copy = request.clone();
        return Response.json({
          isRequest: request instanceof Request,
          accept: request.headers.get("x-many"),
          text: await request.text(),
          copy: await copy.text(),
          used: request.bodyUsed,
          mode: request.redirect,
        });
      },
    };
    await serving(handler, async (server) => {
      const headers = new Headers();
      headers.append("x-many", "a");
      headers.append("x-many", "b");
      const response = await fetch(server.url, { method: "POST", body: "payload", headers });
      expect(await response.json()).toEqual({
        isRequest: true,
        accept: "a, b",
        text: "payload",
        copy: "payload",
        used: true,
        mode: "follow",
      });
    });
  });

  // Every way a handler can read a body, as text, so the answers compare.
  const readers: Record<string, (request: Request) => Promise<string>> = {
    text: (request) => request.text(),
    json: async (request) => JSON.stringify(await request.json()),
    arrayBuffer: async (request) => new TextDecoder().decode(await request.arrayBuffer()),
    blob: async (request) => {
      const blob = await request.blob();
      return `${blob.type}|${await blob.text()}`;
    },
    body: async (request) => {
      const reader = (request.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return text + decoder.decode();
        text += decoder.decode(value, { stream: true });
      }
    },
  };
  if ("bytes" in Request.prototype) {
    readers.bytes = async (request) =>
      new TextDecoder().decode(
        await (request as Request & { bytes(): Promise<Uint8Array> }).bytes(),
      );
  }

  it("lets a handler read the body by any Body method, before or after clone(), once", async () => {
    const handler: FetchHandler = {
      fetch: async (request) => {
        const url = new URL(request.url);
        const read = readers[url.searchParams.get("read") as string] as (
          r: Request,
        ) => Promise<string>;
        const cloned = url.searchParams.has("clone");
        // The log-then-forward pattern: a copy is read first, the original after.
        const copy = cloned ? await request.clone().text() : null;
        const before = request.bodyUsed;
        const text = await read(request);
        const again = await request.text().then(
          () => "read twice",
          (error: unknown) => (error instanceof TypeError ? "TypeError" : String(error)),
        );
        return Response.json({ copy, before, text, after: request.bodyUsed, again });
      },
    };
    await serving(handler, async (server) => {
      const body = JSON.stringify({ note: "héllo" });
      for (const name of Object.keys(readers)) {
        for (const clone of [false, true]) {
          const url = `${server.url}/?read=${name}${clone ? "&clone" : ""}`;
          const response = await fetch(url, {
            method: "POST",
            body,
            headers: { "content-type": "application/json" },
          });
          expect({ name, clone, answer: await response.json() }).toEqual({
            name,
            clone,
            answer: {
              copy: clone ? body : null,
              before: false,
              text: name === "blob" ? `application/json|${body}` : body,
              after: true,
              again: "TypeError",
            },
          });
        }
      }
    });
  });

  it("refuses clone() of a read body with a TypeError, and still answers the other fields", async () => {
    const handler: FetchHandler = {
      fetch: async (request) => {
        const text = await readers.body?.(request);
        const clone = (() => {
          try {
            request.clone();
            return "cloned";
          } catch (error) {
            return error instanceof TypeError ? "TypeError" : String(error);
          }
        })();
        return Response.json({ text, clone, used: request.bodyUsed, redirect: request.redirect });
      },
    };
    await serving(handler, async (server) => {
      const response = await fetch(server.url, { method: "POST", body: "once" });
      expect(await response.json()).toEqual({
        text: "once",
        clone: "TypeError",
        used: true,
        redirect: "follow",
      });
    });
  });

  it("parses a form body with formData(), before or after clone()", async () => {
    const handler: FetchHandler = {
      fetch: async (request) => {
        const copy = new URL(request.url).searchParams.has("clone") ? request.clone() : undefined;
        const form = await request.formData();
        const copied = copy ? Object.fromEntries(await copy.formData()) : null;
        return Response.json({ form: Object.fromEntries(form), copied });
      },
    };
    await serving(handler, async (server) => {
      for (const clone of [false, true]) {
        const multipart = new FormData();
        multipart.set("name", "ada");
        multipart.set("lang", "en");
        for (const body of [new URLSearchParams({ name: "ada", lang: "en" }), multipart]) {
          const response = await fetch(`${server.url}/${clone ? "?clone" : ""}`, {
            method: "POST",
            body,
          });
          const form = { name: "ada", lang: "en" };
          expect(await response.json()).toEqual({ form, copied: clone ? form : null });
        }
      }
    });
  });

  it("serves a third-party fetch handler: the official SDK's web-standard MCP transport", async () => {
    const handler: FetchHandler = {
      fetch: async (request) => {
        // Stateless, as the SDK's own example: a fresh server and transport per request. A
        // `?log` request is first read through a clone, as a logging wrapper would.
        if (new URL(request.url).searchParams.has("log")) await request.clone().text();
        const server = new McpServer({ name: "sdk", version: "1.0.0" });
        server.registerTool(
          "shout",
          { description: "Upper-cases a word", inputSchema: { word: z.string() } },
          async ({ word }) => ({ content: [{ type: "text", text: word.toUpperCase() }] }),
        );
        const transport = new WebStandardStreamableHTTPServerTransport({});
        await server.connect(transport);
        return transport.handleRequest(request);
      },
    };
    await serving(handler, async (server) => {
      for (const path of ["/mcp", "/mcp?log"]) {
        const client = new Client({ name: "c", version: "1" });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}${path}`)));
        try {
          const result = await client.callTool({ name: "shout", arguments: { word: "hi" } });
          expect(result.content).toEqual([{ type: "text", text: "HI" }]);
        } finally {
          await client.close();
        }
      }
    });
  });
});
