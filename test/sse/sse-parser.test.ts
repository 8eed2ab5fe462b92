import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createSseParser, createSseStream, type SseEvent } from "../../src/sse/sse-parser.ts";
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

describe("createSseStream", () => {
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
      .pipeThrough(createSseStream());
    const { events: out, error } = await collect(events);
    expect(error).toBeUndefined();
    expect(out.map((e) => e.data)).toEqual(['{"t":"naïve ☕ 🎉"}', "2"]);
  });

  test("drops an event left without its blank line at the end of the stream", async () => {
    const events = byteStream([utf8("data: 1\n\ndata: 2\n")])
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(createSseStream());
    expect((await collect(events)).events.map((e) => e.data)).toEqual(["1"]);
  });

  test("reports retry through the option", async () => {
    const retries: number[] = [];
    const events = byteStream([utf8("retry: 20\n\n")])
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(createSseStream({ onRetry: (ms) => retries.push(ms) }));
    await collect(events);
    expect(retries).toEqual([20]);
  });
});
