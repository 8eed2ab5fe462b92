// The HTTP edge of the server, shared by every request and both revisions: what is read of a
// request (without building a `Request` when `fetch(url, init)` or `serve()` already holds the
// parts), the POST body read as one JSON-RPC message (`readPost`: media types, `Accept`, size,
// nesting), and the answers: one JSON message, an HTTP error, or an SSE stream that a call
// switches to once it has something to send before its result.

import { errorText, unreachable } from "../../errors.ts";
import {
  JSON_RPC_ERROR,
  type JsonRpcFailure,
  type JsonRpcMessage,
  type JsonRpcResponse,
  jsonRpcError,
  nestsDeeperThan,
  type ParsedJsonRpc,
  parseJsonRpc,
} from "../json-rpc.ts";

/** The headers of a request, as far as the server reads them: `Headers.get`'s contract. */
export interface HeaderLookup {
  /** The value, duplicates joined with `, `; `null` when absent. The name is case-insensitive. */
  get(name: string): string | null;
}

/**
 * The parts of an HTTP request the server reads. A `Request` gives one; so does
 * `fetch(url, init)` with a string body, and so does `serve()` from the node:http request,
 * without building a `Request`, its `Headers` and its body stream, which cost more than the
 * server's own work for a small call.
 */
export interface IncomingRequest {
  /** The method, upper-cased for the standard ones as `Request` does. */
  readonly method: string;
  /** The absolute URL. */
  readonly url: string;
  /** The headers; only read. */
  readonly headers: HeaderLookup;
  /**
   * The body: text already in memory, a stream, `null` without one, or a reader that reads it
   * as UTF-8 text within a limit (as `readBody` does).
   */
  readonly body: string | ReadableStream<Uint8Array> | null | BodyReader;
  /**
   * Calls `listener` once when the request is aborted (the client went away); returns the
   * function that stops listening.
   */
  onAbort(listener: () => void): () => void;
  /** The request as a `Request` (for `authorize` and `onError`), built on first use. */
  toRequest(): Request;
  /** The runtime's way to keep working after the answer (a Worker's `ctx.waitUntil`). */
  readonly waitUntil?: ((work: Promise<unknown>) => void) | undefined;
}

/** Reads a body as UTF-8 text, stopping past `maxBytes` (see `readBody`). */
export type BodyReader = (maxBytes: number) => Promise<BodyRead>;

const NORMALIZED = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);
const never = () => () => {};

/**
 * Returns what the server reads of `fetch`'s arguments. A `Request` is used as it is; a URL with
 * an `init` whose body is a string (or absent) is read directly, and anything else (a stream or
 * a `FormData` body) becomes a `Request` first, so both answer the same way.
 *
 * @throws TypeError as `new Request` does, for a relative URL or invalid headers.
 */
export function incomingRequest(
  input: Request | string | URL,
  init?: RequestInit,
): IncomingRequest {
  if (input instanceof Request) return fromRequest(input);
  const body = init?.body ?? null;
  const upper = (init?.method ?? "GET").toUpperCase();
  const method = NORMALIZED.has(upper) ? upper : (init?.method ?? "GET");
  const bodyless = method === "GET" || method === "HEAD";
  if ((body !== null && typeof body !== "string") || (bodyless && body !== null)) {
    return fromRequest(new Request(input, init));
  }
  // The router parses the URL once; a relative one fails there as `new Request` would.
  const url = typeof input === "string" ? input : input.href;
  const headers =
    init?.headers instanceof Headers ? init.headers : new Headers(init?.headers ?? undefined);
  const signal = init?.signal ?? undefined;
  let request: Request | undefined;
  return {
    method,
    url,
    headers,
    body,
    // A `Request` made from this `init` aborts exactly when its signal does.
    onAbort: signal ? (listener) => onSignal(signal, listener) : never,
    toRequest: () => {
      request ??= new Request(input, init);
      return request;
    },
  };
}

function fromRequest(request: Request): IncomingRequest {
  return {
    method: request.method,
    url: request.url,
    headers: request.headers,
    body: request.body,
    onAbort: (listener) => onSignal(request.signal, listener),
    toRequest: () => request,
  };
}

function onSignal(signal: AbortSignal, listener: () => void): () => void {
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}

/** A request body as text, or why there is none. */
export type BodyRead =
  | { type: "text"; text: string }
  | { type: "too_large" }
  | { type: "not_utf8" }
  | { type: "failed" };

/**
 * Reads a request body as UTF-8 text, stopping as soon as it exceeds `maxBytes`: a lying or
 * missing `Content-Length` cannot make the server buffer more than the limit. A body that is
 * already a string is measured in UTF-8 bytes, as it would travel. `failed` means the client
 * went away mid-body.
 */
