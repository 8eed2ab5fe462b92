import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  createSseParser,
  parseSseStream,
  readSseEvents,
  type SseEvent,
} from "../../src/sse/sse-parser.ts";
import { collect } from "../support/model-collect.ts";
import { byteStream, cutAt, insideChar, utf8 } from "../support/sse-wire.ts";

function parse(chunks: readonly string[]): { events: SseEvent[]; retries: number[] } {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const parser = createSseParser({
    onEvent: (event) => events.push(event),
    onRetry: (ms) => retries.push(ms),
  });
  for (const chunk of chunks) parser.feed(chunk);
  return { events, retries };
}

describe("createSseParser", () => {
  test("dispatches event, data and id, with `message` as the default event name", () => {
    const { events } = parse(["event: ping\ndata: 1\n\ndata: two\nid: 7\n\n"]);
    expect(events).toEqual([
      { event: "ping", data: "1", id: "" },
      { event: "message", data: "two", id: "7" },
    ]);
  });

  test("joins multi-line data with LF and strips exactly one leading space", () => {
    const { events } = parse(["data:a\ndata:  b\ndata\n\n"]);
    expect(events).toEqual([{ event: "message", data: "a\n b\n", id: "" }]);
  });

  test("ignores comments, unknown fields and events without data", () => {
    const { events } = parse([": keep-alive\nfoo: bar\nevent: empty\n\ndata: x\n\n"]);
    expect(events).toEqual([{ event: "message", data: "x", id: "" }]);
  });

  test("accepts CR, LF and CRLF line endings, also with CRLF split across chunks", () => {
    const expected = [
      { event: "a", data: "1", id: "" },
      { event: "b", data: "2", id: "" },
      { event: "c", data: "3", id: "" },
    ];
    expect(
      parse(["event: a\rdata: 1\r\revent: b\ndata: 2\n\nevent: c\r\ndata: 3\r\n\r\n"]).events,
    ).toEqual(expected);
    expect(
      parse([
        "event: a\r",
        "\ndata: 1\r",
        "\n\r",
        "\nevent: b\r\ndata: 2\r\n\r\n",
        "event: c\ndata: 3\n\n",
      ]).events,
    ).toEqual(expected);
  });

  test("strips a leading byte order mark once", () => {
    const { events } = parse(["\uFEFFdata: 1\n\n", "\uFEFFdata: 2\n\n"]);
    expect(events.map((e) => e.data)).toEqual(["1"]);
  });

  test("keeps the last id across events and ignores an id containing NUL", () => {
    const { events } = parse(["id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid\ndata: d\n\n"]);
    expect(events.map((e) => e.id)).toEqual(["1", "1", "1", ""]);
  });

  test("reports retry only when it is all ASCII digits", () => {
    expect(parse(["retry: 1500\n\nretry: 1.5\n\nretry: x\n\n"]).retries).toEqual([1500]);
  });

  test("dispatches an empty data field as an empty string", () => {
    expect(parse(["data\n\n", "data:\n\n"]).events.map((e) => e.data)).toEqual(["", ""]);
  });

  test("gives the same events however the text is split", () => {
    const text = 'event: a\r\ndata: {"x":"é€"}\r\n\r\n: c\ndata: 1\ndata: 2\n\nid: 9\rdata: z\r\r';
    const whole = parse([text]).events;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 12 }), (cuts) => {
        const sorted = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks = [0, ...sorted].map((start, i) =>
          text.slice(start, sorted[i] ?? text.length),
        );
        expect(parse(chunks).events).toEqual(whole);
      }),
    );
  });

  test("discards a pending event on reset", () => {
    const events: SseEvent[] = [];
    const parser = createSseParser({ onEvent: (e) => events.push(e) });
    parser.feed("data: half");
    parser.reset();
    parser.feed("\n\ndata: next\n\n");
    expect(events.map((e) => e.data)).toEqual(["next"]);
  });
});

