/**
 * Incoming request interface: the parts of an HTTP request the server reads. A `Request` gives
 * one; so does `fetch(url, init)` with a string body, without building a `Request` and its body
 * stream, which is most of the cost of an in-process client such as `connectMcp({ fetch })`.
 */
export interface IncomingRequest {
  /** The method, upper-cased for the standard ones as `Request` does. */
  readonly method: string;
  /** The absolute URL. */
  readonly url: string;
  /** The headers; only read. */
  readonly headers: Headers;
  /** The body: text already in memory, a stream, or `null` without one. */
  readonly body: string | ReadableStream<Uint8Array> | null;
  /**
   * Returns the request as a `Request` (for the `authorize` hook), built on first use.
   *
   * @returns The request.
   */
  toRequest(): Request;
}

const NORMALIZED = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);

/**
 * Returns what the server reads of `fetch`'s arguments. A `Request` is used as it is; a URL with
 * an `init` whose body is a string (or absent) is read directly, and anything else (a stream or
 * a `FormData` body) becomes a `Request` first, so both answer the same way.
 *
 * @param input A `Request`, or the URL.
 * @param init The request's options, as for the global `fetch`.
 * @returns The request's parts.
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
  // Hint: the router parses the URL once; a relative one fails there as `new Request` would.
  const url = typeof input === "string" ? input : input.href;
  const headers =
    init?.headers instanceof Headers ? init.headers : new Headers(init?.headers ?? undefined);
  let request: Request | undefined;
  return {
    method,
    url,
    headers,
    body,
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
    toRequest: () => request,
  };
}
