import { describe, expect, it } from "vitest";
import {
  type AwaitedResponse,
  routeMessage,
  type ServerMessage,
} from "../../../src/mcp/client/route-message.ts";
import { caught } from "../../support/caught.ts";

const awaiting = (seen: ServerMessage[] = []): AwaitedResponse => ({
  id: 3,
  method: "tools/call",
  onMessage: (message) => seen.push(message),
});

describe("routeMessage", () => {
  it("returns the result of the awaited id only", () => {
    const awaited = awaiting();
    expect(routeMessage({ jsonrpc: "2.0", id: 4, result: { other: 1 } }, awaited)).toBeUndefined();
    expect(routeMessage({ jsonrpc: "2.0", id: "3", result: {} }, awaited)).toBeUndefined();
    expect(routeMessage({ jsonrpc: "2.0", id: 3, result: { ok: true } }, awaited)).toEqual({
      ok: true,
    });
  });

  it("throws protocol with the server's message and code for the awaited id's error", async () => {
    const awaited = awaiting();
    const error = await caught(() =>
      routeMessage({ jsonrpc: "2.0", id: 3, error: { code: -32602, message: "bad" } }, awaited),
    );
    expect(error.data).toEqual({
      type: "protocol",
      message: "tools/call failed: bad (JSON-RPC error -32602)",
    });
  });

  it("notes the first id-null error without failing, and ignores other ids' errors", () => {
    const awaited = awaiting();
    const other = { jsonrpc: "2.0", id: 8, error: { code: -1, message: "not ours" } };
    const first = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } };
    const second = { jsonrpc: "2.0", id: null, error: { code: -32600, message: "later" } };
    for (const message of [other, first, second]) {
      expect(routeMessage(message, awaited)).toBeUndefined();
    }
    expect(awaited.stray).toEqual({ code: -32700, message: "Parse error" });
  });

  it("hands requests and notifications to onMessage, in order", () => {
    const seen: ServerMessage[] = [];
    const awaited = awaiting(seen);
    routeMessage({ jsonrpc: "2.0", method: "notifications/progress", params: {} }, awaited);
    routeMessage({ jsonrpc: "2.0", id: "s1", method: "ping" }, awaited);
    expect(seen.map((m) => [m.type, m.message.method])).toEqual([
      ["notification", "notifications/progress"],
      ["request", "ping"],
    ]);
    expect(() =>
      routeMessage({ jsonrpc: "2.0", method: "x" }, { id: 1, method: "m" }),
    ).not.toThrow();
  });

  it("throws protocol for a message that is not JSON-RPC", async () => {
    for (const value of [null, [], { jsonrpc: "1.0", id: 3, result: {} }, { id: 3 }]) {
      const error = await caught(() => routeMessage(value, awaiting()));
      expect(error.type).toBe("protocol");
      expect(error.message).toContain("tools/call: the server sent Invalid Request");
    }
  });
});
