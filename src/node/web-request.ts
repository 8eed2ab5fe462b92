/// <reference types="node" />
// A web `Request` over a node:http request, built lazily. Most handlers read the method, the
// URL, a few headers and the body once; building undici's `Request`, its `Headers` and a
// `Readable.toWeb` stream for every request costs more than the handler's own work. So the
// object below is an `instanceof Request` whose common fields are computed on first read, and
// any other member (`cache`, `redirect`, …) is answered by a real `Request`, built then from
// the same fields and body.
//
// The body has one owner at a time, so every way to read it sees the same bytes once:
// - until a real Request exists, `body` is our stream and the body methods (`text()`, `json()`,
//   `formData()`, …) read it through a `Response` with the request's Content-Type, which
//   applies the same Body rules a Request does;
// - a real Request made while our stream is still untouched takes that stream over; from then
//   on `body`, the body methods and `clone()` are the real Request's, so after `clone()` (which
//   tees the real body) `body` is the real Request's new branch, as it would be on a real one;
// - a real Request made after the handler locked or read our stream gets a locked stand-in
//   body, so its `clone()` and body methods refuse with a TypeError, as a used body does.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import {
  type BodyRead,
  decode,
  type HeaderLookup,
  type IncomingRequest,
  readBody,
} from "../mcp/server/http.ts";

const REAL = Symbol("real");
// Node's check that a stream was read or cancelled; its types name only node streams.
const isDisturbed = (stream: ReadableStream): boolean =>
  Readable.isDisturbed(stream as unknown as NodeJS.ReadableStream);
const BODY_METHODS = ["arrayBuffer", "blob", "bytes", "formData", "json", "text"];
const OWN = new Set(["method", "url", "headers", "signal", "body", "bodyUsed", "constructor"]);
for (const name of BODY_METHODS) OWN.add(name);

interface Fields {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly base: string;
  url?: string;
  headers?: Headers;
  controller?: AbortController;
  /** Our stream over the socket (`null` for GET and HEAD), once someone asked for it. */
  body?: ReadableStream<Uint8Array> | null;
  closed: boolean;
  real?: Request;
  /** The real Request was made after our stream was locked or read: `body` stays ours. */
  standIn?: boolean;
  /** `incomingRequest`'s reader read the body from the socket: a Request sees it used. */
  taken?: boolean;
}

type Lazy = Request & { [REAL]: Fields };

const prototype = Object.create(Request.prototype) as Record<PropertyKey, unknown>;

function fields(self: unknown): Fields {
  return (self as Lazy)[REAL];
}

function ownBody(state: Fields): ReadableStream<Uint8Array> | null {
  if (state.body === undefined) {
    const { method } = state.req;
    state.body =
      method === "GET" || method === "HEAD" ? null : state.taken ? usedBody() : bodyStream(state);
  }
  return state.body;
}

// A body someone already read: disturbed and locked, so reading it again fails with a TypeError
// and `bodyUsed` is true, as on a Request whose body was consumed.
function usedBody(): ReadableStream<Uint8Array> {
  const stream = new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  void stream.getReader().read();
  return stream;
}

// undici's Request keeps its state in private slots, so its own getters refuse our object;
// everything we don't compute goes to a real Request made from the same parts.
function real(state: Fields, self: Lazy): Request {
  if (state.real) return state.real;
  const init: RequestInit & { duplex?: "half" } = {
    method: self.method,
    headers: self.headers,
    signal: self.signal,
  };
  // Handed out as a stream, or read straight from the socket (`taken`): either way the real
  // Request gets a stand-in that reads as used (Node 24 refuses a disturbed body outright).
  const handedOut = state.body !== undefined || state.taken === true;
  const body = ownBody(state);
  if (body) {
    state.standIn = handedOut && (body.locked || isDisturbed(body));
    init.body = state.standIn ? new ReadableStream({ start: (c) => c.close() }) : body;
    init.duplex = "half";
  }
  state.real = new Request(self.url, init);
  if (state.standIn) void state.real.body?.getReader().read();
  return state.real;
}

// The real Request owns the body once it has taken our stream over.
function realOwnsBody(state: Fields): state is Fields & { real: Request } {
  return state.real !== undefined && !state.standIn;
}

