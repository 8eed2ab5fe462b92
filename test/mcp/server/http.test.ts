import { describe, expect, it } from "vitest";
import {
  jsonRpcError,
  jsonRpcNotification,
  jsonRpcRequest,
  jsonRpcResult,
} from "../../../src/mcp/json-rpc.ts";
import {
  accepts,
  createResponseChannel,
  createSseWriter,
  httpError,
  incomingRequest,
  jsonAnswer,
  messageText,
  readBody,
  toResponse,
} from "../../../src/mcp/server/http.ts";

// The HTTP edge: what is read of a request, the bounded body read, Accept negotiation, and the
// three kinds of answer (one JSON message, an HTTP error, an SSE stream).

describe("accepts", () => {
  it("admits an exact type, its subtype wildcard and */*", () => {
    expect(accepts("application/json", "application/json")).toBe(true);
    expect(accepts("text/*", "text/event-stream")).toBe(true);
    expect(accepts("*/*", "text/event-stream")).toBe(true);
    expect(accepts("Application/JSON ; charset=utf-8", "application/json")).toBe(true);
  });

  it("refuses a missing header, another type, and q=0 on the most specific range", () => {
    expect(accepts(null, "application/json")).toBe(false);
    expect(accepts("text/html", "application/json")).toBe(false);
    expect(accepts("*/*, application/json;q=0", "application/json")).toBe(false);
    expect(accepts("text/*;q=0, text/event-stream", "text/event-stream")).toBe(true);
    expect(accepts("application/json;q=abc", "application/json")).toBe(false);
  });
});

describe("incomingRequest", () => {
  it("reads a Request as it is", () => {
    const request = new Request("http://localhost/mcp", { method: "POST", body: "{}" });
    const incoming = incomingRequest(request);
    expect(incoming.method).toBe("POST");
    expect(incoming.url).toBe("http://localhost/mcp");
    expect(incoming.toRequest()).toBe(request);
  });

  it("reads a URL and a string body without a Request, normalising the method", async () => {
    const incoming = incomingRequest(new URL("http://localhost/mcp"), {
      method: "post",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(incoming.method).toBe("POST");
    expect(incoming.body).toBe('{"a":1}');
    expect(incoming.headers.get("content-type")).toBe("application/json");
    const request = incoming.toRequest();
    expect(request).toBe(incoming.toRequest());
    expect(await request.text()).toBe('{"a":1}');
    expect(incomingRequest("http://localhost/mcp", { method: "patch" }).method).toBe("patch");
  });

  it("builds a Request for other bodies and refuses what a Request refuses", async () => {
    const bytes = incomingRequest("http://localhost/mcp", {
      method: "POST",
      body: new TextEncoder().encode("hi"),
    });
    expect(bytes.body).toBeInstanceOf(ReadableStream);
    expect(() => incomingRequest("http://localhost/mcp", { method: "GET", body: "x" })).toThrow(
      TypeError,
    );
    expect(() =>
      incomingRequest("http://localhost/mcp", { headers: { "bad header": "x" } }),
    ).toThrow(TypeError);
  });

  it("calls onAbort's listener when the request's or the init's signal aborts, until it stops", () => {
    for (const make of [
      (signal: AbortSignal) => incomingRequest(new Request(URL_, { signal })),
      (signal: AbortSignal) => incomingRequest(URL_, { method: "POST", body: "{}", signal }),
    ]) {
      const controller = new AbortController();
      const incoming = make(controller.signal);
      let calls = 0;
      incoming.onAbort(() => calls++);
      const stop = incoming.onAbort(() => calls++);
      stop();
      controller.abort();
      expect(calls).toBe(1);
    }
    // Without a signal nothing can abort it; listening costs nothing.
    const unsignalled = incomingRequest(URL_, { method: "POST", body: "{}" });
    expect(() => unsignalled.onAbort(() => {})()).not.toThrow();
  });
});

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

describe("JSON answers", () => {
  it("answers JSON with the given status and headers, leaving the headers untouched", async () => {
    const headers = new Headers({ "access-control-allow-origin": "http://localhost" });
    const response = toResponse(jsonAnswer(jsonRpcResult(1, { ok: true }), 200, headers));
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost");
    expect(headers.has("content-type")).toBe(false);
    expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 1, result: { ok: true } });
  });

  it("makes HTTP errors JSON-RPC errors with id null", async () => {
    const client = await toResponse(httpError(413, "too big", new Headers())).json();
    expect(client).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "too big" },
    });
    const server = await toResponse(httpError(500, "oops", new Headers())).json();
    expect(server.error.code).toBe(-32603);
  });

  it("turns a response JSON cannot hold into an internal error for the same id", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const text = messageText(jsonRpcResult(5, { structuredContent: cyclic }));
    expect(JSON.parse(text as string)).toMatchObject({ id: 5, error: { code: -32603 } });
    const big = toResponse(jsonAnswer(jsonRpcResult(6, { n: 1n }), 200, new Headers()));
    expect(await big.json()).toMatchObject({ id: 6, error: { code: -32603 } });
  });

  it("drops a notification JSON cannot hold", () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(messageText(jsonRpcNotification("notifications/message", { data: deep }))).toBe(
      undefined,
    );
  });
});

