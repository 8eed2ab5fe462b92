import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, Toolset } from "../../../src/index.ts";
import { createMcpHandler, type McpErrorContext } from "../../../src/mcp/index.ts";
import { resolveOptions } from "../../../src/mcp/server/options.ts";
import { caught } from "../../support/caught.ts";
import { CLIENT_HEADERS, fixtureHandler, post, rpc, sseMessages } from "./fixture.ts";

// What every request goes through before its protocol exchange: Host and Origin, CORS, the
// endpoint, `authorize`, and the 500 that `onError` observes (docs/design.md S1-S3, S9).

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

describe("resolveOptions", () => {
  it("fills in the defaults", () => {
    expect(resolveOptions({ name: "n", version: "1" })).toMatchObject({
      endpoint: "/mcp",
      maxBodyBytes: 1024 * 1024,
      sessions: "stateless",
      maxSessions: 1024,
      maxInFlightCalls: 64,
      sessionIdleTimeoutMs: 1_800_000,
      interactionPolicy: "reject",
      interactionTimeoutMs: 300_000,
      pageSize: 64,
    });
  });

  it("refuses bad identity, endpoint, limits and modes with invalid_configuration", async () => {
    const bad = [
      { name: "", version: "1" },
      { name: "n", version: "" },
      { name: "n", version: "1", endpoint: "mcp" },
      { name: "n", version: "1", endpoint: "/mcp?x=1" },
      { name: "n", version: "1", maxBodyBytes: 0 },
      { name: "n", version: "1", maxSessions: 1.5 },
      { name: "n", version: "1", sessionIdleTimeoutMs: -1 },
      { name: "n", version: "1", pageSize: Number.NaN },
      { name: "n", version: "1", sessions: "redis" },
      { name: "n", version: "1", interactionPolicy: "ask" },
    ];
    for (const options of bad) {
      const error = await caught(() => resolveOptions(options as never));
      expect(error.type, JSON.stringify(options)).toBe("invalid_configuration");
    }
    expect((await caught(() => resolveOptions(undefined as never))).type).toBe(
      "invalid_configuration",
    );
  });
});

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

  it("still answers its own local dev run when `allowedHosts` names the public host", async () => {
    // The README's Worker under `wrangler dev --ip 127.0.0.1 --port 8788`: DNS rebinding sends
    // the attacker's host name, never a loopback one, so loopback hosts always pass.
    const { handler } = fixtureHandler({ allowedHosts: ["calc.example.workers.dev"] });
    for (const host of ["127.0.0.1:8788", "localhost:8787", "[::1]:8788"]) {
      const response = await handler.fetch(post(rpc(1, "ping"), { host }, `http://${host}/mcp`));
      expect(response.status, host).toBe(200);
    }
    const rebound = await handler.fetch(
      post(rpc(1, "ping"), { host: "attacker.example:8788" }, "http://attacker.example:8788/mcp"),
    );
    expect(rebound.status).toBe(403);
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
    const otherHost = await handler.fetch(post(rpc(1, "ping"), { host: "other.example.com" }));
    expect(otherHost.status).toBe(403);
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

// The server hands what `authorize` returned to `Toolset.call` as `CallOptions.auth`, which the
// core passes to the tool as `ctx.auth`; the spy sees exactly what the toolset was given.
function spiedToolset(): { toolset: Toolset; auths: unknown[] } {
  const toolset = Toolset.local([
    defineTool({
      name: "whoami",
      description: "Says hello",
      readOnly: true,
      input: v.object({}),
      call: () => "hello",
    }),
  ]);
  const auths: unknown[] = [];
  const call = toolset.call.bind(toolset);
  toolset.call = (name, args, options) => {
    auths.push(options?.auth);
    return call(name, args, options);
  };
  return { toolset, auths };
}

const callWhoami = (headers: Record<string, string> = {}) =>
  post(rpc(1, "tools/call", { name: "whoami", arguments: {} }), headers);

describe("authorize and the caller", () => {
  it("passes what `authorize` returned to the toolset as the call's auth (ctx.auth)", async () => {
    const { toolset, auths } = spiedToolset();
    const handler = createMcpHandler(toolset, {
      name: "t",
      version: "1",
      authorize: (request) => ({
        subject: request.headers.get("authorization") ?? "",
        scopes: ["read"],
      }),
    });
    const body = await (await handler.fetch(callWhoami({ authorization: "alice" }))).json();
    expect(body.result.content[0].text).toBe("hello");
    expect(auths).toEqual([{ subject: "alice", scopes: ["read"] }]);
  });

  it("passes no auth without an authorizer, or when it answers `true`", async () => {
    for (const authorize of [undefined, () => true]) {
      const { toolset, auths } = spiedToolset();
      const handler = createMcpHandler(toolset, {
        name: "t",
        version: "1",
        ...(authorize ? { authorize } : {}),
      });
      await (await handler.fetch(callWhoami())).json();
      expect(auths).toEqual([undefined]);
    }
  });

  it("refuses with 401 when the authorizer throws, and reports the cause to onError", async () => {
    const seen: [unknown, McpErrorContext][] = [];
    const cause = new Error("token service down");
    const { handler } = fixtureHandler({
      authorize: () => {
        throw cause;
      },
      onError: (error, context) => seen.push([error, context]),
    });
    const response = await handler.fetch(post(rpc(1, "ping")));
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain("token service");
    expect(seen).toHaveLength(1);
    expect(seen[0]?.[0]).toBe(cause);
    expect(seen[0]?.[1].phase).toBe("authorize");
    expect(seen[0]?.[1].request.method).toBe("POST");
  });
});

describe("onError", () => {
  const broken = {
    listTools: () => Promise.reject(new Error("db at postgres://admin:hunter2@db/x")),
    toolHandler: () => {
      throw new Error("unused");
    },
    shutdown: () => Promise.resolve(),
  };

  it("observes every failure that became a 500, whose body says nothing of it", async () => {
    const seen: McpErrorContext[] = [];
    const handler = createMcpHandler(broken as never, {
      name: "t",
      version: "1",
      onError: (_, context) => seen.push(context),
    });
    const response = await handler.fetch(post(rpc(1, "tools/list")));
    expect(response.status).toBe(500);
    expect(await response.text()).not.toMatch(/hunter2|postgres|db at/);
    expect(seen.map((context) => context.phase)).toEqual(["request"]);
  });

  it("keeps the answer when onError itself throws", async () => {
    const handler = createMcpHandler(broken as never, {
      name: "t",
      version: "1",
      onError: () => {
        throw new Error("logger down");
      },
    });
    expect((await handler.fetch(post(rpc(1, "tools/list")))).status).toBe(500);
  });

  it("refuses an onError that is not a function", async () => {
    const error = await caught(() =>
      createMcpHandler(Toolset.local([]), { name: "t", version: "1", onError: 1 as never }),
    );
    expect(error.type).toBe("invalid_configuration");
  });
});
