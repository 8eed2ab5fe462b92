import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, Toolset } from "../../../src/index.ts";
import { createMcpHandler, type McpHandlerOptions } from "../../../src/mcp/index.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../../../src/mcp/protocol.ts";
import { CLIENT_HEADERS, fixtureHandler, nestedText, post, rpc, sseMessages } from "./fixture.ts";

// The 2025-era exchange over POST and DELETE: media types, the protocol-version header, one
// message per body, sessions, and the methods (docs/design.md S2, S4, S8).

const URL_ = "http://127.0.0.1:3000/mcp";

describe("handlePost: transport checks", () => {
  it("refuses a non-JSON content type with 415", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(post(rpc(1, "ping"), { "content-type": "text/plain" }));
    expect(response.status).toBe(415);
  });

  it("accepts a charset parameter on the content type", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(
      post(rpc(1, "ping"), { "content-type": "application/json; charset=utf-8" }),
    );
    expect(response.status).toBe(200);
  });

  it("refuses an Accept without both JSON and SSE with 406, honouring wildcards and q=0", async () => {
    const { handler } = fixtureHandler();
    for (const accept of [
      "application/json",
      "text/event-stream",
      "text/html",
      "*/*, text/event-stream;q=0",
    ]) {
      const response = await handler.fetch(post(rpc(1, "ping"), { accept }));
      expect(response.status, accept).toBe(406);
    }
    for (const accept of [
      "*/*",
      "application/*, text/*",
      "text/event-stream, application/json;q=0.5",
    ]) {
      const response = await handler.fetch(post(rpc(1, "ping"), { accept }));
      expect(response.status, accept).toBe(200);
    }
  });

  it("refuses an unsupported MCP-Protocol-Version header with 400", async () => {
    const { handler } = fixtureHandler();
    const bad = await handler.fetch(post(rpc(1, "ping"), { "mcp-protocol-version": "1999-01-01" }));
    expect(bad.status).toBe(400);
    const good = await handler.fetch(
      post(rpc(1, "ping"), { "mcp-protocol-version": "2025-06-18" }),
    );
    expect(good.status).toBe(200);
  });

  it("refuses a body over the limit with 413, by Content-Length or while streaming", async () => {
    const { handler } = fixtureHandler({ maxBodyBytes: 100 });
    const big = JSON.stringify(rpc(1, "ping", { pad: "x".repeat(200) }));
    expect((await handler.fetch(post(big))).status).toBe(413);
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(encoder.encode("x".repeat(30)));
        controller.close();
      },
    });
    const streamed = new Request(URL_, {
      method: "POST",
      headers: CLIENT_HEADERS,
      body,
      duplex: "half",
    } as RequestInit);
    expect((await handler.fetch(streamed)).status).toBe(413);
  });

  it("answers malformed JSON with -32700 and id null", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(post("{not json"));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: expect.any(String) },
    });
  });

  it("answers invalid UTF-8 with -32700", async () => {
    const { handler } = fixtureHandler();
    const request = new Request(URL_, {
      method: "POST",
      headers: CLIENT_HEADERS,
      body: new Uint8Array([0xff, 0xfe, 0x7b]),
    });
    expect((await (await handler.fetch(request)).json()).error.code).toBe(-32700);
  });

  it("refuses batches with -32600 (removed in 2025-06-18)", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(post([rpc(1, "ping"), rpc(2, "ping")]));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("refuses null and non-scalar request ids with -32600", async () => {
    const { handler } = fixtureHandler();
    for (const id of [null, { a: 1 }, [1], true]) {
      const body = await (await handler.fetch(post({ jsonrpc: "2.0", id, method: "ping" }))).json();
      expect(body, JSON.stringify(id)).toMatchObject({ id: null, error: { code: -32600 } });
    }
  });

  it("echoes a readable id on an invalid request", async () => {
    const { handler } = fixtureHandler();
    const body = await (
      await handler.fetch(post({ jsonrpc: "1.0", id: 3, method: "ping" }))
    ).json();
    expect(body).toMatchObject({ id: 3, error: { code: -32600 } });
  });

  it("answers GET and other methods with 405 and an Allow header", async () => {
    const { handler } = fixtureHandler();
    for (const method of ["GET", "PUT", "PATCH"]) {
      const response = await handler.fetch(new Request(URL_, { method, headers: CLIENT_HEADERS }));
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toContain("POST");
    }
    const del = await handler.fetch(
      new Request(URL_, { method: "DELETE", headers: CLIENT_HEADERS }),
    );
    expect(del.status).toBe(405);
  });
});

