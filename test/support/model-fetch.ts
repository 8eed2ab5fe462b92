import { sseFrame, utf8 } from "./sse-wire.ts";

/**
 * Fake fetch call interface: one request a model adapter made.
 */
export interface FakeFetchCall {
  /** The URL. */
  url: string;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** The request headers. */
  headers: Record<string, string>;
  /** The signal the adapter passed to `fetch`. */
  signal: AbortSignal | undefined;
}

/**
 * Fake fetch interface: a `fetch` for the model adapters that answers from a function.
 */
export interface FakeFetch {
  /** Pass it as the adapter's `fetch` option. */
  fetch: typeof fetch;
  /** Every request, in order. */
  calls: FakeFetchCall[];
}

/**
 * Creates a fake `fetch` that records each request and answers it with `respond`.
 *
 * @param respond Makes the response of the request with the given 0-based number.
 * @returns The fetch and the recorded calls.
 */
export function createFakeFetch(
  respond: (call: FakeFetchCall, index: number) => Response,
): FakeFetch {
  const calls: FakeFetchCall[] = [];
  const fake = async (url: string | URL | Request, init?: RequestInit) => {
    const call: FakeFetchCall = {
      url: String(url),
      body: JSON.parse(String(init?.body ?? "{}")),
      headers: { ...(init?.headers as Record<string, string>) },
      signal: init?.signal ?? undefined,
    };
    calls.push(call);
    if (call.signal?.aborted) throw new DOMException("aborted", "AbortError");
    return respond(call, calls.length - 1);
  };
  return { fetch: fake as typeof fetch, calls };
}

/**
 * Returns a streaming response carrying the given SSE frames (objects become `data:` JSON).
 * With `hang`, the body then stays open until the request's signal aborts, as a slow model's
 * would, and errors with an `AbortError` at that point, as `fetch` bodies do.
 *
 * @param frames The events, as data (or `[DONE]`), optionally with an event name.
 * @param options `hang` with the request's signal; the status and headers.
 * @returns The response.
 */
export function sseResponse(
  frames: readonly (unknown | { data: unknown; event: string })[],
  options: { hang?: AbortSignal | undefined; status?: number; headers?: HeadersInit } = {},
): Response {
  const pieces = frames.map((frame) => {
    const named = frame as { data?: unknown; event?: unknown };
    const wire =
      typeof named === "object" && named !== null && typeof named.event === "string"
        ? sseFrame(named.data, named.event)
        : sseFrame(frame);
    return utf8(wire);
  });
  let next = 0;
  const { hang } = options;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces[next++];
      if (piece) return controller.enqueue(piece);
      if (!hang) return controller.close();
      return new Promise<void>((_resolve, reject) => {
        const fail = () => reject(new DOMException("The operation was aborted.", "AbortError"));
        if (hang.aborted) fail();
        hang.addEventListener("abort", fail, { once: true });
      });
    },
  });
  return new Response(body, {
    status: options.status ?? 200,
    headers: options.headers ?? { "content-type": "text/event-stream" },
  });
}

/**
 * Returns the Chat Completions chunk carrying one text delta.
 *
 * @param content The text.
 * @returns The chunk.
 */
export function openAIText(content: string): unknown {
  return { choices: [{ index: 0, delta: { content }, finish_reason: null }] };
}
