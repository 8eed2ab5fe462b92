// Node serving under load: requests per second of one stateless MCP `tools/call` of a trivial
// tool over real sockets, 32 connections. The servers run in a child process so the load
// generator (autocannon, in this process) does not share their event loop; all of them listen
// at once and take turns, round by round, so machine drift hits each the same.
//   toolwire: serve() + createMcpHandler (stateless, the default), compiled dist/, a 2025-11-25
//             call and a 2026-07-28 one (its `_meta` envelope and Mcp-Method/Mcp-Name headers)
//   bare:     node:http that reads the body, JSON.parse()s it and writes the same answer (the floor)
//   direct:   node:http that buffers the body and calls the same handler's `fetch(url, init)` with
//             a string body, no web Request at all: what the handler costs with the cheapest bridge
//   SDK:      the official SDK's stateless Streamable HTTP server on node:http (a fresh McpServer
//             and transport per request, as its stateless example does; JSON answers)
//   wrapped:  serve({ fetch: (r) => handler.fetch(r) }): a handler serve() cannot answer directly,
//             so it gets the lazy web Request of src/node/web-request.ts (design.md SP1a)
//   eager:    the same wrapper reading `request.cache` first, which makes the lazy object build
//             its real undici Request (from the same fields and body) before the handler runs:
//             what a plain `new Request(...)` per request costs, plus the lazy shell's own work
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { loadAddHandler, loadDist } from "./load.ts";
import { compare, section } from "./report.ts";

function call(modern: boolean): { body: string; headers: Record<string, string> } {
  const params: Record<string, unknown> = { name: "add", arguments: { a: 1, b: 2 } };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": modern ? "2026-07-28" : "2025-11-25",
  };
  if (modern) {
    params._meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    Object.assign(headers, { "mcp-method": "tools/call", "mcp-name": "add" });
  }
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params });
  return { body, headers };
}

type Contender = "toolwire" | "toolwire2026" | "direct" | "bare" | "sdk" | "wrapped" | "eager";

async function listen(server: ReturnType<typeof createServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

// Runs in the child: starts the three servers and prints their ports as one JSON line.
async function startServers(): Promise<void> {
  const _v = await import("valibot");
  const { z } = await import("zod");
  const { serve } = await loadDist<typeof import("../src/node/index.ts")>("node/index.js");
  const handler = await loadAddHandler();
  const ours = await serve(handler, { port: 0 });
  // Not createMcpHandler's own object, so both go through the web Request bridge.
  const wrapped = await serve({ fetch: (request: Request) => handler.fetch(request) }, { port: 0 });
  const eager = await serve(
    {
      fetch: (request: Request) => {
        void request.cache; // any member the lazy object does not defer builds the real Request
        return handler.fetch(request);
      },
    },
    { port: 0 },
  );
  const direct = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const headers = new Headers();
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
      }
      const response = await handler.fetch(`http://127.0.0.1${req.url}`, {
        method: req.method ?? "POST",
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const text = await response.text();
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(text);
    });
  });

  const bare = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        id: number;
        params: { arguments: { a: number; b: number } };
      };
      const { a, b } = message.params.arguments;
      const answer = JSON.stringify({
        jsonrpc: "2.0",
        id: message.id,
        result: { content: [{ type: "text", text: String(a + b) }] },
      });
      res.writeHead(200, { "content-type": "application/json" }).end(answer);
    });
  });

  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StreamableHTTPServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/streamableHttp.js"
  );
  const sdk = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const server = new McpServer({ name: "bench", version: "1.0.0" });
      server.registerTool(
        "add",
        { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } },
        async ({ a, b }) => ({ content: [{ type: "text" as const, text: String(a + b) }] }),
      );
      // No sessionIdGenerator: stateless.
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString("utf8")));
    });
  });

  const ports: Record<Contender, number> = {
    toolwire: Number(new URL(ours.url).port),
    toolwire2026: Number(new URL(ours.url).port),
    direct: await listen(direct),
    bare: await listen(bare),
    sdk: await listen(sdk),
    wrapped: Number(new URL(wrapped.url).port),
    eager: Number(new URL(eager.url).port),
  };
  console.log(JSON.stringify(ports));
  // Each line from the parent asks for this process's CPU time so far, in µs.
  createInterface({ input: process.stdin }).on("line", () => {
    const { user, system } = process.cpuUsage();
    console.log(String(user + system));
  });
}

interface Round {
  rps: number;
  p50: number;
  p99: number;
  /** The servers' CPU time per answered request, in µs: steadier than rps on a busy machine. */
  cpu: number;
}

async function load(
  port: number,
  seconds: number,
  modern: boolean,
  cpu: () => Promise<number>,
): Promise<Round> {
  const { default: autocannon } = await import("autocannon");
  const { body, headers } = call(modern);
  const before = await cpu();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/mcp`,
    method: "POST",
    headers,
    body,
    connections: 32,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`port ${port}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  const used = (await cpu()) - before;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpu: used / Math.max(result.requests.total, 1),
  };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * Measures `serve()` + `createMcpHandler` requests/s against a bare node:http JSON-RPC server and
 * the SDK's stateless server, interleaved rounds (default 3 × 4 s each), median per contender.
 */
