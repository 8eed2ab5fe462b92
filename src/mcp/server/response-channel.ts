import type { JsonRpcMessage, JsonRpcResponse } from "../json-rpc.ts";
import { jsonResponse } from "./json-response.ts";
import { createSseStream, type SseStream } from "./sse-stream.ts";

/**
 * Response channel interface: the answer to one POSTed request, which stays plain JSON unless
 * something must be sent before the result (progress, an elicitation), in which case it
 * becomes an SSE stream from that moment.
 */
export interface ResponseChannel {
  /** Settles with the HTTP response: at the first `send`, or at `finish`. */
  readonly response: Promise<Response>;
  /** Whether the answer is an SSE stream. */
  readonly streaming: boolean;
  /** Sends a notification or a server-to-client request ahead of the result. */
  send(message: JsonRpcMessage): void;
  /**
   * Sends the final response and ends the exchange. Without a message, a stream just ends (a
   * cancelled request gets no response) and a not-yet-started answer becomes `fallback`.
   */
  finish(message: JsonRpcResponse | undefined, fallback: JsonRpcResponse): void;
}

/**
 * Creates a response channel.
 *
 * @param headers Headers every response carries (CORS, session id).
 * @returns The channel.
 */
export function createResponseChannel(headers: Headers): ResponseChannel {
  let resolve: (response: Response) => void = () => {};
  const response = new Promise<Response>((r) => {
    resolve = r;
  });
  let stream: SseStream | undefined;
  let done = false;
  const start = (): SseStream => {
    if (stream) return stream;
    stream = createSseStream();
    const sseHeaders = new Headers(headers);
    sseHeaders.set("content-type", "text/event-stream");
    sseHeaders.set("cache-control", "no-cache, no-transform");
    resolve(new Response(stream.body, { status: 200, headers: sseHeaders }));
    return stream;
  };
  return {
    response,
    get streaming() {
      return stream !== undefined;
    },
    send(message) {
      if (!done) start().write(message);
    },
    finish(message, fallback) {
      if (done) return;
      done = true;
      if (stream) {
        if (message) stream.write(message);
        stream.close();
        return;
      }
      resolve(jsonResponse(message ?? fallback, 200, headers));
    },
  };
}
