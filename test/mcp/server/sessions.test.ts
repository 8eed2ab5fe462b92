import { describe, expect, it } from "vitest";
import { createSessionStore } from "../../../src/mcp/server/sessions.ts";
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

describe("createSessionStore", () => {
  const store = (capacity: number, busy = new Set<string>()) => {
    let now = 0;
    const expired: string[] = [];
    const sessions = createSessionStore({
      capacity,
      idleMs: 1000,
      busy: (id) => busy.has(id),
      onExpire: (id) => expired.push(id),
      now: () => now,
    });
    return { sessions, expired, advance: (ms: number) => (now += ms) };
  };

  it("issues distinct random ids and never adopts one the client names", () => {
    const { sessions } = store(10);
    const a = sessions.create("2025-06-18", {});
    const b = sessions.create("2025-06-18", {});
    expect(a?.id).not.toBe(b?.id);
    expect(sessions.get("00000000-0000-4000-8000-000000000000")).toBeUndefined();
  });

  it("expires a session idle for idleMs, and each request restarts its clock", () => {
    const { sessions, expired, advance } = store(10);
    const session = sessions.create("2025-06-18", {});
    const id = session?.id as string;
    advance(999);
    expect(sessions.get(id)).toBe(session);
    advance(999);
    expect(sessions.get(id)).toBe(session);
    advance(1000);
    expect(sessions.get(id)).toBeUndefined();
    expect(expired).toEqual([id]);
    expect(sessions.get(id)).toBeUndefined();
  });

  it("keeps a session with a call running, however long it is idle", () => {
    const busy = new Set<string>();
    const { sessions, advance } = store(10, busy);
    const id = sessions.create("2025-06-18", {})?.id as string;
    busy.add(id);
    advance(60_000);
    expect(sessions.get(id)?.id).toBe(id);
  });

  it("makes room at capacity by ending idle sessions only", () => {
    const busy = new Set<string>();
    const { sessions, expired, advance } = store(2, busy);
    const idle = sessions.create("2025-06-18", {})?.id as string;
    const working = sessions.create("2025-06-18", {})?.id as string;
    busy.add(working);
    expect(sessions.create("2025-06-18", {})).toBeUndefined();
    advance(1000);
    expect(sessions.create("2025-06-18", {})).toBeDefined();
    expect(expired).toEqual([idle]);
    expect(sessions.get(working)?.id).toBe(working);
    expect(sessions.create("2025-06-18", {})).toBeUndefined();
  });

  it("deletes once", () => {
    const { sessions } = store(1);
    const id = sessions.create("2025-06-18", {})?.id as string;
    expect(sessions.delete(id)).toBe(true);
    expect(sessions.delete(id)).toBe(false);
    expect(sessions.create("2025-06-18", {})).toBeDefined();
  });
});