describe("handlePost: nesting depth", () => {
  it("refuses a message nested deeper than maxJsonDepth 400, with the request's own id", async () => {
    const errors: unknown[] = [];
    const { handler } = fixtureHandler({ onError: (error) => errors.push(error) });
    const deep = (message: unknown, levels: number) => post(nestedText(message, levels));
    const call = rpc(4, "tools/call", { name: "echo", arguments: { message: "<deep>" } });
    const refused = await handler.fetch(deep(call, 200_000));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ id: 4, error: { code: -32602 } });
    // A POSTed response and a notification are refused too; a notification has no id to echo.
    const response = await handler.fetch(
      deep({ jsonrpc: "2.0", id: "q", result: { x: "<deep>" } }, 500),
    );
    expect(await response.json()).toMatchObject({ id: "q", error: { code: -32600 } });
    const note = await handler.fetch(
      deep({ jsonrpc: "2.0", method: "notifications/x", params: { x: "<deep>" } }, 500),
    );
    expect(note.status).toBe(400);
    expect(await note.json()).toMatchObject({ id: null, error: { code: -32600 } });
    expect(errors).toEqual([]);
    const fine = await handler.fetch(deep(call, 100));
    expect((await fine.json()).result.isError).toBe(true);
  });
});

describe("handlePost: authorize", () => {
  it("answers a refused request with 401 and WWW-Authenticate: Bearer", async () => {
    const { handler } = fixtureHandler({
      authorize: (request) => request.headers.get("authorization") === "Bearer good",
    });
    const refused = await handler.fetch(post(rpc(1, "ping")));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const admitted = await handler.fetch(post(rpc(1, "ping"), { authorization: "Bearer good" }));
    expect(admitted.status).toBe(200);
  });

  it("refuses when the authorizer throws, and admits AuthInfo", async () => {
    const throwing = fixtureHandler({
      authorize: () => {
        throw new Error("db down");
      },
    }).handler;
    expect((await throwing.fetch(post(rpc(1, "ping")))).status).toBe(401);
    const info = fixtureHandler({ authorize: async () => ({ clientId: "c1" }) }).handler;
    expect((await info.fetch(post(rpc(1, "ping")))).status).toBe(200);
  });
});

const initialize = (version = "2025-11-25") =>
  rpc(1, "initialize", {
    protocolVersion: version,
    capabilities: {},
    clientInfo: { name: "test", version: "0" },
  });

