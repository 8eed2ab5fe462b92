import type { JsonRpcMessage } from "../json-rpc.ts";

/** SSE stream interface: the writing end of one `text/event-stream` response body. */
export interface SseStream {
  /** The response body. */
  readonly body: ReadableStream<Uint8Array>;
  /** Whether the client still reads (it has not disconnected and `close` was not called). */
  readonly open: boolean;
  /** Writes one message as a `message` event; a no-op once closed. */
  write(message: JsonRpcMessage): void;
  /** Ends the stream; idempotent. */
  close(): void;
}

/**
 * Creates an SSE stream that writes each JSON-RPC message as one event, encoded at once so a
 * streaming server flushes it without waiting for the next one.
 *
 * @returns The stream.
 */
export function createSseStream(): SseStream {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      // Hint: the client disconnected; per the transport spec that is not a cancellation.
      open = false;
    },
  });
  return {
    body,
    get open() {
      return open;
    },
    write(message) {
      if (!open) return;
      // Hint: JSON.stringify never emits raw newlines, so one `data:` line is always enough.
      controller?.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
    },
    close() {
      if (!open) return;
      open = false;
      controller?.close();
    },
  };
}
