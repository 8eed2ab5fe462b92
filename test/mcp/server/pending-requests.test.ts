import { describe, expect, it } from "vitest";
import { jsonRpcError, jsonRpcResult } from "../../../src/mcp/json-rpc.ts";
import { createPendingRequests } from "../../../src/mcp/server/pending-requests.ts";

describe("createPendingRequests", () => {
  it("issues unguessable ids and delivers the matching answer once", async () => {
    const pending = createPendingRequests();
    const a = pending.open("s1");
    const b = pending.open("s1");
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.id).not.toBe(b.id);
    expect(pending.settle(jsonRpcResult(a.id, { action: "decline" }), "s1")).toBe(true);
    expect(await a.response).toEqual(jsonRpcResult(a.id, { action: "decline" }));
    expect(pending.settle(jsonRpcResult(a.id, { action: "accept" }), "s1")).toBe(false);
  });

  it("refuses an answer from another session, with an unknown id, or with a non-string id", () => {
    const pending = createPendingRequests();
    const { id } = pending.open("s1");
    expect(pending.settle(jsonRpcResult(id, {}), "s2")).toBe(false);
    expect(pending.settle(jsonRpcResult(id, {}), undefined)).toBe(false);
    expect(pending.settle(jsonRpcResult("other", {}), "s1")).toBe(false);
    expect(pending.settle(jsonRpcError(null, -1, "x"), "s1")).toBe(false);
    expect(pending.settle(jsonRpcResult(3, {}), "s1")).toBe(false);
    expect(pending.settle(jsonRpcResult(id, {}), "s1")).toBe(true);
  });

  it("withdraws a request when its signal aborts, so the table never keeps it", async () => {
    const pending = createPendingRequests();
    const controller = new AbortController();
    const { id, response } = pending.open(undefined, { signal: controller.signal });
    controller.abort("gone");
    await expect(response).rejects.toBe("gone");
    expect(pending.settle(jsonRpcResult(id, {}), undefined)).toBe(false);
    const late = pending.open(undefined, { signal: AbortSignal.abort("already") });
    await expect(late.response).rejects.toBe("already");
    expect(pending.settle(jsonRpcResult(late.id, {}), undefined)).toBe(false);
  });
});
