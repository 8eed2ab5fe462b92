import { describe, expect, it } from "vitest";
import { jsonRpcError, jsonRpcNotification, jsonRpcResult } from "../../../src/mcp/json-rpc.ts";
import { createResponseChannel } from "../../../src/mcp/server/response-channel.ts";

const cors = new Headers({ "access-control-allow-origin": "http://localhost" });
const fallback = jsonRpcError(1, -32800, "Request cancelled");

describe("createResponseChannel", () => {
  it("answers plain JSON when nothing was sent before the result", async () => {
    const channel = createResponseChannel(cors);
    channel.finish(jsonRpcResult(1, { ok: true }), fallback);
    const response = await channel.response;
    expect(channel.streaming).toBe(false);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost");
    expect(await response.json()).toEqual(jsonRpcResult(1, { ok: true }));
  });

  it("becomes an SSE stream at the first message, with CORS and no-cache headers", async () => {
    const channel = createResponseChannel(cors);
    channel.send(jsonRpcNotification("notifications/progress", { progress: 1 }));
    const response = await channel.response;
    expect(channel.streaming).toBe(true);
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
    expect(await (await streaming.response).text()).not.toContain("-32800");
    const plain = createResponseChannel(cors);
    plain.finish(undefined, fallback);
    expect(await (await plain.response).json()).toEqual(fallback);
  });
});
