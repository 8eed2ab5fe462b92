/// <reference types="node" />
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ToolError } from "../errors.ts";
import type { Answer, IncomingRequest, JsonAnswer } from "../mcp/server/http.ts";

type WebRequestModule = typeof import("./web-request.ts");

/** What `serve` serves: anything with a web-standard `fetch` (a `createMcpHandler` handler). */
export interface FetchHandler {
  /** Answers one request. */
  fetch(request: Request): Promise<Response> | Response;
}

/** Where `serve` listens, and what stops it. */
export interface ServeOptions {
  /** The TCP port; `0` picks a free one (read it back from `url`). */
  port: number;
  /** The interface to bind; default `127.0.0.1` (loopback only). */
  hostname?: string;
  /** Aborting it closes the server. */
  signal?: AbortSignal;
  /**
   * How long a client may take to send a request's head (its headers), in ms; default 10 s.
   * A slower one is answered 408 and its connection closed (node:http's own default is 60 s).
   */
  headersTimeoutMs?: number;
  /**
   * How long a client may take to send a whole request, head and body, in ms; default 30 s. A
   * body that stalls is answered 408 and its connection closed, so unfinished uploads cannot
   * hold buffers for long (node:http's own default is 5 minutes). The answer itself, an SSE
   * stream included, may take as long as it needs.
   */
  requestTimeoutMs?: number;
  /**
   * How long a kept-alive connection may wait for its next request, in ms; default 5 s, then
   * it is closed.
   */
  idleTimeoutMs?: number;
}

/** The node:http timeouts `serve` sets, from its options. */
interface ServeTimeouts {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  /** How often node:http looks for connections past the first two, in ms. */
  connectionsCheckingInterval: number;
}

/**
 * Returns the node:http timeouts for `options`, defaults filled in.
 *
 * @throws ToolError `invalid_configuration` for a timeout that is not a positive integer.
 */
function serveTimeouts(options: ServeOptions): ServeTimeouts {
  const positive = (name: keyof ServeOptions, fallback: number): number => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
      throw new ToolError({
        type: "invalid_configuration",
        message: `\`${name}\` must be a positive integer (milliseconds)`,
      });
    }
    return value;
  };
  const requestTimeout = positive("requestTimeoutMs", 30_000);
  // node:http refuses a head timeout longer than the whole request's.
  const headersTimeout = Math.min(positive("headersTimeoutMs", 10_000), requestTimeout);
  return {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: positive("idleTimeoutMs", 5_000),
    // Hint: node:http checks every 30 s by default, which would let a stalled request live
    // up to 30 s past its timeout.
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 4))),
  };
}

/** A listening server, as `serve` resolves it. */
export interface Served {
  /** The base URL, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  /** Stops listening and drops open connections; idempotent. */
  close(): Promise<void>;
}

/**
 * Serves a fetch handler over `node:http`, for local use. Streaming response bodies (SSE) are
 * written chunk by chunk as the handler produces them. A handler from `createMcpHandler` (itself,
 * not a wrapper around its `fetch`) reads the node:http request directly and its JSON answers
 * are written without a web `Request` or `Response`; the answers are the same.
 *
 * @example
 * ```ts
 * const server = await serve(createMcpHandler(tools, { name: "calc", version: "1.0.0" }), { port: 8787 });
 * console.log(`${server.url}/mcp`);
 * ```
 *
 * @param handler The handler, e.g. from `createMcpHandler`.
 * @param options Port, hostname, an optional stop signal, and the timeouts of a request's
 *   arrival (`headersTimeoutMs`, `requestTimeoutMs`, `idleTimeoutMs`).
 * @returns The listening server.
 * @throws ToolError `invalid_configuration` for a timeout that is not a positive integer.
 */
