import { describe, expect, it } from "vitest";
import { Toolset } from "../../../src/index.ts";
import { jsonRpcError, jsonRpcRequest, jsonRpcResult } from "../../../src/mcp/json-rpc.ts";
import {
  type Core,
  createInFlightCalls,
  createListCache,
  createPendingRequests,
  createRegistry,
  createSessionStore,
  type Envelope,
  identityOf,
  readClientCapabilities,
  serve,
} from "../../../src/mcp/server/core.ts";
import { incomingRequest, type JsonAnswer } from "../../../src/mcp/server/http.ts";
import { resolveOptions } from "../../../src/mcp/server/options.ts";
import { serveSources } from "../../../src/mcp/server/sources.ts";
import { CLIENT_HEADERS, fixtureHandler, post, rpc } from "./fixture.ts";

// What a handler remembers between requests, and for whom (docs/design.md S4-S7).

const NONE = readClientCapabilities({});
const UNLIMITED = { max: 1000, perOwner: true };

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
  const store = (capacity: number, busy = new Set<string>(), perCaller?: number) => {
    let now = 0;
    const expired: string[] = [];
    const sessions = createSessionStore({
      capacity,
      ...(perCaller === undefined ? {} : { perCaller }),
      idleMs: 1000,
      busy: (id) => busy.has(id),
      onExpire: (id) => expired.push(id),
      now: () => now,
    });
    return { sessions, expired, advance: (ms: number) => (now += ms) };
  };

  it("issues distinct random ids and never adopts one the client names", () => {
    const { sessions } = store(10);
    const a = sessions.create("2025-06-18", NONE, undefined);
    const b = sessions.create("2025-06-18", NONE, undefined);
    expect(a?.id).not.toBe(b?.id);
    expect(sessions.get("00000000-0000-4000-8000-000000000000")).toBeUndefined();
  });

  it("expires a session idle for idleMs, and each request restarts its clock", () => {
    const { sessions, expired, advance } = store(10);
    const session = sessions.create("2025-06-18", NONE, undefined);
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
    const id = sessions.create("2025-06-18", NONE, undefined)?.id as string;
    busy.add(id);
    advance(60_000);
    expect(sessions.get(id)?.id).toBe(id);
  });

  it("makes room at capacity by ending idle sessions only", () => {
    const busy = new Set<string>();
    const { sessions, expired, advance } = store(2, busy);
    const idle = sessions.create("2025-06-18", NONE, undefined)?.id as string;
    const working = sessions.create("2025-06-18", NONE, undefined)?.id as string;
    busy.add(working);
    expect(sessions.create("2025-06-18", NONE, undefined)).toBeUndefined();
    advance(1000);
    expect(sessions.create("2025-06-18", NONE, undefined)).toBeDefined();
    expect(expired).toEqual([idle]);
    expect(sessions.get(working)?.id).toBe(working);
    expect(sessions.create("2025-06-18", NONE, undefined)).toBeUndefined();
  });

  // Issue 23 (9): one caller took all 1,024 sessions, and everyone got 503 for 30 minutes.
  it("holds an identity to its share, freed by a delete or its own idle sessions", () => {
    const { sessions, advance } = store(10, new Set(), 2);
    const first = sessions.create("2025-06-18", NONE, "alice")?.id as string;
    sessions.create("2025-06-18", NONE, "alice");
    expect(sessions.create("2025-06-18", NONE, "alice")).toBeUndefined();
    expect(sessions.create("2025-06-18", NONE, "bob")).toBeDefined();
    // Anonymous sessions count only against the capacity.
    for (let i = 0; i < 3; i++)
      expect(sessions.create("2025-06-18", NONE, undefined)).toBeDefined();
    sessions.delete(first);
    const third = sessions.create("2025-06-18", NONE, "alice")?.id as string;
    expect(third).toBeDefined();
    expect(sessions.create("2025-06-18", NONE, "alice")).toBeUndefined();
    advance(1000);
    expect(sessions.create("2025-06-18", NONE, "alice")).toBeDefined();
    expect(sessions.get(third)).toBeUndefined();
  });

  it("deletes once", () => {
    const { sessions } = store(1);
    const id = sessions.create("2025-06-18", NONE, undefined)?.id as string;
    expect(sessions.delete(id)).toBe(true);
    expect(sessions.delete(id)).toBe(false);
    expect(sessions.create("2025-06-18", NONE, undefined)).toBeDefined();
  });
});

