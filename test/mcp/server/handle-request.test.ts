import { describe, expect, it } from "vitest";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../../../src/mcp/index.ts";
import { fixtureHandler, post, rpc } from "./fixture.ts";

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
