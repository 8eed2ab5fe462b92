import { raceSignal } from "../abort.ts";

/**
 * Server-sent event interface: one dispatched event, as the WHATWG `EventSource` sees it.
 */
export interface SseEvent {
  /** The `event:` field, `"message"` when absent. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last event id seen so far (it persists across events), `""` when none. */
  id: string;
}

/**
 * Options of `createSseParser`: the callbacks and the size caps. The caps are in UTF-16 code
 * units (the length of a JavaScript string, at most one per UTF-8 byte) and default to none.
 */
export interface SseParserOptions {
  /** Called for each dispatched event. */
  onEvent(event: SseEvent): void;
  /** Called with the reconnection delay of a valid `retry:` field. */
  onRetry?(ms: number): void;
  /** Longest line, line end excluded. */
  maxLineLength?: number;
  /**
   * Longest event: the lines of one event, field names and line ends included, so the cap
   * bounds what is read for one event as well as the `data` kept.
   */
  maxDataLength?: number;
}

/**
 * Server-sent events parser interface: fed decoded text in chunks of any size.
 */
export interface SseParser {
  /**
   * Parses one chunk; complete events are dispatched at once, the rest is buffered.
   *
   * @param chunk Decoded text, split anywhere (even between `\r` and `\n`).
   * @throws RangeError when a line or an event passes its cap (the message says which);
   * the parser is unusable afterwards.
   */
  feed(chunk: string): void;
  /** Discards any incomplete line or event, as the spec does at the end of the stream. */
  reset(): void;
}

/**
 * Creates a server-sent events parser following the WHATWG HTML "event stream interpretation":
 * `event`, multi-line `data`, `id` (ignored when it contains NUL), `retry` (digits only),
 * comment lines, CR / LF / CRLF line endings and a leading byte order mark.
 *
 * It keeps its state in a closure and needs no Streams API, so it runs in every runtime.
 * Without caps a hostile stream can grow one line or one event without bound; set
 * `maxLineLength` and `maxDataLength` when the peer is not trusted.
 *
 * @example
 * ```ts
 * const parser = createSseParser({ onEvent: (e) => console.log(e.data), maxDataLength: 1 << 20 });
 * parser.feed("data: hello\n\n");
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function createSseParser(options: SseParserOptions): SseParser {
  let line = "";
  let data = "";
  let eventType = "";
  let lastId = "";
  let started = false;
  let eventLength = 0;
  const maxLine = options.maxLineLength ?? Number.POSITIVE_INFINITY;
  const maxData = options.maxDataLength ?? Number.POSITIVE_INFINITY;
  // A chunk ending in `\r` may be the first half of `\r\n`; the `\n` is then dropped.
  let skipLineFeed = false;

  function processLine(text: string): void {
    if (text === "") {
      eventLength = 0;
      dispatch();
      return;
    }
    eventLength += text.length + 1;
    if (eventLength > maxData) throw overLimit("data", maxData);
    if (text.charCodeAt(0) === 0x3a) return; // a `:` comment line
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case "event":
        eventType = value;
        break;
      case "data":
        data += `${value}\n`;
        break;
      case "id":
        if (!value.includes("\0")) lastId = value;
        break;
      case "retry":
        if (/^[0-9]+$/.test(value)) options.onRetry?.(Number(value));
        break;
      // Other fields are ignored, as the spec says.
    }
  }

  function dispatch(): void {
    if (data === "") {
      eventType = "";
      return;
    }
    const event: SseEvent = { event: eventType || "message", data: data.slice(0, -1), id: lastId };
    data = "";
    eventType = "";
    options.onEvent(event);
  }

  function feed(chunk: string): void {
    let text = chunk;
    if (text === "") return;
    if (!started) {
      started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let pos = 0;
    if (skipLineFeed) {
      skipLineFeed = false;
      if (text.charCodeAt(0) === 0x0a) pos = 1;
    }
    // Both positions are cached and only searched again once passed, so a chunk with
    // many lines is scanned in linear time whichever line ending it uses.
    let cr = text.indexOf("\r", pos);
    let lf = text.indexOf("\n", pos);
    while (cr !== -1 || lf !== -1) {
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      const complete = line + text.slice(pos, end);
      line = "";
      if (complete.length > maxLine) throw overLimit("line", maxLine);
      pos = end + 1;
      if (end === cr) {
        if (pos === text.length) skipLineFeed = true;
        else if (text.charCodeAt(pos) === 0x0a) pos += 1;
      }
      if (cr !== -1 && cr < pos) cr = text.indexOf("\r", pos);
      if (lf !== -1 && lf < pos) lf = text.indexOf("\n", pos);
      processLine(complete);
    }
    line += text.slice(pos);
    if (line.length > maxLine) throw overLimit("line", maxLine);
  }

  function reset(): void {
    line = "";
    eventLength = 0;
    data = "";
    eventType = "";
    skipLineFeed = false;
  }

  return { feed, reset };
}

/**
 * Creates a transform stream from decoded text to server-sent events, for
 * `response.body.pipeThrough(new TextDecoderStream()).pipeThrough(parseSseStream())`.
 * Decode with `TextDecoderStream` (not per chunk with `TextDecoder.decode`) so that a
 * multi-byte character split across network chunks is decoded whole. An event left without
 * its closing blank line is discarded at the end; a crossed cap errors the stream with
 * a `RangeError`.
 */
/* @__NO_SIDE_EFFECTS__ */
export function parseSseStream(
  options: Omit<SseParserOptions, "onEvent"> = {},
): TransformStream<string, SseEvent> {
  let parser: SseParser | undefined;
  return new TransformStream<string, SseEvent>({
    start(controller) {
      parser = createSseParser({ ...options, onEvent: (event) => controller.enqueue(event) });
    },
    transform(chunk) {
      parser?.feed(chunk);
    },
    flush() {
      parser?.reset();
    },
  });
}

/**
 * Reads the events of a `text/event-stream` body one by one (bytes are decoded as UTF-8 across
 * chunk boundaries). A priming event that only carries an id and an empty `data:` line
 * arrives with `data: ""`. Leaving the iteration early, an abort or a crossed cap cancels the
 * body, so the connection is released.
 *
 * @param options `signal` stops reading at once, even when the body ignores it: the pending
 * read rejects with the signal's reason. The caps and `onRetry` as in `createSseParser`.
 * @throws RangeError when a line or an event's data passes its cap (the message says which);
 * the parser is unusable afterwards.
 */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array>,
  options: Omit<SseParserOptions, "onEvent"> & {
    signal?: AbortSignal | undefined;
  } = {},
): AsyncGenerator<SseEvent, void, undefined> {
  const { signal, ...limits } = options;
  signal?.throwIfAborted();
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const ready: SseEvent[] = [];
  const parser = createSseParser({ ...limits, onEvent: (event) => ready.push(event) });
  try {
    for (;;) {
      const { value, done } = await raceSignal(reader.read(), signal);
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      for (const event of ready.splice(0)) yield event;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

function overLimit(limit: "line" | "data", max: number): RangeError {
  const what = limit === "line" ? "a server-sent event line" : "a server-sent event";
  return new RangeError(`${what} exceeded ${max} characters`);
}