Object.defineProperties(prototype, {
  method: {
    get(this: Lazy) {
      return fields(this).req.method ?? "GET";
    },
  },
  url: {
    get(this: Lazy) {
      const state = fields(this);
      state.url ??= new URL(state.req.url ?? "/", state.base).href;
      return state.url;
    },
  },
  headers: {
    get(this: Lazy) {
      const state = fields(this);
      if (!state.headers) {
        const headers = new Headers();
        const raw = state.req.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) {
          headers.append(raw[i] as string, raw[i + 1] as string);
        }
        state.headers = headers;
      }
      return state.headers;
    },
  },
  signal: {
    get(this: Lazy) {
      const state = fields(this);
      if (!state.controller) {
        state.controller = new AbortController();
        if (state.closed) state.controller.abort();
      }
      return state.controller.signal;
    },
  },
  body: {
    get(this: Lazy) {
      const state = fields(this);
      return realOwnsBody(state) ? state.real.body : ownBody(state);
    },
  },
  bodyUsed: {
    get(this: Lazy) {
      const body = this.body;
      return body !== null && isDisturbed(body);
    },
  },
});

for (const name of BODY_METHODS) {
  const method = (Request.prototype as unknown as Record<string, unknown>)[name];
  // `bytes()` is newer than some supported Node versions.
  if (typeof method !== "function") continue;
  prototype[name] = async function (this: Lazy) {
    const state = fields(this);
    if (realOwnsBody(state)) return method.call(state.real);
    const type = this.headers.get("content-type");
    const response = new Response(
      this.body,
      type === null ? {} : { headers: { "content-type": type } },
    );
    return (response as unknown as Record<string, () => Promise<unknown>>)[name]?.();
  };
}

for (const key of Reflect.ownKeys(Request.prototype)) {
  if (typeof key === "string" && OWN.has(key)) continue;
  const descriptor = Object.getOwnPropertyDescriptor(Request.prototype, key);
  if (!descriptor) continue;
  if (typeof descriptor.value === "function") {
    const method = descriptor.value as (...args: unknown[]) => unknown;
    prototype[key] = function (this: Lazy, ...args: unknown[]) {
      return method.apply(real(fields(this), this), args);
    };
  } else if (descriptor.get) {
    const get = descriptor.get;
    Object.defineProperty(prototype, key, {
      get(this: Lazy) {
        return get.call(real(fields(this), this));
      },
    });
  }
}

// undici reads a Request it is handed (`fetch(request)`, `new Request(request)`) through its
// own symbol-keyed slots; answering those from the real Request makes a lazy one pass too. Where
// the slots are private fields instead (Node 24), that cannot work, and the probe below turns
// the lazy path off: every request is then a real `Request` from the start.
for (const key of Reflect.ownKeys(new Request("http://localhost/"))) {
  if (typeof key !== "symbol") continue;
  Object.defineProperty(prototype, key, {
    get(this: Lazy) {
      return (real(fields(this), this) as unknown as Record<symbol, unknown>)[key];
    },
  });
}

function lazyPassesUndici(): boolean {
  try {
    const req = { method: "GET", url: "/probe", rawHeaders: ["x-probe", "1"], complete: true };
    const state = { req, base: "http://localhost", closed: false } as unknown as Fields;
    const lazy = Object.create(prototype) as Lazy;
    Object.defineProperty(lazy, REAL, { value: state });
    const copy = new Request(lazy);
    return copy.url === "http://localhost/probe" && copy.headers.get("x-probe") === "1";
  } catch {
    return false;
  }
}

const lazyWorks = lazyPassesUndici();
// Where the lazy path is off, what bodyAbandoned needs to know about each real Request.
const states = new WeakMap<Request, Fields>();

/**
 * Wraps a node:http request as a web `Request`. Its `signal` aborts when the response closes
 * (the client went away, or the answer was sent).
 *
 * @param base The server's origin, e.g. `http://127.0.0.1:8787`, for relative request targets.
 */
export function webRequest(req: IncomingMessage, res: ServerResponse, base: string): Request {
  return lazyRequest(watched({ req, res, base, closed: false }));
}

function watched(state: Fields): Fields {
  state.res.once("close", () => {
    state.closed = true;
    state.controller?.abort();
  });
  return state;
}

function lazyRequest(state: Fields): Request {
  const request = Object.create(prototype) as Lazy;
  Object.defineProperty(request, REAL, { value: state });
  if (lazyWorks) return request;
  const result = real(state, request);
  states.set(result, state);
  return result;
}

/** A node:http request as the MCP handler reads it; `abandoned` as `bodyAbandoned`. */
export interface NodeIncomingRequest extends IncomingRequest {
  abandoned(): boolean;
}

/**
 * The node:http request as `createMcpHandler` reads it (see design.md SP1): the headers looked
 * up in `rawHeaders`, the body read straight from the socket's chunks within the handler's limit,
 * and a web `Request` (sharing that body) only if `authorize` or `onError` asks for one. Under
 * load on Node 20 the body's web stream alone took about 6% of a request's CPU in the profile.
 */