describe("createInFlightCalls", () => {
  it("cancels a session's call by id, and only that session's", () => {
    const calls = createInFlightCalls();
    const mine = new AbortController();
    const theirs = new AbortController();
    calls.add("s1", 1, mine, UNLIMITED);
    calls.add("s2", 1, theirs, UNLIMITED);
    expect(calls.cancel("s1", 1, "stop")).toBe(true);
    expect(mine.signal.reason).toBe("stop");
    expect(theirs.signal.aborted).toBe(false);
  });

  it("keeps string and number ids apart, and ignores unknown ids", () => {
    const calls = createInFlightCalls();
    const numeric = new AbortController();
    calls.add("alice", 7, numeric, UNLIMITED);
    expect(calls.cancel("alice", "7", undefined)).toBe(false);
    expect(calls.cancel("alice", 99, undefined)).toBe(false);
    expect(numeric.signal.aborted).toBe(false);
  });

  it("ignores an id the owner has twice rather than guess which call is meant", () => {
    const calls = createInFlightCalls();
    const a = new AbortController();
    const b = new AbortController();
    calls.add("alice", 1, a, UNLIMITED);
    const unregisterB = calls.add("alice", 1, b, UNLIMITED);
    expect(calls.cancel("alice", 1, undefined)).toBe(false);
    if (typeof unregisterB === "function") unregisterB();
    expect(calls.cancel("alice", 1, undefined)).toBe(true);
    expect(a.signal.aborted).toBe(true);
  });

  // Issue 23 (11): every anonymous caller was the owner "", so any client's
  // `notifications/cancelled { requestId: 7 }` aborted another client's call 7.
  it("lets no cancel reach a call without an owner, yet counts it", () => {
    const calls = createInFlightCalls();
    const anonymous = new AbortController();
    const limit = { max: 1, perOwner: false };
    expect(typeof calls.add(undefined, 7, anonymous, limit)).toBe("function");
    expect(calls.cancel(undefined, 7, "stop")).toBe(false);
    expect(anonymous.signal.aborted).toBe(false);
    expect(calls.add("alice", 8, new AbortController(), limit)).toBe("max");
  });

  it("tracks which sessions have calls running and empties when they finish", () => {
    const calls = createInFlightCalls();
    const unregister = calls.add("s1", 1, new AbortController(), UNLIMITED) as () => void;
    const second = calls.add("s1", 2, new AbortController(), UNLIMITED) as () => void;
    expect(calls.running("s1")).toBe(true);
    unregister();
    unregister();
    expect(calls.running("s1")).toBe(true);
    second();
    expect(calls.running("s1")).toBe(false);
    expect(calls.cancel("s1", 1, undefined)).toBe(false);
  });

  it("cancels every call of a deleted session", () => {
    const calls = createInFlightCalls();
    const one = new AbortController();
    const two = new AbortController();
    const other = new AbortController();
    calls.add("s1", 1, one, UNLIMITED);
    calls.add("s1", "x", two, UNLIMITED);
    calls.add("s10", 1, other, UNLIMITED);
    calls.cancelAll("s1");
    expect([one.signal.aborted, two.signal.aborted, other.signal.aborted]).toEqual([
      true,
      true,
      false,
    ]);
  });
});

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

  it("drops a late answer once the asker withdrew the request", () => {
    const pending = createPendingRequests();
    const { id, withdraw } = pending.open(undefined);
    withdraw();
    expect(pending.settle(jsonRpcResult(id, {}), undefined)).toBe(false);
  });
});

describe("the in-flight cap", () => {
  it("refuses a call beyond the owner's limit, and admits one again once a call ends", () => {
    const calls = createInFlightCalls();
    const limit = { max: 2, perOwner: true };
    const first = calls.add("s1", 1, new AbortController(), limit) as () => void;
    expect(typeof calls.add("s1", 2, new AbortController(), limit)).toBe("function");
    expect(calls.add("s1", 3, new AbortController(), limit)).toBe("max");
    expect(typeof calls.add("s2", 1, new AbortController(), limit)).toBe("function");
    first();
    expect(typeof calls.add("s1", 3, new AbortController(), limit)).toBe("function");
  });

  it("counts every owner together when the limit is for the whole table", () => {
    const calls = createInFlightCalls();
    const limit = { max: 2, perOwner: false };
    calls.add("alice", 1, new AbortController(), limit);
    calls.add("bob", 1, new AbortController(), limit);
    expect(calls.add("carol", 1, new AbortController(), limit)).toBe("max");
  });

  // Issue 23 (9): one caller took all 64 in-flight slots.
  it("refuses an identity past its own share while others still get slots", () => {
    const calls = createInFlightCalls();
    const limit = { max: 4, perOwner: false, perCaller: 2 };
    const first = calls.add(undefined, 1, new AbortController(), limit, "alice") as () => void;
    calls.add("s1", 2, new AbortController(), limit, "alice");
    expect(calls.add("s2", 3, new AbortController(), limit, "alice")).toBe("per_caller");
    expect(typeof calls.add(undefined, 1, new AbortController(), limit, "bob")).toBe("function");
    // Anonymous calls count only against the table.
    expect(typeof calls.add(undefined, 1, new AbortController(), limit)).toBe("function");
    expect(calls.add(undefined, 1, new AbortController(), limit, "carol")).toBe("max");
    first();
    expect(typeof calls.add(undefined, 4, new AbortController(), limit, "alice")).toBe("function");
  });
});

