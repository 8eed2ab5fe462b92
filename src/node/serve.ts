/// <reference types="node" />
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

/** Fetch handler interface: anything with a web-standard `fetch` method. */
export interface FetchHandler {
  /** Answers one request. */
  fetch(request: Request): Promise<Response> | Response;
}

/** Serve options interface: where to listen. */
export interface ServeOptions {
  /** The TCP port; `0` picks a free one (read it back from `url`). */
  port: number;
  /** The interface to bind; default `127.0.0.1` (loopback only). */
  hostname?: string;
  /** Aborting it closes the server. */
  signal?: AbortSignal;
}

/** Served interface: a listening server. */
export interface Served {
  /** The base URL, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  /** Stops listening and drops open connections; idempotent. */
  close(): Promise<void>;
}

/**
 * Serves a fetch handler over `node:http`, for local use. Streaming response bodies (SSE) are
 * written chunk by chunk as the handler produces them.
 *
 * @example
 * ```ts
 * const server = await serve(createMcpHandler(tools, { name: "calc", version: "1.0.0" }), { port: 8787 });
 * console.log(`${server.url}/mcp`);
 * ```
 *
 * @param handler The handler, e.g. from `createMcpHandler`.
 * @param options Port, hostname and an optional stop signal.
 * @returns The listening server.
 */
export async function serve(handler: FetchHandler, options: ServeOptions): Promise<Served> {
  options.signal?.throwIfAborted();
  const hostname = options.hostname ?? "127.0.0.1";
  const server = createServer((req, res) => {
    bridge(handler, req, res, base).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  let base = "";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  base = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      options.signal?.removeEventListener("abort", onAbort);
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  const onAbort = () => void close();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  // Hint: an abort while `listen` was pending fired before the listener existed.
  if (options.signal?.aborted) void close();
  return { url: base, close };
}

async function bridge(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  base: string,
): Promise<void> {
  const controller = new AbortController();
  res.once("close", () => controller.abort());
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(key, item);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const init: RequestInit & { duplex?: "half" } = {
    method: req.method ?? "GET",
    headers,
    signal: controller.signal,
  };
  if (hasBody) {
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    init.duplex = "half";
  }
  const response = await handler.fetch(new Request(new URL(req.url ?? "/", base), init));
  await writeResponse(response, res);
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key !== "set-cookie") headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  res.writeHead(response.status, headers);
  // Hint: send the head now, so an SSE client sees the stream open before the first event.
  res.flushHeaders();
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  res.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
    }
    res.end();
  } finally {
    res.off("close", onClose);
  }
}
