import { describe, expect, it } from "vitest";
import { jsonRpcNotification, jsonRpcRequest, jsonRpcResult } from "../../../src/mcp/json-rpc.ts";
import { createSseStream } from "../../../src/mcp/server/sse-stream.ts";

const progress = (n: number) => jsonRpcNotification("notifications/progress", { progress: n });

describe("createSseStream", () => {
  it("writes each message as one `message` event and closes once", async () => {
    const stream = createSseStream();
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
    const stream = createSseStream(256);
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
    const stream = createSseStream();
    await stream.body.cancel();
    expect(stream.open).toBe(false);
    expect(stream.write(jsonRpcResult(1, {}))).toBe(false);
  });

  it("skips a notification JSON cannot hold instead of throwing into the tool", () => {
    const stream = createSseStream();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(stream.write(jsonRpcNotification("notifications/message", { data: cyclic }))).toBe(
      false,
    );
  });
});
