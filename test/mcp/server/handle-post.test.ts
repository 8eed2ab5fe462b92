import { describe, expect, it } from "vitest";
import { CLIENT_HEADERS, fixtureHandler, post, rpc } from "./fixture.ts";

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