describe("identityOf", () => {
  it("names a caller by subject, sub, id, clientId or token, in that order", () => {
    expect(identityOf({ subject: "alice", token: "t1" })).toBe(
      identityOf({ subject: "alice", token: "t2" }),
    );
    expect(identityOf({ subject: "alice" })).not.toBe(identityOf({ subject: "bob" }));
    expect(identityOf({ sub: "alice" })).toBe(identityOf({ sub: "alice", scopes: ["x"] }));
    expect(identityOf({ clientId: "c", token: "t1" })).toBe(
      identityOf({ clientId: "c", token: "t2" }),
    );
    expect(identityOf({ token: "t1" })).not.toBe(identityOf({ token: "t2" }));
  });

  it("compares anything else as JSON, primitives by type and value", () => {
    expect(identityOf({ scopes: ["a"] })).toBe(identityOf({ scopes: ["a"] }));
    expect(identityOf({ scopes: ["a"] })).not.toBe(identityOf({ scopes: ["b"] }));
    expect(identityOf("1")).not.toBe(identityOf(1));
    expect(identityOf(undefined)).toBeUndefined();
  });

  it("never matches two values JSON cannot hold", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(identityOf(cyclic)).not.toBe(identityOf(cyclic));
  });
});

describe("readClientCapabilities", () => {
  it("keeps only whether the client can answer forms, sampling and roots", () => {
    expect(readClientCapabilities({ elicitation: {}, sampling: {}, roots: { huge: "x" } })).toEqual(
      { elicitation: true, sampling: true, roots: true },
    );
    expect(readClientCapabilities({ elicitation: { form: {}, url: {} } })).toEqual({
      elicitation: true,
      sampling: false,
      roots: false,
    });
    expect(
      readClientCapabilities({ elicitation: { url: {} }, sampling: true, roots: true }),
    ).toEqual({ elicitation: false, sampling: false, roots: false });
    expect(readClientCapabilities("nonsense")).toEqual({
      elicitation: false,
      sampling: false,
      roots: false,
    });
  });
});

describe("serve", () => {
  const setup = () => {
    const reported: { error: unknown; phase: string }[] = [];
    const options = resolveOptions({ name: "t", version: "1" });
    const toolset = Toolset.local([]);
    const core: Core = {
      toolset,
      options,
      registry: createRegistry(options),
      tools: createListCache(
        () => toolset.listTools(),
        (tool) => tool.name,
      ),
      sources: serveSources({}),
      methods: {},
      tasks: undefined,
      report: (error, phase) => reported.push({ error, phase }),
    };
    const envelope: Envelope = {
      request: incomingRequest("http://127.0.0.1/mcp", { method: "POST" }),
      headers: new Headers(),
      message: jsonRpcRequest(7, "x/y"),
      caller: { auth: undefined, identity: undefined },
      owner: undefined,
      inSession: false,
      capabilities: undefined,
      logLevel: () => "all",
      ask: () => Promise.reject(new Error("no questions here")),
    };
    return { core, envelope, reported };
  };

  it("answers a method's result as plain JSON, and a cancelled one as -32800", async () => {
    const { core, envelope } = setup();
    const plain = await serve(core, envelope, () => ({ type: "result", result: { ok: true } }));
    expect(JSON.parse((plain as JsonAnswer).text)).toEqual(jsonRpcResult(7, { ok: true }));
    const cancelled = await serve(core, envelope, () => ({ type: "cancelled" }));
    expect(JSON.parse((cancelled as JsonAnswer).text).error.code).toBe(-32800);
  });

  it("rejects the answer of a method that throws before it streamed (the handler's 500)", async () => {
    const { core, envelope, reported } = setup();
    const failure = new Error("boom");
    await expect(
      serve(core, envelope, () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(reported).toEqual([]);
  });

  it("ends the stream of a method that throws after streaming, and reports the failure", async () => {
    const { core, envelope, reported } = setup();
    const failure = new Error("boom");
    const answer = await serve(core, envelope, async (_params, scope) => {
      scope.notify("notifications/message", { level: "info", data: "first" });
      await Promise.resolve();
      throw failure;
    });
    const text = await (answer as Response).text();
    expect(text).toContain('"notifications/message"');
    expect(text).not.toContain('"id":7');
    expect(reported).toEqual([{ error: failure, phase: "request" }]);
  });
});