export function incomingRequest(
  req: IncomingMessage,
  res: ServerResponse,
  base: string,
): NodeIncomingRequest {
  const state = watched({ req, res, base, closed: false });
  const target = req.url ?? "/";
  let request: Request | undefined;
  const toRequest = () => {
    request ??= lazyRequest(state);
    return request;
  };
  const headers = new RawHeaders(req.rawHeaders);
  const { method = "GET" } = req;
  return {
    method,
    // `new URL` only for what a plain concatenation would get wrong (`*`, `//x`, absolute form).
    url: target[0] === "/" && target[1] !== "/" ? base + target : new URL(target, base).href,
    headers,
    body:
      method === "GET" || method === "HEAD"
        ? null
        : (maxBytes) => readNodeBody(state, headers, toRequest, maxBytes),
    onAbort(listener) {
      // As a Request's signal: one that already aborted never fires again.
      if (state.closed) return () => {};
      res.once("close", listener);
      return () => res.off("close", listener);
    },
    toRequest,
    abandoned: () => (state.taken === true || state.body != null) && !req.complete,
  };
}

// `Headers.get` over node's raw header list: names compared case-insensitively, repeated
// headers joined with `, `. undici's `Headers` validates each entry as it is appended, where
// the handler only looks up about ten names (node:http has already checked the syntax).
class RawHeaders implements HeaderLookup {
  #raw: string[];
  #byName: Map<string, string> | undefined;
  constructor(raw: string[]) {
    this.#raw = raw;
  }
  get(name: string): string | null {
    if (!this.#byName) {
      const byName = new Map<string, string>();
      const raw = this.#raw;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const key = (raw[i] as string).toLowerCase();
        const value = raw[i + 1] as string;
        const before = byName.get(key);
        byName.set(key, before === undefined ? value : `${before}, ${value}`);
      }
      this.#byName = byName;
    }
    return this.#byName.get(name.toLowerCase()) ?? null;
  }
}

function readNodeBody(
  state: Fields,
  headers: HeaderLookup,
  toRequest: () => Request,
  maxBytes: number,
): Promise<BodyRead> {
  // `authorize` (or anyone) already asked for the Request's body: read it from that stream.
  if (state.body !== undefined || state.real !== undefined) {
    return readBody({ headers, body: toRequest().body }, maxBytes);
  }
  state.taken = true;
  const { req } = state;
  const declared = Number(headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    return Promise.resolve({ type: "too_large" });
  }
  if (req.complete) {
    // The whole body has arrived (a small one usually comes with the head): it is in the
    // request's buffer, and one read takes it without waiting for `data` and `end`.
    const all = req.read() as Buffer | null;
    if (all === null) return Promise.resolve({ type: "text", text: "" });
    if (all.byteLength > maxBytes) return Promise.resolve({ type: "too_large" });
    return Promise.resolve(decode([all], all.byteLength));
  }
  return new Promise<BodyRead>((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const settle = (read: BodyRead) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      state.res.off("close", onLeft);
      resolve(read);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= maxBytes) return void chunks.push(chunk);
      // The rest is read and dropped; `serve` closes the connection after the answer.
      settle({ type: "too_large" });
      req.resume();
    };
    const onEnd = () => settle(decode(chunks, size));
    const onError = () => settle({ type: "failed" });
    // The client left mid-body: `end` never comes.
    const onLeft = () => {
      if (!req.complete) onError();
    };
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onError);
    if (state.closed) onLeft();
    else state.res.once("close", onLeft);
  });
}

/** Whether the handler stopped reading the body before its end (too large, for example). */
export function bodyAbandoned(request: Request): boolean {
  const state = (request as Partial<Lazy>)[REAL] ?? states.get(request);
  return state !== undefined && state.body != null && !state.req.complete;
}

// A byte stream straight over the socket's chunks: Node's own buffer (the request's
// highWaterMark) is the only queue; we pause the request when the reader has enough.
function bodyStream(state: Fields): ReadableStream<Uint8Array> {
  const { req } = state;
  let onData: ((chunk: Buffer) => void) | undefined;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Once the stream is cancelled or errored, the controller refuses further calls.
        const settle = (step: () => void) => {
          try {
            step();
          } catch {}
        };
        onData = (chunk) => {
          settle(() =>
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
          );
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        req.on("data", onData);
        req.once("end", () => settle(() => controller.close()));
        req.once("error", (error) => settle(() => controller.error(error)));
        // The client left mid-body (perhaps before the handler asked for the body): `end`
        // never comes, so the reader must not wait for it.
        const left = () => {
          if (!req.complete) settle(() => controller.error(new Error("client disconnected")));
        };
        if (state.closed) left();
        else state.res.once("close", left);
      },
      pull() {
        req.resume();
      },
      cancel() {
        // The handler has read enough; later chunks are discarded, and the answer closes the
        // connection (see serve) rather than read an unbounded remainder.
        if (onData) req.off("data", onData);
        req.resume();
      },
    },
    { highWaterMark: 1 },
  );
}
