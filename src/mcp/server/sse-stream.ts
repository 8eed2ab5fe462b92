import type { JsonRpcMessage } from "../json-rpc.ts";
import { messageText } from "./json-response.ts";

/** SSE stream interface: the writing end of one `text/event-stream` response body. */
export interface SseStream {
  /** The response body. */
  readonly body: ReadableStream<Uint8Array>;
  /** Whether the client still reads (it has not disconnected and `close` was not called). */
  readonly open: boolean;
  /**
   * Writes one message as a `message` event; a no-op once closed. A notification is dropped
   * while the client lags more than the buffer limit behind.
   *
   * @returns Whether the message was queued.
   */
  write(message: JsonRpcMessage): boolean;
  /** Ends the stream; idempotent. */
  close(): void;
}

/** How many unread bytes a stream holds before it drops notifications; default 1 MiB. */
const SSE_BUFFER_BYTES = 1024 * 1024;

const encoder = new TextEncoder();

/**
 * Creates an SSE stream that writes each JSON-RPC message as one event, encoded at once so a
 * streaming server flushes it without waiting for the next one.
 *
 * A client that stops reading must not make the server buffer without end: once `bufferBytes`
 * are queued unread, notifications (progress, log messages) are dropped — progress is a hint and
 * the next one supersedes it — while requests and the final response are always queued; there
 * are only ever a few of those.
 *
 * @param bufferBytes The unread bytes beyond which notifications are dropped.
 * @returns The stream.
 */
export function createSseStream(bufferBytes = SSE_BUFFER_BYTES): SseStream {
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let open = true;
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      cancel() {
        // Hint: the client disconnected; per the transport spec that is not a cancellation.
        open = false;
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
      // Hint: JSON.stringify never emits raw newlines, so one `data:` line is always enough.
      controller.enqueue(encoder.encode(`event: message\ndata: ${text}\n\n`));
      return true;
    },
    close() {
      if (!open) return;
      open = false;
      controller?.close();
    },
  };
}