export async function readBody(
  request: Pick<IncomingRequest, "body" | "headers">,
  maxBytes: number,
): Promise<BodyRead> {
  const { body } = request;
  if (typeof body === "function") return body(maxBytes);
  if (typeof body === "string") {
    return utf8Length(body, maxBytes) > maxBytes
      ? { type: "too_large" }
      : { type: "text", text: body };
  }
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await body?.cancel().catch(() => {});
    return { type: "too_large" };
  }
  if (!body) return { type: "text", text: "" };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return { type: "too_large" };
      }
      chunks.push(value);
    }
  } catch {
    return { type: "failed" };
  }
  // No releaseLock: the body is used up either way, and releasing costs an error object.
  return decode(chunks, size);
}

// Counts UTF-8 bytes without encoding; a string of at most limit/3 code units always fits.
function utf8Length(text: string, limit: number): number {
  if (text.length * 3 <= limit) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length && bytes <= limit; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      bytes += next >= 0xdc00 && next <= 0xdfff ? 4 : 3;
    } else bytes += 3;
  }
  return bytes;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The chunks of a body read to its end, as UTF-8 text, or `not_utf8`. */
export function decode(chunks: Uint8Array[], size: number): BodyRead {
  let bytes: Uint8Array;
  if (chunks.length === 1) bytes = chunks[0] as Uint8Array;
  else {
    bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  try {
    return { type: "text", text: decoder.decode(bytes) };
  } catch {
    return { type: "not_utf8" };
  }
}

/**
 * Reads a POST's body as one JSON-RPC message, whichever revision it is: checks the media types,
 * the body size and its nesting, and parses it. Returns the parsed body, or the answer to a POST
 * that is not one (415, 406, 413, a parse error, 400 for nesting deeper than `maxJsonDepth`).
 */
export async function readPost(
  request: IncomingRequest,
  headers: Headers,
  limits: { maxBodyBytes: number; maxJsonDepth: number },
): Promise<ParsedJsonRpc | JsonAnswer> {
  const { maxBodyBytes, maxJsonDepth } = limits;
  const contentType = request.headers.get("content-type") ?? "";
  if (contentType.split(";")[0]?.trim().toLowerCase() !== "application/json") {
    return httpError(415, "Unsupported Media Type: Content-Type must be application/json", headers);
  }
  if (!acceptsBoth(request.headers.get("accept"))) {
    return httpError(
      406,
      "Not Acceptable: Accept must list application/json and text/event-stream",
      headers,
    );
  }
  const body = await readBody(request, maxBodyBytes);
  switch (body.type) {
    case "too_large":
      return httpError(413, `Payload Too Large: the limit is ${maxBodyBytes} bytes`, headers);
    case "not_utf8":
      return badMessage(
        jsonRpcError(null, JSON_RPC_ERROR.parseError, "Parse error: the body is not UTF-8"),
        headers,
      );
    case "failed":
      return httpError(400, "Bad Request: the body could not be read", headers);
    case "text": {
      const parsed = parseJsonRpc(body.text);
      if (parsed.type !== "parse_error" && nestsDeeperThan(body.text, maxJsonDepth)) {
        return tooDeep(parsed, maxJsonDepth, headers);
      }
      return parsed;
    }
    default:
      return unreachable(body);
  }
}

// A message nested deeper than the limit is refused before anything walks it, with its own id
// when it has one (the id is read at the top level, so reading it is safe).
function tooDeep(parsed: ParsedJsonRpc, max: number, headers: Headers): JsonAnswer {
  const why = `nested deeper than ${max} levels (maxJsonDepth)`;
  const message = parsed.type === "single" ? parsed.message : undefined;
  switch (message?.type) {
    case "request":
      return badMessage(
        jsonRpcError(message.message.id, JSON_RPC_ERROR.invalidParams, `Invalid params: ${why}`),
        headers,
      );
    case "response":
    case "invalid": {
      const id = message.type === "response" ? message.message.id : message.error.id;
      return badMessage(
        jsonRpcError(id, JSON_RPC_ERROR.invalidRequest, `Invalid Request: ${why}`),
        headers,
      );
    }
    default:
      return badMessage(
        jsonRpcError(null, JSON_RPC_ERROR.invalidRequest, `Invalid Request: ${why}`),
        headers,
      );
  }
}

// Clients send the same Accept header every time; it is parsed once per distinct value.
let lastAccept: string | null = null;
let lastVerdict = false;
function acceptsBoth(accept: string | null): boolean {
  if (accept !== lastAccept) {
    lastVerdict = accepts(accept, "application/json") && accepts(accept, "text/event-stream");
    lastAccept = accept;
  }
  return lastVerdict;
}

/** A JSON-RPC error about the message itself, answered 400. */
export function badMessage(error: JsonRpcFailure, headers: Headers): JsonAnswer {
  return jsonAnswer(error, 400, headers);
}

/**
 * Whether an `Accept` header admits a concrete media type such as `text/event-stream`.
 * Wildcard ranges count, and the most specific matching range decides, so `q=0` on it refuses
 * the type. An absent header (`null`) admits nothing.
 */
export function accepts(accept: string | null, mediaType: string): boolean {
  if (accept === null) return false;
  const [type] = mediaType.split("/");
  let specificity = 0;
  let weight = 0;
  for (const range of accept.split(",")) {
    const [name = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const rank = name === mediaType ? 3 : name === `${type}/*` ? 2 : name === "*/*" ? 1 : 0;
    if (rank <= specificity) continue;
    const q = params.find((p) => p.startsWith("q="));
    const parsed = q === undefined ? 1 : Number(q.slice(2));
    specificity = rank;
    weight = Number.isNaN(parsed) ? 0 : parsed;
  }
  return weight > 0;
}

/**
 * A message as JSON text. A value JSON cannot hold (a cycle, a `BigInt`, nesting deeper than the
 * engine's stack) never escapes as an exception: a response becomes an internal error for the
 * same id, and any other message gives `undefined`, to be dropped.
 */
export function messageText(message: JsonRpcMessage): string | undefined {
  try {
    return JSON.stringify(message);
  } catch (error) {
    if (!("id" in message) || "method" in message) return undefined;
    const fallback = jsonRpcError(
      message.id,
      JSON_RPC_ERROR.internalError,
      `Internal error: the answer is not JSON-serialisable (${errorText(error)})`,
    );
    return JSON.stringify(fallback);
  }
}

/**
 * A JSON answer before it is a `Response`. `fetch` makes it one (`toResponse`); `serve()` on
 * Node writes its text straight to the socket, skipping the `Response` and its body stream
 * (about 15 µs of a Node 20 request; see design.md SP1).
 */
export class JsonAnswer {
  constructor(
    readonly status: number,
    /** Shared between answers: read, never change. `Content-Type` is not among them. */
    readonly headers: Headers,
    readonly text: string,
  ) {}
}

/** What the server answers a request with: a JSON message, or a `Response` (SSE, 202, 204). */
export type Answer = Response | JsonAnswer;

/** The answer as a `Response`, a JSON one with `Content-Type: application/json`. */
export function toResponse(answer: Answer): Response {
  if (answer instanceof Response) return answer;
  const response = new Response(answer.text, { status: answer.status, headers: answer.headers });
  // Setting on the response's own copy saves building a second Headers per answer.
  response.headers.set("content-type", "application/json");
  return response;
}

/**
 * `createMcpHandler`'s handlers also answer an `IncomingRequest` under this key, so that
 * `serve()` skips the web `Request` and `Response` (see design.md SP1). It is a registered
 * symbol, so it still matches when the two entries are bundled apart.
 */
export const ANSWER_DIRECTLY: unique symbol = Symbol.for("toolwire.mcp.answer") as never;

/** A handler that answers an `IncomingRequest` without the web objects. */
export interface AnswersDirectly {
  [ANSWER_DIRECTLY](request: IncomingRequest): Promise<Answer>;
}

/** The function that answers an `IncomingRequest`, when `handler` comes from `createMcpHandler`. */
export function directAnswer(
  handler: object,
): ((request: IncomingRequest) => Promise<Answer>) | undefined {
  const direct = (handler as Partial<AnswersDirectly>)[ANSWER_DIRECTLY];
  return typeof direct === "function" ? direct : undefined;
}

/** A JSON answer carrying one message (see `messageText` for one JSON cannot hold). */
export function jsonAnswer(body: JsonRpcMessage, status: number, headers: Headers): JsonAnswer {
  return new JsonAnswer(status, headers, messageText(body) ?? "");
}

let none: Headers | undefined;

/**
 * No extra headers: for answers to requests that are refused before CORS applies. Made on first
 * use: a `Headers` built at import time makes Node load its fetch implementation, about 20 ms
 * of every program's cold start (`npm run bench`, cold start).
 */
export function noHeaders(): Headers {
  none ??= new Headers();
  return none;
}

/**
 * An HTTP error (400, 401, 403, 404, 405, 406, 413, 415, 500, 503) whose body is a JSON-RPC
 * error with id `null`, as the Streamable HTTP transport suggests, so clients that only read
 * JSON-RPC still see why.
 */
export function httpError(status: number, message: string, headers: Headers): JsonAnswer {
  const code = status >= 500 ? JSON_RPC_ERROR.internalError : JSON_RPC_ERROR.invalidRequest;
  return jsonAnswer(jsonRpcError(null, code, message), status, headers);
}

/**
 * The answer to one POSTed request: plain JSON unless something must be sent before the result
 * (progress, a log message, a question), in which case it becomes an SSE stream from that moment.
 */
export interface ResponseChannel {
  /** Settles with the answer: an SSE `Response` at the first `send`, or at `finish`. */
  readonly response: Promise<Answer>;
  /** Sends a notification or a server-to-client request ahead of the result. */
  send(message: JsonRpcMessage): void;
  /**
   * Sends the final response and ends the exchange. Without a message, a stream just ends (a
   * cancelled request gets no response) and a not-yet-started answer becomes `fallback`.
   * `status` applies to a plain JSON answer only (default 200); a stream has already sent 200.
   */
  finish(message: JsonRpcResponse | undefined, fallback: JsonRpcResponse, status?: number): void;
  /**
   * Ends the exchange on an unexpected failure: the answer rejects (the handler makes it a 500
   * that `onError` sees), or a stream already started just ends; returns whether it rejected.
   */
  fail(error: unknown): boolean;
}

/**
 * Creates a response channel whose every answer carries `headers` (CORS, session id).
 * `onDisconnect` runs when the client stops reading an SSE answer before it ended (2026-07-28
 * treats that as cancelling the request; 2025 does not, and passes none).
 */
export function createResponseChannel(
  headers: Headers,
  onDisconnect?: () => void,
): ResponseChannel {
  let resolve: (response: Answer) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const response = new Promise<Answer>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  let stream: SseWriter | undefined;
  let done = false;
  const start = (): SseWriter => {
    if (stream) return stream;
    stream = createSseWriter(undefined, onDisconnect);
    const sseHeaders = new Headers(headers);
    sseHeaders.set("content-type", "text/event-stream");
    sseHeaders.set("cache-control", "no-cache, no-transform");
    resolve(new Response(stream.body, { status: 200, headers: sseHeaders }));
    return stream;
  };
  return {
    response,
    send(message) {
      if (!done) start().write(message);
    },
    finish(message, fallback, status = 200) {
      if (done) return;
      done = true;
      if (stream) {
        if (message) stream.write(message);
        stream.close();
        return;
      }
      resolve(jsonAnswer(message ?? fallback, status, headers));
    },
    fail(error) {
      if (done) return false;
      done = true;
      if (!stream) reject(error);
      stream?.close();
      return !stream;
    },
  };
}

/** The writing end of one `text/event-stream` response body. */
export interface SseWriter {
  readonly body: ReadableStream<Uint8Array>;
  /** Whether the client still reads (it has not disconnected and `close` was not called). */
  readonly open: boolean;
  /**
   * Writes one message as a `message` event; a no-op once closed. A notification is dropped
   * while the client lags more than the buffer limit behind. Returns whether it was queued.
   */
  write(message: JsonRpcMessage): boolean;
  /**
   * Writes one event already in SSE form (a resumable stream's, with its id); `droppable` ones
   * are dropped as notifications are. Returns whether it was queued.
   */
  raw(text: string, droppable: boolean): boolean;
  /** Writes an SSE comment line (a keep-alive that clients ignore); a no-op once closed. */
  comment(text: string): void;
  /** Ends the stream; idempotent. */
  close(): void;
}

const encoder = new TextEncoder();

/**
 * Creates an SSE writer that sends each JSON-RPC message as one event, encoded at once so a
 * streaming server flushes it without waiting for the next one.
 *
 * A client that stops reading must not make the server buffer without end: once `bufferBytes`
 * (default 1 MiB) are queued unread, notifications (progress, log messages) are dropped
 * (progress is a hint and the next one supersedes it) while requests and the final response are
 * always queued; there are only ever a few of those.
 */
export function createSseWriter(bufferBytes = 1024 * 1024, onCancel?: () => void): SseWriter {
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let open = true;
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      cancel() {
        // The client disconnected; whether that cancels the request is the caller's choice.
        open = false;
        onCancel?.();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: bufferBytes }),
  );
  return {
    body,
    get open() {
      return open;
    },
    write(message) {
      if (!open || !controller) return false;
      const notification = !("id" in message);
      if (notification && (controller.desiredSize ?? 0) <= 0) return false;
      const text = messageText(message);
      if (text === undefined) return false;
      // JSON.stringify never emits raw newlines, so one `data:` line is always enough.
      controller.enqueue(encoder.encode(`event: message\ndata: ${text}\n\n`));
      return true;
    },
    raw(text, droppable) {
      if (!open || !controller) return false;
      if (droppable && (controller.desiredSize ?? 0) <= 0) return false;
      controller.enqueue(encoder.encode(text));
      return true;
    },
    comment(text) {
      if (open && controller) controller.enqueue(encoder.encode(`: ${text}\n\n`));
    },
    close() {
      if (!open) return;
      open = false;
      controller?.close();
    },
  };
}
