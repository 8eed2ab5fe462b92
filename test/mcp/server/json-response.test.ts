import { describe, expect, it } from "vitest";
import { jsonRpcNotification, jsonRpcResult } from "../../../src/mcp/json-rpc.ts";
import { httpError, jsonResponse, messageText } from "../../../src/mcp/server/json-response.ts";

describe("json-response", () => {
  it("answers JSON with the given status and headers, leaving the headers untouched", async () => {
    const headers = new Headers({ "access-control-allow-origin": "http://localhost" });
    const response = jsonResponse(jsonRpcResult(1, { ok: true }), 200, headers);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost");
    expect(headers.has("content-type")).toBe(false);
    expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 1, result: { ok: true } });
  });

  it("makes HTTP errors JSON-RPC errors with id null", async () => {
    const client = await httpError(413, "too big", new Headers()).json();
    expect(client).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "too big" },
    });
    const server = await httpError(500, "oops", new Headers()).json();
    expect(server.error.code).toBe(-32603);
  });

  it("turns a response JSON cannot hold into an internal error for the same id", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const text = messageText(jsonRpcResult(5, { structuredContent: cyclic }));
    expect(JSON.parse(text as string)).toMatchObject({ id: 5, error: { code: -32603 } });
    const big = jsonResponse(jsonRpcResult(6, { n: 1n }), 200, new Headers());
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
