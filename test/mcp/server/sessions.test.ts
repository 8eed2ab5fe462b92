import { describe, expect, it } from "vitest";
import { CLIENT_HEADERS, fixtureHandler, post, rpc } from "./fixture.ts";

const initialize = rpc(1, "initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "t", version: "0" },
});

describe("memory sessions", () => {
  it("issues Mcp-Session-Id at initialize, requires it afterwards, and ends it on DELETE", async () => {
    const { handler } = fixtureHandler({ sessions: "memory" });
    const init = await handler.fetch(post(initialize));
    const id = init.headers.get("mcp-session-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await handler.fetch(post(rpc(2, "ping")));
    expect(missing.status).toBe(400);
    const unknown = await handler.fetch(post(rpc(2, "ping"), { "mcp-session-id": "nope" }));
    expect(unknown.status).toBe(404);
    const ok = await handler.fetch(post(rpc(2, "ping"), { "mcp-session-id": id as string }));
    expect(await ok.json()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    const del = await handler.fetch(
      new Request("http://127.0.0.1:3000/mcp", {
        method: "DELETE",
        headers: { ...CLIENT_HEADERS, "mcp-session-id": id as string },
      }),
    );
    expect(del.status).toBe(204);
    const after = await handler.fetch(post(rpc(3, "ping"), { "mcp-session-id": id as string }));
    expect(after.status).toBe(404);
  });

  it("refuses a new session past maxSessions with 503", async () => {
    const { handler } = fixtureHandler({ sessions: "memory", maxSessions: 1 });
    expect((await handler.fetch(post(initialize))).status).toBe(200);
    expect((await handler.fetch(post(initialize))).status).toBe(503);
  });

  it("cancels a session's running calls when it is deleted", async () => {
    const { handler, observed } = fixtureHandler({ sessions: "memory" });
    const id = (await handler.fetch(post(initialize))).headers.get("mcp-session-id") as string;
    const call = handler.fetch(
      post(rpc(2, "tools/call", { name: "wait", arguments: {} }), { "mcp-session-id": id }),
    );
    await observed.started;
    await handler.fetch(
      new Request("http://127.0.0.1:3000/mcp", {
        method: "DELETE",
        headers: { ...CLIENT_HEADERS, "mcp-session-id": id },
      }),
    );
    await observed.aborted;
    expect((await call).status).toBe(200);
  });
});