describe("parseSseStream", () => {
  test("decodes a multi-byte character split across network chunks", async () => {
    const text = 'data: {"t":"naïve ☕ 🎉"}\n\ndata: 2\n\n';
    const bytes = utf8(text);
    const pieces = cutAt(bytes, [
      insideChar(text, "ï"),
      insideChar(text, "☕"),
      insideChar(text, "🎉") + 2,
    ]);
    const events = byteStream(pieces)
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(parseSseStream());
    const { events: out, error } = await collect(events);
    expect(error).toBeUndefined();
    expect(out.map((e) => e.data)).toEqual(['{"t":"naïve ☕ 🎉"}', "2"]);
  });

  test("drops an event left without its blank line at the end of the stream", async () => {
    const events = byteStream([utf8("data: 1\n\ndata: 2\n")])
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(parseSseStream());
    expect((await collect(events)).events.map((e) => e.data)).toEqual(["1"]);
  });

  test("reports retry through the option", async () => {
    const retries: number[] = [];
    const events = byteStream([utf8("retry: 20\n\n")])
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(parseSseStream({ onRetry: (ms) => retries.push(ms) }));
    await collect(events);
    expect(retries).toEqual([20]);
  });
});

describe("size caps", () => {
  test("a line past maxLineLength throws RangeError, even before it ends", () => {
    const parser = createSseParser({ onEvent: () => {}, maxLineLength: 10 });
    parser.feed("data: 1234\n");
    expect(() => parser.feed("data: 12345")).toThrow(RangeError);
    const endless = createSseParser({ onEvent: () => {}, maxLineLength: 10 });
    expect(() => {
      for (let i = 0; i < 5; i++) endless.feed("xxxx");
    }).toThrow(/line exceeded 10 characters/);
  });

  test("an event past maxDataLength throws RangeError, across many short lines", () => {
    const events: SseEvent[] = [];
    const parser = createSseParser({ onEvent: (e) => events.push(e), maxDataLength: 24 });
    parser.feed("data: 1234\ndata: 567\n\n");
    expect(events.map((e) => e.data)).toEqual(["1234\n567"]);
    parser.feed(": c\n: c\n: c\n: c\n: c\n\n");
    expect(() => parser.feed("data: 1234\ndata: 5678\ndata: 9\n")).toThrow(
      /server-sent event exceeded 24 characters/,
    );
  });

  test("parseSseStream errors the stream at a cap", async () => {
    const events = byteStream([utf8(`data: ${"x".repeat(100)}\n\n`)])
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(parseSseStream({ maxLineLength: 50 }));
    expect((await collect(events)).error).toBeInstanceOf(RangeError);
  });
});

function body(chunks: string[]): ReadableStream<Uint8Array> {
  return byteStream(chunks.map((chunk) => utf8(chunk)));
}

async function all(chunks: string[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of readSseEvents(body(chunks))) out.push(event);
  return out;
}

describe("readSseEvents", () => {
  test("parses events split anywhere, with CRLF, CR, comments, BOM and multi-line data", async () => {
    const text =
      '\uFEFF: hello\r\nid: 7\r\ndata: {"a":\r\ndata: 1}\r\n\r\nevent: ping\rdata:x\r\rdata: last\n\n';
    const expected = [
      { event: "message", data: '{"a":\n1}', id: "7" },
      { event: "ping", data: "x", id: "7" },
      { event: "message", data: "last", id: "7" },
    ];
    expect(await all([text])).toEqual(expected);
    expect(await all(text.split(""))).toEqual(expected);
  });

  test("decodes a multi-byte character split across chunks", async () => {
    const text = "data: ☕\n\n";
    const out: SseEvent[] = [];
    const pieces = cutAt(utf8(text), [insideChar(text, "☕")]);
    for await (const event of readSseEvents(byteStream(pieces))) out.push(event);
    expect(out.map((e) => e.data)).toEqual(["☕"]);
  });

  test("yields priming events with empty data and drops an unterminated event", async () => {
    expect(await all(["id: 1\ndata:\n\n", "data: partial"])).toEqual([
      { event: "message", data: "", id: "1" },
    ]);
  });

  test("rejects with the signal's reason when aborted mid-stream and cancels the body", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: () => new Promise(() => {}),
      cancel: () => {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const iterator = readSseEvents(stream, { signal: controller.signal });
    const next = iterator.next();
    controller.abort(new Error("stop"));
    await expect(next).rejects.toThrow("stop");
    expect(cancelled).toBe(true);
  });

  test("an endless line fails with RangeError and cancels the body", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(utf8("x".repeat(1024))),
      cancel: () => {
        cancelled = true;
      },
    });
    const iterator = readSseEvents(stream, { maxLineLength: 64 * 1024 });
    await expect(iterator.next()).rejects.toThrow(RangeError);
    expect(cancelled).toBe(true);
  });
});
