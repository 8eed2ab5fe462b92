import { describe, expect, it } from "vitest";
import {
  classifyJsonRpc,
  JSON_RPC_ERROR,
  jsonRpcError,
  jsonRpcNotification,
  jsonRpcRequest,
  jsonRpcResult,
  nestsDeeperThan,
  parseJsonRpc,
} from "../../src/mcp/json-rpc.ts";

describe("parseJsonRpc", () => {
  it("gives a parse error with id null for text that is not JSON", () => {
    expect(parseJsonRpc("{")).toEqual({
      type: "parse_error",
      error: { jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.any(String) } },
    });
  });

  it("sorts single messages and batches", () => {
    expect(parseJsonRpc(JSON.stringify(jsonRpcRequest(1, "ping")))).toEqual({
      type: "single",
      message: { type: "request", message: { jsonrpc: "2.0", id: 1, method: "ping" } },
    });
    const batch = parseJsonRpc(JSON.stringify([jsonRpcNotification("a"), 5]));
    expect(batch.type === "batch" && batch.messages.map((m) => m.type)).toEqual([
      "notification",
      "invalid",
    ]);
    const empty = parseJsonRpc("[]");
    expect(empty.type === "batch" && empty.messages[0]?.type).toBe("invalid");
  });
});

describe("nestsDeeperThan", () => {
  it("counts objects and arrays, the outermost as level 1", () => {
    expect(nestsDeeperThan('{"a":[{"b":[]}]}', 4)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[]}]}', 3)).toBe(true);
    expect(nestsDeeperThan("[[],[],[[]]]", 3)).toBe(false);
    expect(nestsDeeperThan("[[],[],[[[]]]]", 3)).toBe(true);
    expect(nestsDeeperThan("42", 0)).toBe(false);
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify({ a: "[[[[{{{{", b: 'say \\"[[[[\\" and \\\\', c: ["]]]]"] });
    expect(nestsDeeperThan(text, 2)).toBe(false);
    expect(nestsDeeperThan(text, 1)).toBe(true);
  });

  it("scans 200,000 levels without recursion", () => {
    const text = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    expect(nestsDeeperThan(text, 200_000)).toBe(false);
    expect(nestsDeeperThan(text, 199_999)).toBe(true);
  });
});

describe("classifyJsonRpc", () => {
  it("classifies requests, notifications and responses", () => {
    expect(classifyJsonRpc({ jsonrpc: "2.0", id: "a", method: "m", params: { x: 1 } }).type).toBe(
      "request",
    );
    expect(classifyJsonRpc({ jsonrpc: "2.0", method: "m" }).type).toBe("notification");
    expect(classifyJsonRpc(jsonRpcResult(1, {})).type).toBe("response");
    expect(classifyJsonRpc(jsonRpcError(null, -32600, "x")).type).toBe("response");
    expect(classifyJsonRpc(jsonRpcError(2, -1, "x", { d: 1 }))).toEqual({
      type: "response",
      message: { jsonrpc: "2.0", id: 2, error: { code: -1, message: "x", data: { d: 1 } } },
    });
  });

  it("refuses invalid shapes with -32600, echoing the id only when readable", () => {
    const cases: [unknown, string | number | null][] = [
      [null, null],
      [[], null],
      ["ping", null],
      [{ jsonrpc: "1.0", id: 1, method: "m" }, 1],
      [{ jsonrpc: "2.0", id: null, method: "m" }, null],
      [{ jsonrpc: "2.0", id: Number.POSITIVE_INFINITY, method: "m" }, null],
      [{ jsonrpc: "2.0", id: 3, method: 7 }, 3],
      [{ jsonrpc: "2.0", id: 4, method: "m", params: [1] }, 4],
      [{ jsonrpc: "2.0", id: 5 }, 5],
      [{ jsonrpc: "2.0", id: 6, result: {}, error: { code: 1, message: "" } }, 6],
      [{ jsonrpc: "2.0", id: 7, result: 3 }, 7],
      [{ jsonrpc: "2.0", id: 8, error: { code: 1.5, message: "x" } }, 8],
      [{ jsonrpc: "2.0", result: {} }, null],
    ];
    for (const [value, id] of cases) {
      const classified = classifyJsonRpc(value);
      expect(classified, JSON.stringify(value)).toMatchObject({
        type: "invalid",
        error: { id, error: { code: JSON_RPC_ERROR.invalidRequest } },
      });
    }
  });

  it("omits undefined params and data from built messages", () => {
    expect(jsonRpcRequest(1, "m")).toEqual({ jsonrpc: "2.0", id: 1, method: "m" });
    expect(jsonRpcNotification("n", { a: 1 })).toEqual({
      jsonrpc: "2.0",
      method: "n",
      params: { a: 1 },
    });
    expect(jsonRpcError(1, -32601, "no")).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32601, message: "no" },
    });
  });
});