export async function serving(rounds = 3, seconds = 4): Promise<void> {
  const child: ChildProcess = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), "--servers"],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  try {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const waiting: ((line: string) => void)[] = [];
    lines.on("line", (line) => waiting.shift()?.(line));
    const nextLine = () => new Promise<string>((resolve) => waiting.push(resolve));
    const line = await new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`bench servers exited with ${code}`)));
      nextLine().then(resolve);
    });
    const ports = JSON.parse(line) as Record<Contender, number>;
    const cpu = async () => {
      const answer = nextLine();
      child.stdin?.write("cpu\n");
      return Number(await answer);
    };
    const names: Contender[] = [
      "toolwire",
      "toolwire2026",
      "direct",
      "bare",
      "sdk",
      "wrapped",
      "eager",
    ];
    const run = (name: Contender, seconds: number) =>
      load(ports[name], seconds, name === "toolwire2026", cpu);
    for (const name of names) await run(name, 1); // warm-up, not counted
    const runs: Record<Contender, Round[]> = {
      toolwire: [],
      toolwire2026: [],
      direct: [],
      bare: [],
      sdk: [],
      wrapped: [],
      eager: [],
    };
    for (let round = 0; round < rounds; round++) {
      for (const name of names) runs[name].push(await run(name, seconds));
    }
    const pick = (name: Contender) => ({
      rps: median(runs[name].map((r) => r.rps)),
      p50: median(runs[name].map((r) => r.p50)),
      p99: median(runs[name].map((r) => r.p99)),
      cpu: median(runs[name].map((r) => r.cpu)),
    });
    const ours = pick("toolwire");
    const modern = pick("toolwire2026");
    const bare = pick("bare");
    const floor = pick("direct");
    const sdk = pick("sdk");
    const wrapped = pick("wrapped");
    const eager = pick("eager");
    section("Node serving: stateless tools/call over node:http, 32 connections (autocannon)");
    console.log(
      "toolwire: serve() + createMcpHandler, a 2025-11-25 call (2026: a 2026-07-28 one);",
    );
    console.log("bare: node:http parsing the same body;");
    console.log("direct: node:http calling the same handler with a string body (no web Request)");
    console.log("SDK: StreamableHTTPServerTransport, stateless, JSON answers");
    console.log(
      "wrapped: serve() of a wrapper around handler.fetch (the lazy web Request); eager: the same with the real Request built first",
    );
    const rps = (n: number) => `${Math.round(n)} req/s`;
    const ms = (n: number) => `${n} ms`;
    const us = (n: number) => `${n.toFixed(1)} µs`;
    const rows: [string, string, string, number, string?][] = [
      [
        "requests/s vs bare node:http",
        rps(ours.rps),
        rps(bare.rps),
        ours.rps / bare.rps,
        ">= 0.5x",
      ],
      [
        "2026 requests/s vs bare node:http",
        rps(modern.rps),
        rps(bare.rps),
        modern.rps / bare.rps,
        ">= 0.5x",
      ],
      ["requests/s vs SDK stateless", rps(ours.rps), rps(sdk.rps), ours.rps / sdk.rps, ">= 4x"],
      [
        "requests/s vs direct (handler-bound ceiling)",
        rps(ours.rps),
        rps(floor.rps),
        ours.rps / floor.rps,
      ],
      ["direct requests/s vs bare node:http", rps(floor.rps), rps(bare.rps), floor.rps / bare.rps],
      [
        "p50 latency vs bare node:http",
        ms(ours.p50),
        ms(bare.p50),
        ours.p50 / Math.max(bare.p50, 1),
      ],
      [
        "p99 latency vs bare node:http",
        ms(ours.p99),
        ms(bare.p99),
        ours.p99 / Math.max(bare.p99, 1),
      ],
      [
        "2026 p50 / p99 latency (p99 ratio)",
        `${modern.p50} / ${modern.p99} ms`,
        `${bare.p50} / ${bare.p99} ms`,
        modern.p99 / Math.max(bare.p99, 1),
      ],
      ["p50 latency vs SDK stateless", ms(ours.p50), ms(sdk.p50), ours.p50 / Math.max(sdk.p50, 1)],
      ["p99 latency vs SDK stateless", ms(ours.p99), ms(sdk.p99), ours.p99 / Math.max(sdk.p99, 1)],
      // The servers' CPU per request, as bare / ours so it reads like the requests/s ratio.
      ["server CPU per request, bare / toolwire", us(ours.cpu), us(bare.cpu), bare.cpu / ours.cpu],
      [
        "server CPU per request 2026, bare / toolwire",
        us(modern.cpu),
        us(bare.cpu),
        bare.cpu / modern.cpu,
      ],
      ["server CPU per request, SDK / toolwire", us(ours.cpu), us(sdk.cpu), sdk.cpu / ours.cpu],
      // Whether the lazy Request (src/node/web-request.ts) earns its code: > 1x means it saves.
      [
        "wrapped handler CPU per request, eager / lazy Request",
        us(wrapped.cpu),
        us(eager.cpu),
        eager.cpu / wrapped.cpu,
      ],
      [
        "wrapped handler requests/s, lazy / eager Request",
        rps(wrapped.rps),
        rps(eager.rps),
        wrapped.rps / eager.rps,
      ],
    ];
    for (const row of rows) compare(...row);
  } finally {
    child.kill();
  }
}

if (process.argv.includes("--servers")) await startServers();
else if (process.argv[1] === fileURLToPath(import.meta.url)) await serving();
