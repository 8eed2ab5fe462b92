import { describe, expect, it } from "vitest";
import { readSseMessages, type SseMessage } from "../../../src/mcp/client/sse-reader.ts";

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all(chunks: string[]): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const message of readSseMessages(body(chunks))) out.push(message);
  return out;
}

describe("readSseMessages", () => {
  it("parses events split anywhere, with CRLF, CR, comments, BOM and multi-line data", async () => {
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

  it("yields priming events with empty data and drops an unterminated event", async () => {
    expect(await all(["id: 1\ndata:\n\n", "data: partial"])).toEqual([
      { event: "message", data: "", id: "1" },
    ]);
  });

  it("rejects with the signal's reason when aborted mid-stream and cancels the body", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: () => new Promise(() => {}),
      cancel: () => {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const iterator = readSseMessages(stream, { signal: controller.signal });
    const next = iterator.next();
    controller.abort(new Error("stop"));
    await expect(next).rejects.toThrow("stop");
    expect(cancelled).toBe(true);
  });
});
