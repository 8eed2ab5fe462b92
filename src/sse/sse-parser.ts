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
 * Server-sent events parser options interface.
 */
export interface SseParserOptions {
  /** Called for each dispatched event. */
  onEvent(event: SseEvent): void;
  /** Called with the reconnection delay of a valid `retry:` field. */
  onRetry?(ms: number): void;
}

/**
 * Server-sent events parser interface: fed decoded text in chunks of any size.
 */
export interface SseParser {
  /**
   * Parses one chunk; complete events are dispatched at once, the rest is buffered.
   *
   * @param chunk Decoded text, split anywhere (even between `\r` and `\n`).
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
 *
 * @param options The event and retry callbacks.
 * @returns The parser.
 */
/* @__NO_SIDE_EFFECTS__ */
export function createSseParser(options: SseParserOptions): SseParser {
  let line = "";
  let data = "";
  let eventType = "";
  let lastId = "";
  let started = false;
  // Hint: a chunk ending in `\r` may be the first half of `\r\n`; the `\n` is then dropped.
  let skipLineFeed = false;

  function processLine(text: string): void {
    if (text === "") {
      dispatch();
      return;
    }
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
    // Hint: both positions are cached and only searched again once passed, so a chunk with
    // many lines is scanned in linear time whichever line ending it uses.
    let cr = text.indexOf("\r", pos);
    let lf = text.indexOf("\n", pos);
    while (cr !== -1 || lf !== -1) {
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      const complete = line + text.slice(pos, end);
      line = "";
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
  }

  function reset(): void {
    line = "";
    data = "";
    eventType = "";
    skipLineFeed = false;
  }

  return { feed, reset };
}

/**
 * Creates a transform stream from decoded text to server-sent events, for
 * `response.body.pipeThrough(new TextDecoderStream()).pipeThrough(createSseStream())`.
 *
 * Hint: decode with `TextDecoderStream` (not per chunk with `TextDecoder.decode`) so that a
 * multi-byte character split across network chunks is decoded whole.
 *
 * @param options Called with the reconnection delay of a valid `retry:` field.
 * @returns The stream; an event left without its closing blank line is discarded at the end.
 */
/* @__NO_SIDE_EFFECTS__ */
export function createSseStream(
  options: { onRetry?(ms: number): void } = {},
): TransformStream<string, SseEvent> {
  let parser: SseParser | undefined;
  return new TransformStream<string, SseEvent>({
    start(controller) {
      const { onRetry } = options;
      parser = createSseParser(
        onRetry
          ? { onEvent: (event) => controller.enqueue(event), onRetry }
          : { onEvent: (event) => controller.enqueue(event) },
      );
    },
    transform(chunk) {
      parser?.feed(chunk);
    },
    flush() {
      parser?.reset();
    },
  });
}