export async function serve(handler: FetchHandler, options: ServeOptions): Promise<Served> {
  options.signal?.throwIfAborted();
  const timeouts = serveTimeouts(options);
  // Loaded by the first serve(), not by importing toolwire/node: setting up the lazy Request
  // reads undici's Request, which costs Node its fetch implementation (about 25 ms of cold
  // start, `npm run bench`), and node:http is not free either.
  const [{ createServer }, web, { directAnswer }] = await Promise.all([
    import("node:http"),
    import("./web-request.ts"),
    import("../mcp/server/http.ts"),
  ]);
  // A handler from `createMcpHandler` is answered without a web Request or, for a JSON answer,
  // a Response: together about half of what a small `tools/call` cost (design.md SP1).
  const direct = directAnswer(handler);
  const hostname = options.hostname ?? "127.0.0.1";
  const { keepAliveTimeout, ...limits } = timeouts;
  const server = createServer(limits, (req, res) => {
    const answered = direct
      ? answerDirectly(direct, req, res, base, web)
      : bridge(handler, req, res, base, web);
    answered.catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.keepAliveTimeout = keepAliveTimeout;
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
  // An abort while `listen` was pending fired before the listener existed.
  if (options.signal?.aborted) void close();
  return { url: base, close };
}

async function bridge(
  handler: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  base: string,
  { bodyAbandoned, webRequest }: WebRequestModule,
): Promise<void> {
  const request = webRequest(req, res, base);
  const response = await handler.fetch(request);
  // The handler refused the body before its end (too large, say): answer, then close, so the
  // rest of an unbounded body is never read.
  if (bodyAbandoned(request)) res.shouldKeepAlive = false;
  await writeResponse(response, res);
}

async function answerDirectly(
  direct: (request: IncomingRequest) => Promise<Answer>,
  req: IncomingMessage,
  res: ServerResponse,
  base: string,
  { incomingRequest }: WebRequestModule,
): Promise<void> {
  const incoming = incomingRequest(req, res, base);
  const answer = await direct(incoming);
  // As in `bridge`: a body refused before its end closes the connection after the answer.
  if (incoming.abandoned()) res.shouldKeepAlive = false;
  if (answer instanceof Response) return writeResponse(answer, res);
  writeJson(answer, res);
}

// Waits one turn of the event loop: a body the handler already has settles before it.
const turn = () => new Promise<"pending">((resolve) => setImmediate(resolve, "pending"));

function headerRecord(from: Headers): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  let cookies = false;
  from.forEach((value, key) => {
    if (key === "set-cookie") cookies = true;
    else headers[key] = value;
  });
  // Each cookie stays its own header line; `forEach` would have joined them with commas.
  if (cookies) headers["set-cookie"] = from.getSetCookie();
  return headers;
}

// Most answers share one Headers object (`Vary: Origin` for a caller without `Origin`); its
// lines are flattened once.
const lines = new WeakMap<Headers, string[]>();

// The head and the text go out in one write, as `writeResponse` does for a complete body. The
// head is given as a flat list: with an object, node:http cost this server 7-34 µs more
// per request under load (serve() with a do-nothing handler, Node 20, three paired runs).
function writeJson(answer: JsonAnswer, res: ServerResponse): void {
  let shared = lines.get(answer.headers);
  if (!shared) {
    shared = [];
    for (const [key, value] of Object.entries(headerRecord(answer.headers))) {
      for (const line of Array.isArray(value) ? value : [value]) shared.push(key, line);
    }
    lines.set(answer.headers, shared);
  }
  const length = String(Buffer.byteLength(answer.text));
  res
    .writeHead(answer.status, [
      ...shared,
      "content-type",
      "application/json",
      "content-length",
      length,
    ])
    .end(answer.text);
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers = headerRecord(response.headers);
  if (!response.body) return void res.writeHead(response.status, headers).end();
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  res.once("close", onClose);
  try {
    // A body that is complete within one turn (a JSON answer) goes out with its head in one
    // write, with a Content-Length. Anything slower (an SSE stream waiting for its first event)
    // gets its head at once and then each chunk as the handler produces it.
    const chunks: Uint8Array[] = [];
    let size = 0;
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
    const tick = turn();
    for (;;) {
      const read = reader.read();
      const next = await Promise.race([read, tick]);
      if (next === "pending") {
        pending = read;
        break;
      }
      if (next.done) {
        if (!("content-length" in headers) && !("transfer-encoding" in headers)) {
          headers["content-length"] = String(size);
        }
        res.writeHead(response.status, headers);
        // As a latin1 string (one byte per char, so the bytes are unchanged) node:http joins
        // the body to its head and sends both in one write.
        const body = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, size);
        return void res.end(
          Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("latin1"),
          "latin1",
        );
      }
      chunks.push(next.value);
      size += next.value.byteLength;
      if (size >= 64 * 1024) break;
    }
    res.writeHead(response.status, headers);
    // Send the head now, so an SSE client sees the stream open before the first event.
    res.flushHeaders();
    for (const chunk of chunks) res.write(chunk);
    for (;;) {
      const { done, value } = await (pending ?? reader.read());
      pending = undefined;
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
    }
    res.end();
  } finally {
    res.off("close", onClose);
  }
}
