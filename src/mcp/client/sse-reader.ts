import { createSseParser, type SseEvent } from "../../sse/sse-parser.ts";

/**
 * Server-sent message type: one dispatched event of an MCP response stream.
 */
export type SseMessage = SseEvent;

/**
 * Returns the events of a `text/event-stream` body one by one, parsed by `createSseParser`
 * (WHATWG event stream interpretation: CR, LF and CRLF line ends, comments, multi-line `data`,
 * a leading BOM). A priming event that only carries an id and an empty `data:` line arrives with
 * `data: ""`. Leaving the iteration early, or an abort, cancels the body.
 *
 * @param body The response body.
 * @param options `signal`: stops reading; the pending read rejects with the signal's reason.
 * @returns The events, in order.
 */
export async function* readSseMessages(
  body: ReadableStream<Uint8Array>,
  options: { signal?: AbortSignal } = {},
): AsyncGenerator<SseMessage, void, undefined> {
  const { signal } = options;
  signal?.throwIfAborted();
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const ready: SseMessage[] = [];
  const parser = createSseParser({ onEvent: (event) => ready.push(event) });
  // Hint: a custom `fetch` may hand back a body that ignores the request's signal.
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal?.reason);
  });
  aborted.catch(() => {});
  if (onAbort) signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      const { value, done } = await Promise.race([reader.read(), aborted]);
      // Hint: an event left without its closing blank line is dropped, as the spec says.
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      for (const event of ready.splice(0)) yield event;
    }
  } finally {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    // Hint: an early exit (the response arrived, an abort) must release the connection.
    reader.cancel().catch(() => {});
  }
}