describe("handleRequest", () => {
  it("negotiates the protocol version: echoes a supported one, else offers the newest", async () => {
    const { handler } = fixtureHandler();
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
      const body = await (await handler.fetch(post(initialize(version)))).json();
      expect(body.result.protocolVersion).toBe(version);
    }
    const body = await (await handler.fetch(post(initialize("2024-11-05")))).json();
    expect(body.result).toMatchObject({
      protocolVersion: "2025-11-25",
      capabilities: { tools: { listChanged: false }, logging: {} },
      serverInfo: { name: "fixture", version: "1.0.0" },
    });
  });

  it("refuses unknown methods with -32601", async () => {
    const { handler } = fixtureHandler();
    const body = await (await handler.fetch(post(rpc(2, "resources/list")))).json();
    expect(body).toMatchObject({ id: 2, error: { code: -32601 } });
  });

  it("stores a valid logging level and refuses an invalid one", async () => {
    const { handler } = fixtureHandler();
    const ok = await (
      await handler.fetch(post(rpc(1, "logging/setLevel", { level: "warning" })))
    ).json();
    expect(ok).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    const bad = await (
      await handler.fetch(post(rpc(2, "logging/setLevel", { level: "loud" })))
    ).json();
    expect(bad).toMatchObject({ id: 2, error: { code: -32602 } });
  });

  it("refuses initialize without a protocolVersion with -32602", async () => {
    const { handler } = fixtureHandler();
    const body = await (await handler.fetch(post(rpc(1, "initialize", {})))).json();
    expect(body).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  it("answers ping with an empty result and echoes string ids", async () => {
    const { handler } = fixtureHandler();
    const body = await (await handler.fetch(post(rpc("p-1", "ping")))).json();
    expect(body).toEqual({ jsonrpc: "2.0", id: "p-1", result: {} });
  });

  it("reports title and instructions in initialize when configured", async () => {
    const { handler } = fixtureHandler({ title: "Fixture", instructions: "Be nice" });
    const body = await (await handler.fetch(post(initialize()))).json();
    expect(body.result.serverInfo).toEqual({ name: "fixture", version: "1.0.0", title: "Fixture" });
    expect(body.result.instructions).toBe("Be nice");
  });
});

describe("handleNotification", () => {
  it("ignores notifications/cancelled for an unknown or malformed id and keeps answering", async () => {
    const { handler } = fixtureHandler();
    for (const params of [{ requestId: 99 }, { requestId: null }, {}, { requestId: { a: 1 } }]) {
      const response = await handler.fetch(
        post({ jsonrpc: "2.0", method: "notifications/cancelled", params }),
      );
      expect(response.status).toBe(202);
    }
    const body = await (await handler.fetch(post(rpc(1, "ping")))).json();
    expect(body.result).toEqual({});
  });
});

const tools = Array.from({ length: 7 }, (_, i) =>
  defineTool({
    name: `tool_${i}`,
    description: `Tool ${i}`,
    input: v.object({ x: v.optional(v.number()) }),
    call: () => "ok",
  }),
);

describe("tools/list", () => {
  it("pages with opaque cursors until every tool is listed once", async () => {
    const handler = createMcpHandler(Toolset.local(tools), {
      name: "p",
      version: "1",
      pageSize: 3,
    });
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const params = cursor === undefined ? {} : { cursor };
      const body = await (await handler.fetch(post(rpc(pages, "tools/list", params)))).json();
      names.push(...body.result.tools.map((tool: { name: string }) => tool.name));
      cursor = body.result.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(names).toEqual(tools.map((tool) => tool.name));
  });

  it("renders the tool's declaration for MCP", async () => {
    const handler = createMcpHandler(Toolset.local(tools.slice(0, 1)), { name: "p", version: "1" });
    const body = await (await handler.fetch(post(rpc(1, "tools/list")))).json();
    expect(body.result.nextCursor).toBeUndefined();
    expect(body.result.tools[0]).toMatchObject({
      name: "tool_0",
      description: "Tool 0",
      inputSchema: { type: "object", properties: { x: { type: "number" } } },
    });
  });

  it("refuses a cursor it did not issue with -32602", async () => {
    const handler = createMcpHandler(Toolset.local(tools), { name: "p", version: "1" });
    for (const cursor of ["garbage", 42, btoa("other:tool_1")]) {
      const body = await (await handler.fetch(post(rpc(1, "tools/list", { cursor })))).json();
      expect(body.error.code, String(cursor)).toBe(-32602);
    }
  });
});

const chatty = defineTool({
  name: "chatty",
  description: "Logs at three levels",
  input: v.object({}),
  call: (_input, ctx) => {
    ctx.log("debug", "details");
    ctx.log("info", { step: 1 }, "worker");
    ctx.log("error", "broke, recovered");
    return "done";
  },
});

const handlerWith = (options: Partial<McpHandlerOptions> = {}) =>
  createMcpHandler(Toolset.local([chatty]), { name: "logs", version: "1.0.0", ...options });

const call = (id: number) => rpc(id, "tools/call", { name: "chatty", arguments: {} });

const logsOf = (messages: Record<string, unknown>[]) =>
  messages.filter((m) => m.method === "notifications/message").map((m) => m.params);

describe("MCP logging", () => {
  it("streams ctx.log as notifications/message before the result, all levels by default", async () => {
    const response = await handlerWith().fetch(post(call(1)));
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const messages = await sseMessages(response);
    expect(logsOf(messages)).toEqual([
      { level: "debug", data: "details" },
      { level: "info", data: { step: 1 }, logger: "worker" },
      { level: "error", data: "broke, recovered" },
    ]);
    expect(messages.at(-1)).toMatchObject({ id: 1, result: { content: [{ text: "done" }] } });
  });

  it("drops messages below the level a session set with logging/setLevel", async () => {
    const handler = handlerWith({ sessions: "memory" });
    const init = await handler.fetch(
      post(rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {} })),
    );
    const session = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
    const set = await handler.fetch(post(rpc(2, "logging/setLevel", { level: "info" }), session));
    expect(await set.json()).toMatchObject({ id: 2, result: {} });
    const messages = await sseMessages(await handler.fetch(post(call(3), session)));
    expect(logsOf(messages).map((log) => (log as { level: string }).level)).toEqual([
      "info",
      "error",
    ]);
  });

  it("answers plain JSON when a session's level filters out every message", async () => {
    const handler = handlerWith({ sessions: "memory" });
    const init = await handler.fetch(
      post(rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {} })),
    );
    const session = { "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
    await handler.fetch(post(rpc(2, "logging/setLevel", { level: "emergency" }), session));
    const response = await handler.fetch(post(call(3), session));
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ id: 3, result: { isError: false } });
  });

  it("keeps each session's level to itself", async () => {
    const handler = handlerWith({ sessions: "memory" });
    const open = async () => {
      const init = await handler.fetch(
        post(rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {} })),
      );
      return { "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
    };
    const quiet = await open();
    const loud = await open();
    await handler.fetch(post(rpc(2, "logging/setLevel", { level: "emergency" }), quiet));
    const messages = await sseMessages(await handler.fetch(post(call(3), loud)));
    expect(logsOf(messages)).toHaveLength(3);
  });

  it("never sets a server-wide level in stateless mode: one client cannot silence another", async () => {
    const handler = handlerWith({
      authorize: (request) => ({ subject: request.headers.get("authorization") ?? "" }),
    });
    const set = await handler.fetch(
      post(rpc(1, "logging/setLevel", { level: "emergency" }), { authorization: "mallory" }),
    );
    expect(await set.json()).toMatchObject({ id: 1, result: {} });
    const response = await handler.fetch(post(call(2), { authorization: "alice" }));
    expect(logsOf(await sseMessages(response))).toHaveLength(3);
  });
});
