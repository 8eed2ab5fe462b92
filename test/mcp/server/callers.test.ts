import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, isToolError, Toolset } from "../../../src/index.ts";
import { connectMcp, createMcpHandler, type McpHandlerOptions } from "../../../src/mcp/index.ts";
import { CLIENT_HEADERS, post, rpc, streamEvents } from "./fixture.ts";
import { json, modern } from "./modern.ts";

// Two authorised clients of one handler: each sees only its own sessions, calls and questions
// (docs/design.md S3, S4, S7, S8).

/** Who `authorize` lets in: the bearer token names the caller. */
const byToken = (request: Request) => {
  const token = request.headers.get("authorization")?.replace(/^Bearer /, "");
  return token ? { subject: token } : false;
};

const as = (who: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${who}`,
  ...extra,
});

/** A `hold` tool that runs until cancelled, recording which labels started and were aborted. */
function holdingHandler(options: Partial<McpHandlerOptions> = {}, anonymous = false) {
  const started = new Map<string, () => void>();
  const startedOnce = new Map<string, Promise<void>>();
  const aborted: string[] = [];
  const whenStarted = (label: string) => {
    let promise = startedOnce.get(label);
    if (!promise) {
      promise = new Promise<void>((resolve) => started.set(label, resolve));
      startedOnce.set(label, promise);
    }
    return promise;
  };
  const hold = defineTool({
    name: "hold",
    description: "Runs until cancelled",
    input: v.object({ label: v.string() }),
    call: ({ label }, ctx) =>
      new Promise<string>((_resolve, reject) => {
        void whenStarted(label);
        started.get(label)?.();
        ctx.signal.addEventListener("abort", () => {
          aborted.push(label);
          reject(ctx.signal.reason);
        });
      }),
  });
  const ask = defineTool({
    name: "ask",
    description: "Asks for a name",
    input: v.object({}),
    interactions: { text: true },
    call: async (_, ctx) => `hello ${await ctx.requestText("Name?")}`,
  });
  const handler = createMcpHandler(Toolset.local([hold, ask]), {
    name: "two",
    version: "1",
    ...(anonymous ? {} : { authorize: byToken }),
    ...options,
  });
  return { handler, whenStarted, aborted };
}

const holdCall = (id: number, label: string) =>
  rpc(id, "tools/call", { name: "hold", arguments: { label } });
const cancel = (requestId: number) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason: "stop" },
});

describe("stateless cancellation", () => {
  it("only reaches the sender's own call, even with the same request id", async () => {
    const { handler, whenStarted, aborted } = holdingHandler();
    const alice = handler.fetch(post(holdCall(1, "alice"), as("alice")));
    const bob = handler.fetch(post(holdCall(1, "bob"), as("bob")));
    await Promise.all([whenStarted("alice"), whenStarted("bob")]);
    expect((await handler.fetch(post(cancel(1), as("mallory")))).status).toBe(202);
    expect(aborted).toEqual([]);
    await handler.fetch(post(cancel(1), as("bob")));
    await (await bob).text();
    expect(aborted).toEqual(["bob"]);
    await handler.fetch(post(cancel(1), as("alice")));
    await (await alice).text();
    expect(aborted).toEqual(["bob", "alice"]);
  });
});

// Issue 23 (11): on the defaults every anonymous client was one caller, so any client's
// `notifications/cancelled { requestId: 7 }` aborted another client's call 7.
describe("anonymous cancellation", () => {
  it("never reaches another client's call on the defaults; each client's disconnect cancels its own", async () => {
    const { handler, whenStarted, aborted } = holdingHandler({}, true);
    const first = new AbortController();
    const second = new AbortController();
    const modernCall = new AbortController();
    const calls = [
      handler.fetch(new Request(post(holdCall(7, "first")), { signal: first.signal })),
      handler.fetch(new Request(post(holdCall(7, "second")), { signal: second.signal })),
      handler.fetch(
        modern(
          7,
          "tools/call",
          { name: "hold", arguments: { label: "modern" } },
          {
            signal: modernCall.signal,
          },
        ),
      ),
    ];
    await Promise.all(["first", "second", "modern"].map(whenStarted));
    expect((await handler.fetch(post(cancel(7)))).status).toBe(202);
    expect(aborted).toEqual([]);
    first.abort();
    await calls[0];
    expect(aborted).toEqual(["first"]);
    modernCall.abort();
    second.abort();
    await Promise.allSettled(calls);
    expect(aborted.sort()).toEqual(["first", "modern", "second"]);
  });

  it("still lets an identified caller cancel its own call by notification", async () => {
    const { handler, whenStarted, aborted } = holdingHandler();
    const call = handler.fetch(post(holdCall(7, "alice"), as("alice")));
    await whenStarted("alice");
    await handler.fetch(post(cancel(7), as("alice")));
    expect(aborted).toEqual(["alice"]);
    await (await call).text();
  });
});

// Issue 23 (9): one caller took every listen stream, in-flight slot or session.
describe("fair sharing between callers, on the defaults", () => {
  it("holds a caller to 32 calls in flight, across both revisions, while another gets one", async () => {
    const { handler, whenStarted, aborted } = holdingHandler();
    const running = Array.from({ length: 32 }, (_, i) =>
      handler.fetch(post(holdCall(i + 1, `alice${i}`), as("alice"))),
    );
    await Promise.all(Array.from({ length: 32 }, (_, i) => whenStarted(`alice${i}`)));
    const refused = await handler.fetch(post(holdCall(99, "alice99"), as("alice")));
    expect(await refused.json()).toMatchObject({ id: 99, error: { code: -32000 } });
    const modernRefused = await handler.fetch(
      modern(
        98,
        "tools/call",
        { name: "hold", arguments: { label: "alice98" } },
        {
          headers: as("alice"),
        },
      ),
    );
    const body = await json(modernRefused);
    expect(body).toMatchObject({ id: 98, error: { code: -32000 } });
    expect(body.error.message).toContain("for this caller (the limit is 32)");
    const bob = handler.fetch(post(holdCall(1, "bob"), as("bob")));
    await whenStarted("bob");
    for (let i = 1; i <= 32; i++) await handler.fetch(post(cancel(i), as("alice")));
    await handler.fetch(post(cancel(1), as("bob")));
    await Promise.all([...running, bob].map(async (response) => (await response).text()));
    expect(aborted).toHaveLength(33);
  });

  it("holds a caller to 128 sessions while another still gets one", async () => {
    const { handler } = holdingHandler({ sessions: "memory" });
    const initialize = (who: string) =>
      handler.fetch(
        post(rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {} }), as(who)),
      );
    for (let i = 0; i < 128; i++) expect((await initialize("alice")).status).toBe(200);
    expect((await initialize("alice")).status).toBe(503);
    expect((await initialize("bob")).status).toBe(200);
  });

  it("holds a caller to 128 listen streams while another still gets one", async () => {
    const { handler } = holdingHandler();
    const listen = (id: number, who: string) =>
      handler.fetch(modern(id, "subscriptions/listen", {}, { headers: as(who) }));
    const open: Response[] = [];
    for (let i = 0; i < 128; i++) {
      const response = await listen(i, "alice");
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      open.push(response);
    }
    const refused = await json(await listen(128, "alice"));
    expect(refused).toMatchObject({ id: 128, error: { code: -32603 } });
    expect(refused.error.message).toContain("Subscription limit reached");
    const bob = await listen(1, "bob");
    expect(bob.headers.get("content-type")).toBe("text/event-stream");
    handler.close();
    await Promise.all([...open, bob].map((response) => response.text()));
  });

  it("takes smaller limits as options", async () => {
    const { handler } = holdingHandler({
      sessions: "memory",
      maxSessionsPerCaller: 1,
      maxListensPerCaller: 1,
    });
    const initialize = () =>
      handler.fetch(
        post(rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {} }), as("a")),
      );
    expect((await initialize()).status).toBe(200);
    expect((await initialize()).status).toBe(503);
    const first = await handler.fetch(modern(1, "subscriptions/listen", {}, { headers: as("a") }));
    const second = await json(
      await handler.fetch(modern(2, "subscriptions/listen", {}, { headers: as("a") })),
    );
    expect(second.error.message).toContain("1 per caller");
    handler.close();
    await first.text();
    expect(() =>
      createMcpHandler(Toolset.local([]), { name: "x", version: "1", maxListensPerCaller: 0 }),
    ).toThrow(/maxListensPerCaller/);
  });
});

// Issue 23 (10): a caller named only by its token is a new caller after every refresh.
describe("a caller named only by its token", () => {
  it("is reported to onError once, without the token, and served", async () => {
    const secret = "tok-3f9a1c77e2b54d0f8a6b";
    const seen: { error: unknown; phase: string }[] = [];
    const { handler } = holdingHandler({
      authorize: (request) => ({ token: request.headers.get("authorization") ?? "" }),
      onError: (error, { phase }) => seen.push({ error, phase }),
    });
    for (const token of [secret, `${secret}-refreshed`]) {
      const response = await handler.fetch(post(rpc(1, "tools/list"), { authorization: token }));
      expect(response.status).toBe(200);
    }
    expect(seen).toHaveLength(1);
    const [{ error, phase }] = seen as [{ error: unknown; phase: string }];
    expect(phase).toBe("authorize");
    expect(isToolError(error, "invalid_configuration")).toBe(true);
    expect((error as Error).message).toMatch(/identity is its token.*refresh.*new caller/);
    expect(JSON.stringify(error)).not.toContain(secret);
    expect((error as Error).message).not.toContain(secret);
  });

  it("is not reported when authorize names a subject", async () => {
    const seen: unknown[] = [];
    const { handler } = holdingHandler({
      authorize: () => ({ subject: "alice", token: "t" }),
      onError: (error) => seen.push(error),
    });
    await handler.fetch(post(rpc(1, "tools/list")));
    expect(seen).toEqual([]);
  });
});

describe("session binding", () => {
  const initialize = rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {} });
  const del = (headers: Record<string, string>) =>
    new Request("http://127.0.0.1:3000/mcp", {
      method: "DELETE",
      headers: { ...CLIENT_HEADERS, ...headers },
    });

  it("answers another identity 404 for a session, as if it did not exist", async () => {
    const { handler } = holdingHandler({ sessions: "memory" });
    const init = await handler.fetch(post(initialize, as("alice")));
    const id = init.headers.get("mcp-session-id") ?? "";
    const stolen = await handler.fetch(post(rpc(1, "ping"), as("bob", { "mcp-session-id": id })));
    expect(stolen.status).toBe(404);
    expect((await handler.fetch(del(as("bob", { "mcp-session-id": id })))).status).toBe(404);
    const own = await handler.fetch(post(rpc(2, "ping"), as("alice", { "mcp-session-id": id })));
    expect(await own.json()).toMatchObject({ id: 2, result: {} });
    expect((await handler.fetch(del(as("alice", { "mcp-session-id": id })))).status).toBe(204);
  });

  it("binds an anonymous session to no identity, so an authorised caller cannot use it", async () => {
    let who: string | undefined;
    const { handler } = holdingHandler({
      sessions: "memory",
      authorize: () => (who ? { subject: who } : true),
    });
    const init = await handler.fetch(post(initialize));
    const id = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
    expect((await handler.fetch(post(rpc(1, "ping"), id))).status).toBe(200);
    who = "alice";
    expect((await handler.fetch(post(rpc(2, "ping"), id))).status).toBe(404);
  });
});

describe("answers to questions", () => {
  it("are taken only from the caller that was asked (stateless)", async () => {
    const { handler } = holdingHandler({ interactionPolicy: "elicit" });
    const response = await handler.fetch(
      post(rpc(1, "tools/call", { name: "ask", arguments: {} }), as("alice")),
    );
    const stream = streamEvents(response);
    const question = (await stream.next()).value as { id: string };
    const reply = (name: string) => ({
      jsonrpc: "2.0",
      id: question.id,
      result: { action: "accept", content: { text: name } },
    });
    await handler.fetch(post(reply("Mallory"), as("mallory")));
    await handler.fetch(post(reply("Alice"), as("alice")));
    expect((await stream.next()).value).toMatchObject({
      id: 1,
      result: { content: [{ text: "hello Alice" }] },
    });
  });
});

describe("the caller reaches the tool", () => {
  it("what authorize returns is ctx.auth in the tool, end to end through connectMcp", async () => {
    const whoami = defineTool({
      name: "whoami",
      description: "Says who called",
      readOnly: true,
      input: v.object({}),
      call: (_input, ctx) => JSON.stringify(ctx.auth ?? null),
    });
    // The token is not the name: a result that echoes the client's own token is scrubbed.
    const handler = createMcpHandler(Toolset.local([whoami]), {
      name: "who",
      version: "1",
      authorize: (request) => {
        const token = request.headers.get("authorization")?.replace(/^Bearer tok-/, "");
        return token ? { subject: token } : false;
      },
    });
    const callAs = async (who: string) => {
      const remote = await connectMcp({
        url: "http://127.0.0.1/mcp",
        headers: { authorization: `Bearer tok-${who}` },
        fetch: handler.fetch,
      });
      try {
        const result = await remote.call("whoami", {});
        return result.content[0]?.type === "text" ? result.content[0].text : undefined;
      } finally {
        await remote.shutdown();
      }
    };
    expect(JSON.parse((await callAs("alice")) ?? "null")).toEqual({ subject: "alice" });
    expect(JSON.parse((await callAs("bob")) ?? "null")).toEqual({ subject: "bob" });
  });

  it("without an authorizer the tool sees no caller", async () => {
    const whoami = defineTool({
      name: "whoami",
      description: "Says who called",
      readOnly: true,
      input: v.object({}),
      call: (_input, ctx) => String(ctx.auth === undefined),
    });
    const handler = createMcpHandler(Toolset.local([whoami]), { name: "who", version: "1" });
    const remote = await connectMcp({ url: "http://127.0.0.1/mcp", fetch: handler.fetch });
    const result = await remote.call("whoami", {});
    await remote.shutdown();
    expect(result.content).toEqual([{ type: "text", text: "true" }]);
  });
});