const cors = new Headers({ "access-control-allow-origin": "http://localhost" });
const fallback = jsonRpcError(1, -32800, "Request cancelled");

describe("createResponseChannel", () => {
  it("answers plain JSON when nothing was sent before the result", async () => {
    const channel = createResponseChannel(cors);
    channel.finish(jsonRpcResult(1, { ok: true }), fallback);
    const response = toResponse(await channel.response);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost");
    expect(await response.json()).toEqual(jsonRpcResult(1, { ok: true }));
  });

  it("becomes an SSE stream at the first message, with CORS and no-cache headers", async () => {
    const channel = createResponseChannel(cors);
    channel.send(jsonRpcNotification("notifications/progress", { progress: 1 }));
    const response = toResponse(await channel.response);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toContain("no-cache");
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost");
    channel.finish(jsonRpcResult(1, {}), fallback);
    channel.send(jsonRpcNotification("late"));
    channel.finish(jsonRpcResult(1, { again: true }), fallback);
    const text = await response.text();
    expect(text.match(/^data: /gm)).toHaveLength(2);
    expect(text).not.toContain("late");
    expect(text).not.toContain("again");
  });

  it("ends a stream without a response, or answers the fallback, when there is no message", async () => {
    const streaming = createResponseChannel(cors);
    streaming.send(jsonRpcNotification("notifications/progress", { progress: 1 }));
    streaming.finish(undefined, fallback);
    expect(await toResponse(await streaming.response).text()).not.toContain("-32800");
    const plain = createResponseChannel(cors);
    plain.finish(undefined, fallback);
    expect(await toResponse(await plain.response).json()).toEqual(fallback);
  });
});

const progress = (n: number) => jsonRpcNotification("notifications/progress", { progress: n });

describe("createSseWriter", () => {
  it("writes each message as one `message` event and closes once", async () => {
    const stream = createSseWriter();
    expect(stream.write(progress(1))).toBe(true);
    expect(stream.write(jsonRpcResult(1, { line: "a\nb" }))).toBe(true);
    stream.close();
    stream.close();
    expect(stream.open).toBe(false);
    expect(stream.write(progress(2))).toBe(false);
    const text = await new Response(stream.body).text();
    expect(text).toBe(
      `event: message\ndata: ${JSON.stringify(progress(1))}\n\n` +
        `event: message\ndata: ${JSON.stringify(jsonRpcResult(1, { line: "a\nb" }))}\n\n`,
    );
  });

  it("drops notifications for a client that stops reading, but never requests or the result", async () => {
    const stream = createSseWriter(256);
    let queued = 0;
    for (let i = 0; i < 1000; i++) if (stream.write(progress(i))) queued++;
    expect(queued).toBeLessThan(10);
    expect(stream.write(jsonRpcRequest("e1", "elicitation/create", {}))).toBe(true);
    expect(stream.write(jsonRpcResult(1, {}))).toBe(true);
    stream.close();
    const text = await new Response(stream.body).text();
    expect(text).toContain("elicitation/create");
    expect(text).toContain('"result"');
  });

  it("stops writing once the client disconnects", async () => {
    const stream = createSseWriter();
    await stream.body.cancel();
    expect(stream.open).toBe(false);
    expect(stream.write(jsonRpcResult(1, {}))).toBe(false);
  });

  it("skips a notification JSON cannot hold instead of throwing into the tool", () => {
    const stream = createSseWriter();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(stream.write(jsonRpcNotification("notifications/message", { data: cyclic }))).toBe(
      false,
    );
  });
});
