import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, Toolset } from "../../../src/index.ts";
import { connectMcp, createMcpHandler, type McpHandlerOptions } from "../../../src/mcp/index.ts";
import { CLIENT_HEADERS, post, rpc, streamEvents } from "./fixture.ts";

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
function holdingHandler(options: Partial<McpHandlerOptions> = {}) {
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
    authorize: byToken,
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
