import { describe, expect, it } from "vitest";
import { CLIENT_HEADERS, fixtureHandler, post, rpc } from "./fixture.ts";

describe("origin policy (DNS-rebinding protection and CORS)", () => {
  it("admits loopback hosts and origins by default", async () => {
    const { handler } = fixtureHandler();
    for (const host of ["localhost:8080", "127.0.0.1", "[::1]:3000"]) {
      const response = await handler.fetch(
        post(rpc(1, "ping"), { host, origin: `http://${host}` }),
      );
      expect(response.status, host).toBe(200);
    }
  });

  it("refuses other hosts and origins with 403 by default", async () => {
    const { handler } = fixtureHandler();
    const badHost = await handler.fetch(post(rpc(1, "ping"), { host: "evil.example" }));
    expect(badHost.status).toBe(403);
    for (const origin of ["https://evil.example", "null", "http://localhost.evil.example"]) {
      const response = await handler.fetch(post(rpc(1, "ping"), { origin }));
      expect(response.status, origin).toBe(403);
      expect((await response.json()).error.message).toContain("Origin");
    }
  });

  it("uses configured lists instead of the defaults, with `*` switching a check off", async () => {
    const { handler } = fixtureHandler({
      allowedHosts: ["mcp.example.com"],
      allowedOrigins: ["https://app.example.com"],
    });
    const url = "https://mcp.example.com/mcp";
    const ok = await handler.fetch(
      post(rpc(1, "ping"), { host: "mcp.example.com", origin: "https://app.example.com" }, url),
    );
    expect(ok.status).toBe(200);
    const local = await handler.fetch(post(rpc(1, "ping")));
    expect(local.status).toBe(403);
    const otherOrigin = await handler.fetch(
      post(rpc(1, "ping"), { host: "mcp.example.com", origin: "http://localhost:3000" }, url),
    );
    expect(otherOrigin.status).toBe(403);
    const open = fixtureHandler({ allowedHosts: ["*"], allowedOrigins: ["*"] }).handler;
    const anywhere = await open.fetch(
      post(rpc(1, "ping"), { host: "x.test", origin: "https://y.test" }),
    );
    expect(anywhere.status).toBe(200);
  });

  it("answers a preflight with the CORS headers a browser client needs", async () => {
    const { handler } = fixtureHandler();
    const origin = "http://localhost:5173";
    const response = await handler.fetch(
      new Request("http://127.0.0.1:3000/mcp", {
        method: "OPTIONS",
        headers: { host: "127.0.0.1:3000", origin, "access-control-request-method": "POST" },
      }),
    );
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(origin);
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = response.headers.get("access-control-allow-headers") ?? "";
    for (const name of [
      "content-type",
      "authorization",
      "mcp-session-id",
      "mcp-protocol-version",
      "last-event-id",
    ]) {
      expect(allowed).toContain(name);
    }
    const exposed = response.headers.get("access-control-expose-headers") ?? "";
    expect(exposed).toContain("mcp-session-id");
    expect(exposed).toContain("www-authenticate");
  });

  it("puts CORS headers on ordinary answers and none without Origin", async () => {
    const { handler } = fixtureHandler();
    const withOrigin = await handler.fetch(
      post(rpc(1, "ping"), { origin: "http://localhost:5173" }),
    );
    expect(withOrigin.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    const without = await handler.fetch(post(rpc(1, "ping")));
    expect(without.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("checks the origin before authorizing, and preflights need no credentials", async () => {
    const { handler } = fixtureHandler({ authorize: () => false });
    const preflight = await handler.fetch(
      new Request("http://127.0.0.1:3000/mcp", {
        method: "OPTIONS",
        headers: { ...CLIENT_HEADERS, origin: "http://localhost" },
      }),
    );
    expect(preflight.status).toBe(204);
    const evil = await handler.fetch(post(rpc(1, "ping"), { origin: "https://evil.example" }));
    expect(evil.status).toBe(403);
  });

  it("allows the request headers a permitted page asks for, and refuses a foreign preflight", async () => {
    const { handler } = fixtureHandler();
    const preflight = (origin: string) =>
      handler.fetch(
        new Request("http://127.0.0.1:3000/mcp", {
          method: "OPTIONS",
          headers: {
            host: "127.0.0.1:3000",
            origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type, x-api-key, mcp-session-id",
          },
        }),
      );
    const ok = await preflight("http://localhost:5173");
    expect(ok.headers.get("access-control-allow-headers")).toBe(
      "content-type, x-api-key, mcp-session-id",
    );
    const evil = await preflight("https://evil.example");
    expect(evil.status).toBe(403);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
  });
});
