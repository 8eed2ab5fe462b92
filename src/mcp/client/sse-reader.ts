/**
 * Server-sent message interface: one dispatched event of an MCP response stream.
 */
export interface SseMessage {
  /** The `event:` field, `"message"` when absent. */
  event: string;
  /** The `data:` lines joined with `\n`; `""` for a priming event that only carries an id. */
  data: string;
  /** The last event id seen so far, `""` when none. */
  id: string;
}

/**
 * Returns the events of a `text/event-stream` body one by one, following the WHATWG event stream
 * interpretation (CR, LF and CRLF line ends, comments, multi-line `data`, a leading BOM).
 * Leaving the iteration early, or an abort, cancels the body.
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
  // Hint: a custom `fetch` may hand back a body that ignores the request's signal.
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal?.reason);
  });
  aborted.catch(() => {});
  if (onAbort) signal?.addEventListener("abort", onAbort, { once: true });
  let buffer = "";
  let data: string[] = [];
  let event = "";
  let id = "";
  let first = true;
  try {
    for (;;) {
      const { value, done } = await Promise.race([reader.read(), aborted]);
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      if (first && buffer.length > 0) {
        if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
        first = false;
      }
      for (;;) {
        const end = lineEnd(buffer);
        if (end === undefined) break;
        const line = buffer.slice(0, end.at);
        buffer = buffer.slice(end.at + end.width);
        if (line === "") {
          if (data.length > 0 || event !== "") {
            yield { event: event || "message", data: data.join("\n"), id };
          }
          data = [];
          event = "";
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        let text = colon === -1 ? "" : line.slice(colon + 1);
        if (text.startsWith(" ")) text = text.slice(1);
        if (field === "data") data.push(text);
        else if (field === "event") event = text;
        else if (field === "id" && !text.includes("\0")) id = text;
      }
    }
  } finally {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    // Hint: an early exit (the response arrived, an abort) must release the connection.
    reader.cancel().catch(() => {});
  }
}

// Hint: a lone `\r` at the very end may be half of `\r\n`, so it waits for more text.
function lineEnd(buffer: string): { at: number; width: number } | undefined {
  for (let i = 0; i < buffer.length; i++) {
    const c = buffer.charCodeAt(i);
    if (c === 10) return { at: i, width: 1 };
    if (c === 13) {
      if (i + 1 === buffer.length) return undefined;
      return { at: i, width: buffer.charCodeAt(i + 1) === 10 ? 2 : 1 };
    }
  }
  return undefined;
}
