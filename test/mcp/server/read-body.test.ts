import { describe, expect, it } from "vitest";
import { incomingRequest } from "../../../src/mcp/server/incoming-request.ts";
import { readBody } from "../../../src/mcp/server/read-body.ts";

const URL_ = "http://localhost/mcp";
const streamOf = (chunks: Uint8Array[], endless = false) =>
  new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else if (endless) controller.enqueue(new Uint8Array(1024));
      else controller.close();
    },
  });
const streamed = (body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  incomingRequest(
    new Request(URL_, { method: "POST", body, headers, duplex: "half" } as RequestInit),
  );

describe("readBody", () => {
  it("measures a string body in UTF-8 bytes, not characters", async () => {
    const text = "é".repeat(6);
    const ok = await readBody(incomingRequest(URL_, { method: "POST", body: text }), 12);
    expect(ok).toEqual({ type: "text", text });
    const over = await readBody(incomingRequest(URL_, { method: "POST", body: text }), 11);
    expect(over.type).toBe("too_large");
    const emoji = await readBody(incomingRequest(URL_, { method: "POST", body: "😀" }), 3);
    expect(emoji.type).toBe("too_large");
  });

  it("refuses a declared length over the limit without reading", async () => {
    const request = streamed(streamOf([], true), { "content-length": "999999" });
    expect((await readBody(request, 100)).type).toBe("too_large");
  });

  it("stops a stream that lies about its length, or never ends, at the limit", async () => {
    const lying = streamed(streamOf([], true), { "content-length": "10" });
    expect((await readBody(lying, 4096)).type).toBe("too_large");
  });

  it("joins chunks and decodes UTF-8 split across them", async () => {
    const bytes = new TextEncoder().encode('{"a":"é"}');
    const request = streamed(streamOf([bytes.slice(0, 7), bytes.slice(7)]));
    expect(await readBody(request, 100)).toEqual({ type: "text", text: '{"a":"é"}' });
  });

  it("reports invalid UTF-8 and a body that fails mid-way", async () => {
    const invalid = streamed(streamOf([new Uint8Array([0x7b, 0xff, 0x7d])]));
    expect((await readBody(invalid, 100)).type).toBe("not_utf8");
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error("reset"));
      },
    });
    expect((await readBody(streamed(broken), 100)).type).toBe("failed");
  });

  it("reads a missing body as empty text", async () => {
    expect(await readBody(incomingRequest(URL_, { method: "POST" }), 10)).toEqual({
      type: "text",
      text: "",
    });
  });
});
