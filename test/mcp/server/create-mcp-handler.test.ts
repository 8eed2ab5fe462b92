import { describe, expect, it } from "vitest";
import { Toolset } from "../../../src/index.ts";
import { createMcpHandler, SUPPORTED_PROTOCOL_VERSIONS } from "../../../src/mcp/index.ts";
import { CLIENT_HEADERS, fixtureHandler, post, rpc } from "./fixture.ts";

const initialize = (version = "2025-11-25") =>
  rpc(1, "initialize", {
    protocolVersion: version,
    capabilities: {},
    clientInfo: { name: "test", version: "0" },
  });

describe("createMcpHandler", () => {
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
});
