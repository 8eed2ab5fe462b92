import { describe, expect, it } from "vitest";
import { Toolset } from "../../../src/index.ts";
import { createMcpHandler } from "../../../src/mcp/index.ts";
import { CLIENT_HEADERS, fixtureHandler, post, rpc, sseMessages } from "./fixture.ts";

const ORIGIN = "http://localhost:5173";
const allowedOrigin = (response: Response) => response.headers.get("access-control-allow-origin");

describe("createMcpHandler", () => {
  it("works with a detached fetch (no `this`)", async () => {
    const { fetch } = fixtureHandler().handler;
    const response = await fetch(post(rpc(7, "ping")));
    expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
  });

  it("answers notifications and responses with 202 and no body", async () => {
    const { handler } = fixtureHandler();
    const initialized = await handler.fetch(
      post({ jsonrpc: "2.0", method: "notifications/initialized" }),
    );
    expect(initialized.status).toBe(202);
    expect(await initialized.text()).toBe("");
    const unknown = await handler.fetch(post({ jsonrpc: "2.0", method: "notifications/whatever" }));
    expect(unknown.status).toBe(202);
    const stale = await handler.fetch(post({ jsonrpc: "2.0", id: "x", result: {} }));
    expect(stale.status).toBe(202);
  });

  it("validates its options", () => {
    const toolset = Toolset.local([]);
    expect(() => createMcpHandler(toolset, { name: "", version: "1" })).toThrow(/name/);
    expect(() => createMcpHandler(toolset, { name: "a", version: "1", endpoint: "mcp" })).toThrow(
      /endpoint/,
    );
    expect(() => createMcpHandler(toolset, { name: "a", version: "1", pageSize: 0 })).toThrow(
      /pageSize/,
    );
  });

  it("answers 404 for other paths", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(post(rpc(1, "ping"), {}, "http://127.0.0.1:3000/other"));
    expect(response.status).toBe(404);
  });

  it("never shuts the served toolset down", async () => {
    const { handler, toolset } = fixtureHandler();
    await handler.fetch(post(rpc(1, "tools/call", { name: "echo", arguments: { message: "x" } })));
    await handler.fetch(
      new Request("http://127.0.0.1:3000/mcp", { method: "DELETE", headers: CLIENT_HEADERS }),
    );
    expect((await toolset.listTools()).length).toBeGreaterThan(0);
  });

  it("lets an allowed page read every answer: errors, 202s and streams carry CORS", async () => {
    const { handler } = fixtureHandler({
      maxBodyBytes: 4096,
      authorize: (request) => request.headers.has("authorization"),
    });
    const auth = { origin: ORIGIN, authorization: "Bearer t" };
    const answers = [
      await handler.fetch(post(rpc(1, "ping"), { origin: ORIGIN })),
      await handler.fetch(post("x".repeat(5000), auth)),
      await handler.fetch(post(rpc(1, "ping"), { ...auth, "content-type": "text/plain" })),
      await handler.fetch(post(rpc(1, "ping"), { ...auth, accept: "application/json" })),
      await handler.fetch(post(rpc(1, "ping"), auth, "http://127.0.0.1:3000/other")),
      await handler.fetch(post({ jsonrpc: "2.0", method: "notifications/initialized" }, auth)),
      await handler.fetch(
        new Request("http://127.0.0.1:3000/mcp", { headers: { ...CLIENT_HEADERS, ...auth } }),
      ),
    ];
    expect(answers.map((r) => r.status)).toEqual([401, 413, 415, 406, 404, 202, 405]);
    for (const response of answers) {
      expect(allowedOrigin(response), String(response.status)).toBe(ORIGIN);
      expect(response.headers.get("vary")).toContain("Origin");
    }
    const exposed = answers[0]?.headers.get("access-control-expose-headers") ?? "";
    expect(exposed).toContain("www-authenticate");
    const stream = await handler.fetch(
      post(
        rpc(2, "tools/call", {
          name: "slow",
          arguments: { steps: 2 },
          _meta: { progressToken: 1 },
        }),
        auth,
      ),
    );
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    expect(allowedOrigin(stream)).toBe(ORIGIN);
    expect((await sseMessages(stream)).at(-1)).toMatchObject({ id: 2 });
  });

  it("answers a toolset that fails with 500, readable by an allowed page, and keeps serving", async () => {
    let broken = true;
    const toolset = Toolset.fromBackend({
      listTools: async () => {
        if (broken) throw new Error("inventory down");
        return [];
      },
      toolHandler: async () => {
        throw new Error("unused");
      },
      shutdown: async () => {},
    });
    const handler = createMcpHandler(toolset, { name: "n", version: "1" });
    const failed = await handler.fetch(post(rpc(1, "tools/list"), { origin: ORIGIN }));
    expect(failed.status).toBe(500);
    expect(allowedOrigin(failed)).toBe(ORIGIN);
    expect(await failed.text()).not.toContain("inventory down");
    broken = false;
    const ok = await handler.fetch(post(rpc(2, "tools/list")));
    expect((await ok.json()).result).toEqual({ tools: [] });
  });

  it("survives JSON nested 100 000 deep in params, arguments and answers", async () => {
    const { handler } = fixtureHandler();
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const bodies = [
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${deep}}}`,
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":${deep}}}}`,
      `{"jsonrpc":"2.0","id":"e","error":{"code":1,"message":"m","data":${deep}}}`,
      deep,
    ];
    const statuses = [];
    for (const body of bodies) {
      const response = await handler.fetch(post(body));
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses.every((status) => status < 500)).toBe(true);
    const body = await (await handler.fetch(post(rpc(3, "ping")))).json();
    expect(body).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
  });

  it("reads an in-process fetch(url, init) exactly like a Request", async () => {
    const { handler } = fixtureHandler();
    const init = {
      method: "POST",
      headers: { ...CLIENT_HEADERS, origin: ORIGIN },
      body: JSON.stringify(rpc(1, "tools/call", { name: "echo", arguments: { message: "hi" } })),
    };
    const light = await handler.fetch("http://127.0.0.1:3000/mcp", init);
    const full = await handler.fetch(new Request("http://127.0.0.1:3000/mcp", init));
    expect(await light.json()).toEqual(await full.json());
    expect(allowedOrigin(light)).toBe(ORIGIN);
    const bad = await handler.fetch("http://127.0.0.1:3000/mcp", {
      method: "POST",
      headers: { "bad header": "x" },
    });
    expect(bad.status).toBe(400);
  });
});
