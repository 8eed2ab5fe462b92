import * as v from "valibot";
import { describe, expect, it, vi } from "vitest";
import { defineTool, isToolError, ToolError, Toolset } from "../../src/index.ts";
import { connectMcp, createMcpHandler, insufficientScope } from "../../src/mcp/index.ts";
import { parseChallenge } from "../../src/oauth/discovery.ts";
import { type OAuthStorage, oauth } from "../../src/oauth/index.ts";
import { caught } from "../support/caught.ts";
import { createOAuthServer, type OAuthServerOptions } from "../support/oauth-server.ts";

// `oauth()` driving `connectMcp` against the test authorization server and a protected MCP
// server, both in process behind one routing `fetch` (docs/design.md, "OAuth (client)").

const ISSUER = "http://127.0.0.1:4999";
const MCP = "http://127.0.0.1:3000/mcp";
const REDIRECT = "http://127.0.0.1:5173/callback";

interface Setup {
  /** Answers a URL of either server, as the network would, and records it. */
  fetch?: (url: string, init: RequestInit | undefined, next: typeof fetch) => Promise<Response>;
  as?: Partial<OAuthServerOptions>;
  refuseAll?: boolean;
  sessions?: "memory";
}

function servers(setup: Setup = {}) {
  const as = createOAuthServer({
    issuer: ISSUER,
    scopesSupported: ["mcp", "files:write"],
    defaultScopes: ["mcp"],
    ...setup.as,
  });
  const whoami = defineTool({
    name: "whoami",
    description: "Says who called",
    readOnly: true,
    input: v.object({}),
    call: (_input, ctx) => `you are ${(ctx.auth as { subject: string }).subject}`,
  });
  // A hostile server: it echoes the caller's token in a log line.
  const echo = defineTool({
    name: "echo",
    description: "Echoes the token",
    input: v.object({}),
    call: (_input, ctx) => {
      const { token } = ctx.auth as { token: string };
      ctx.log("info", `your token is ${token}`);
      return "logged";
    },
  });
  const write = defineTool({
    name: "write",
    description: "Needs files:write",
    input: v.object({}),
    call: () => "written",
  });
  const mcp = createMcpHandler(Toolset.local([whoami, echo, write]), {
    name: "p",
    version: "1",
    resourceMetadata: { authorizationServers: [ISSUER], scopesSupported: ["mcp"] },
    ...(setup.sessions ? { sessions: setup.sessions } : {}),
    authorize: (request, { resource }) => {
      if (setup.refuseAll) return false;
      const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      const claims = as.verify(token, resource);
      if (!claims) return false;
      // 2026-07-28 names the tool in a header, which is all this check needs.
      if (request.headers.get("mcp-name") === "write" && !claims.scopes.includes("files:write")) {
        return insufficientScope(["mcp", "files:write"]);
      }
      return { subject: claims.subject, scopes: claims.scopes, token };
    },
  });
  const urls: string[] = [];
  const route: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    return new URL(request.url).origin === ISSUER ? as.fetch(request) : mcp.fetch(request);
  };
  const network: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    urls.push(url);
    return setup.fetch ? setup.fetch(url, init, route) : route(input, init);
  };
  const authorizations: URL[] = [];
  // The user: follows the authorization URL and hands back where the server redirected.
  const authorize = async (url: URL) => {
    authorizations.push(url);
    const answer = await network(url, { redirect: "manual" });
    return answer.headers.get("location") ?? "";
  };
  return { as, network, urls, authorizations, authorize };
}

function memory(): OAuthStorage & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    get: (key) => values.get(key),
    set: (key, value) => void values.set(key, value),
    delete: (key) => void values.delete(key),
  };
}

// A redirect-mode page that leaves for the sign-in: `authorize` never resolves, so the pending
// sign-in stays stored; the connection is then abandoned, as a page unloading does. Returns that
// connection's error and the URL the authorization server sends the user back to.
async function leaveForSignIn(s: ReturnType<typeof servers>, storage: OAuthStorage) {
  let left: URL | undefined;
  const leaving = oauth({
    redirectUrl: REDIRECT,
    fetch: s.network,
    storage,
    callbackUrl: () => undefined,
    authorize: (url) => {
      left = url;
      return new Promise<string>(() => {});
    },
  });
  const controller = new AbortController();
  const connecting = connectMcp({
    url: MCP,
    auth: leaving,
    fetch: s.network,
    signal: controller.signal,
  });
  await vi.waitFor(() => expect(left).toBeDefined());
  controller.abort();
  const gone = await caught(connecting);
  const answer = await s.network(left as URL, { redirect: "manual" });
  return { gone, returned: answer.headers.get("location") ?? "" };
}

function expectNoSecret(error: ToolError, secrets: string[]) {
  const shown = JSON.stringify(error.toJSON()) + String(error.message);
  for (const secret of secrets) expect(shown).not.toContain(secret);
}

describe("oauth() with connectMcp", () => {
  it("does not send the user to sign in again to close a session whose token was revoked", async () => {
    const s = servers({ sessions: "memory" });
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const tools = await connectMcp({ url: MCP, auth, protocol: "2025-11-25", fetch: s.network });
    await tools.call("whoami", {});
    s.as.expireAccessTokens();
    const outcome = await caught(tools.shutdown());
    expect(s.authorizations).toHaveLength(1);
    expect(String(outcome)).toContain("401");
  });

  for (const protocol of ["2025-11-25", "2026-07-28"] as const) {
    it(`signs in on the first 401 with PKCE and the resource, then calls with the token (${protocol})`, async () => {
      const s = servers();
      const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
      const tools = await connectMcp({ url: MCP, auth, protocol, fetch: s.network });
      const result = await tools.call("whoami", {});
      expect(result.content).toEqual([{ type: "text", text: "you are user-1" }]);
      expect(s.authorizations).toHaveLength(1);
      const asked = s.authorizations[0] as URL;
      expect(asked.searchParams.get("code_challenge_method")).toBe("S256");
      expect(asked.searchParams.get("resource")).toBe(MCP);
      expect(asked.searchParams.get("scope")).toBe("mcp");
      expect(asked.searchParams.get("state")).toMatch(/.{16,}/);
      // No token or code ever travels in a URL.
      for (const secret of s.as.issuedSecrets()) {
        for (const url of s.urls) expect(url).not.toContain(secret);
      }
      await tools.shutdown();
    });
  }

  it("stops the request's deadline while the user signs in", async () => {
    const s = servers();
    const auth = oauth({
      redirectUrl: REDIRECT,
      fetch: s.network,
      // The user takes three deadlines' worth of time.
      authorize: async (url) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return s.authorize(url);
      },
    });
    const tools = await connectMcp({
      url: MCP,
      auth,
      fetch: s.network,
      requestTimeoutMs: 100,
      protocol: "2026-07-28",
    });
    expect((await tools.call("whoami", {})).isError).not.toBe(true);
    // A step-up in the middle of a call pauses that call's idle deadline too.
    expect((await tools.call("write", {})).content).toEqual([{ type: "text", text: "written" }]);
  });

  it("keeps the sign-in in storage: a new connectMcp with it asks the user nothing", async () => {
    const s = servers();
    const storage = memory();
    const first = oauth({
      redirectUrl: REDIRECT,
      authorize: s.authorize,
      fetch: s.network,
      storage,
    });
    await (await connectMcp({ url: MCP, auth: first, fetch: s.network })).shutdown();
    const later = oauth({
      redirectUrl: REDIRECT,
      authorize: s.authorize,
      fetch: s.network,
      storage,
    });
    const tools = await connectMcp({ url: MCP, auth: later, fetch: s.network });
    expect((await tools.call("whoami", {})).isError).not.toBe(true);
    expect(s.authorizations).toHaveLength(1);
    expect([...storage.values.keys()].every((key) => key.startsWith("toolwire.oauth."))).toBe(true);
  });

  it("refreshes a token the server no longer takes before asking the user again", async () => {
    const s = servers();
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const tools = await connectMcp({ url: MCP, auth, fetch: s.network });
    s.as.expireAccessTokens();
    const result = await tools.call("whoami", {});
    expect(result.content).toEqual([{ type: "text", text: "you are user-1" }]);
    expect(s.authorizations).toHaveLength(1);
    expect(s.urls.filter((url) => url === `${ISSUER}/token`)).toHaveLength(2);
  });

  it("signs in again when the refresh token is refused", async () => {
    const s = servers({
      fetch: async (url, init, next) => {
        const refreshing = new URLSearchParams(String(init?.body)).get("grant_type");
        if (!url.endsWith("/token") || refreshing !== "refresh_token") return next(url, init);
        return Response.json({ error: "invalid_grant" }, { status: 400 });
      },
    });
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const tools = await connectMcp({ url: MCP, auth, fetch: s.network });
    s.as.expireAccessTokens();
    expect((await tools.call("whoami", {})).isError).not.toBe(true);
    expect(s.authorizations).toHaveLength(2);
  });

  it("signs in again when the refresh is refused without an OAuth error body", async () => {
    const s = servers({
      fetch: async (url, init, next) => {
        const refreshing = new URLSearchParams(String(init?.body)).get("grant_type");
        if (!url.endsWith("/token") || refreshing !== "refresh_token") return next(url, init);
        return new Response("<h1>Bad Request</h1>", {
          status: 400,
          headers: { "content-type": "text/html" },
        });
      },
    });
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const tools = await connectMcp({ url: MCP, auth, fetch: s.network });
    s.as.expireAccessTokens();
    expect((await tools.call("whoami", {})).isError).not.toBe(true);
    expect(s.authorizations).toHaveLength(2);
  });

  it("keeps the refresh token when the authorization server fails (5xx), for the next try", async () => {
    let failing = true;
    const s = servers({
      fetch: async (url, init, next) => {
        const refreshing = new URLSearchParams(String(init?.body)).get("grant_type");
        if (!failing || !url.endsWith("/token") || refreshing !== "refresh_token") {
          return next(url, init);
        }
        return Response.json({ error: "temporarily_unavailable" }, { status: 503 });
      },
    });
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const tools = await connectMcp({ url: MCP, auth, fetch: s.network });
    s.as.expireAccessTokens();
    expect(isToolError(await caught(tools.call("whoami", {})))).toBe(true);
    failing = false;
    expect((await tools.call("whoami", {})).isError).not.toBe(true);
    expect(s.authorizations).toHaveLength(1);
  });

  it("steps up on insufficient_scope: signs in again with the scopes the challenge adds", async () => {
    const s = servers();
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const tools = await connectMcp({ url: MCP, auth, protocol: "2026-07-28", fetch: s.network });
    const result = await tools.call("write", {});
    expect(result.content).toEqual([{ type: "text", text: "written" }]);
    expect(s.authorizations.map((url) => url.searchParams.get("scope"))).toEqual([
      "mcp",
      "mcp files:write",
    ]);
  });

  it("fails after one sign-in when the server refuses the fresh token, without falling back", async () => {
    const s = servers({ refuseAll: true });
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const error = await caught(connectMcp({ url: MCP, auth, fetch: s.network }));
    expect(isToolError(error, "transport")).toBe(true);
    expect((error as ToolError).message).toMatch(/HTTP 401.*signing in again did not help/);
    expect(s.authorizations).toHaveLength(1);
    // `auto` took the 401 as no evidence of a legacy server: no `initialize` was tried.
    const posts = s.urls.filter((url) => url === MCP);
    expect(posts).toHaveLength(2);
    expectNoSecret(error as ToolError, s.as.issuedSecrets());
  });

  it("scrubs the token from the log lines a server echoes it in, as with static headers", async () => {
    const s = servers();
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const tools = await connectMcp({ url: MCP, auth, fetch: s.network });
    const logs: unknown[] = [];
    await tools.call("echo", {}, { onLog: (log) => logs.push(log.data) });
    const [token] = s.as.issuedSecrets().filter((secret) => s.as.verify(secret));
    expect(token).toBeDefined();
    expect(logs).toHaveLength(1);
    expect(JSON.stringify(logs)).not.toContain(token);
    expect(JSON.stringify(logs)).toContain("[redacted]");
  });

  it("finishes a redirect-mode sign-in from storage when callbackUrl names the return", async () => {
    const s = servers();
    const storage = memory();
    const { gone, returned } = await leaveForSignIn(s, storage);
    expect(isToolError(gone, "cancelled")).toBe(true);
    let taken = false;
    const back = oauth({
      redirectUrl: REDIRECT,
      fetch: s.network,
      storage,
      authorize: () => Promise.reject(new Error("must not ask again")),
      // As a page does: the return URL is handed over once, then leaves the address bar.
      callbackUrl: () => {
        if (taken) return undefined;
        taken = true;
        return returned;
      },
    });
    // The page first connects another server: the return is not its to take.
    const elsewhere = new URL("http://127.0.0.1:3000/elsewhere");
    expect(await back.authorization(elsewhere, new AbortController().signal)).toBeUndefined();
    expect(taken).toBe(false);
    const tools = await connectMcp({ url: MCP, auth: back, fetch: s.network });
    expect((await tools.call("whoami", {})).content).toEqual([
      { type: "text", text: "you are user-1" },
    ]);
    expect(storage.values.has("toolwire.oauth.pending")).toBe(false);
  });

  it("refreshes once when requests find the token expiring together, keeping the rotated one", async () => {
    // Tokens that live 10 s are always within the refresh margin: every request refreshes.
    const s = servers({ as: { accessTokenTtlSeconds: 10 } });
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const resource = new URL(MCP);
    const signal = new AbortController().signal;
    await auth.unauthorized({ resource, status: 401, wwwAuthenticate: "Bearer" }, signal);
    const before = s.urls.filter((url) => url === `${ISSUER}/token`).length;
    const [a, b] = await Promise.all([
      auth.authorization(resource, signal),
      auth.authorization(resource, signal),
    ]);
    expect(s.urls.filter((url) => url === `${ISSUER}/token`).length - before).toBe(1);
    expect(a).toBe(b);
    expect(s.as.verify((a ?? "").replace(/^Bearer /, ""), MCP)).toBeDefined();
    // The rotated refresh token was kept: the next request refreshes with it.
    expect(await auth.authorization(resource, signal)).toMatch(/^Bearer /);
    expect(s.authorizations).toHaveLength(1);
  });

  it("takes a 401 of a request sent before the sign-in finished as a retry, not a new sign-in", async () => {
    const s = servers();
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const signal = new AbortController().signal;
    const refusal = { resource: new URL(MCP), status: 401, wwwAuthenticate: "Bearer" };
    await auth.unauthorized(refusal, signal);
    const requests = s.urls.length;
    // A second request went out without a token, and its 401 comes after the first sign-in.
    await auth.unauthorized({ ...refusal, authorization: undefined }, signal);
    expect(s.urls.length).toBe(requests);
    expect(s.authorizations).toHaveLength(1);
  });

  it("keeps no pending sign-in in storage outside redirect mode, and drops a refused one", async () => {
    const s = servers();
    const storage = memory();
    const keys: string[] = [];
    const watched: OAuthStorage = {
      ...storage,
      set: (key, value) => {
        keys.push(key);
        storage.set(key, value);
      },
    };
    const closed = () =>
      Promise.reject(
        new ToolError({ type: "interaction_declined", tool: "oauth sign-in", reason: "closed" }),
      );
    const popup = oauth({
      redirectUrl: REDIRECT,
      fetch: s.network,
      storage: watched,
      authorize: closed,
    });
    await caught(connectMcp({ url: MCP, auth: popup, fetch: s.network }));
    expect(keys).not.toContain("toolwire.oauth.pending");
    const redirect = oauth({
      redirectUrl: REDIRECT,
      fetch: s.network,
      storage: watched,
      authorize: closed,
      callbackUrl: () => undefined,
    });
    const error = await caught(connectMcp({ url: MCP, auth: redirect, fetch: s.network }));
    expect(isToolError(error, "interaction_declined")).toBe(true);
    expect(keys).toContain("toolwire.oauth.pending");
    expect(storage.values.has("toolwire.oauth.pending")).toBe(false);
  });

  it("does not finish a redirect-mode sign-in whose pending state is older than 15 minutes", async () => {
    const s = servers();
    const storage = memory();
    const { returned } = await leaveForSignIn(s, storage);
    const pending = JSON.parse(storage.values.get("toolwire.oauth.pending") ?? "{}");
    storage.values.set(
      "toolwire.oauth.pending",
      JSON.stringify({ ...pending, createdAt: Date.now() - 16 * 60_000 }),
    );
    const back = oauth({
      redirectUrl: REDIRECT,
      fetch: s.network,
      storage,
      // The stale return is not used: a new sign-in starts, which this user declines.
      authorize: () =>
        Promise.reject(
          new ToolError({ type: "interaction_declined", tool: "oauth sign-in", reason: "no" }),
        ),
      callbackUrl: () => returned,
    });
    const error = await caught(connectMcp({ url: MCP, auth: back, fetch: s.network }));
    expect(isToolError(error, "interaction_declined")).toBe(true);
    expect(s.urls.some((url) => url.endsWith("/token"))).toBe(false);
    expect(storage.values.has("toolwire.oauth.pending")).toBe(false);
  });

  it("uses a pre-registered confidential client with client_secret_basic", async () => {
    const secret = "pre-registered-secret-value";
    const s = servers({
      as: {
        clients: [
          {
            client_id: "my-client",
            client_secret: secret,
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: "client_secret_basic",
          },
        ],
      },
    });
    const auth = oauth({
      redirectUrl: REDIRECT,
      authorize: s.authorize,
      fetch: s.network,
      clientId: "my-client",
      clientSecret: secret,
    });
    const tools = await connectMcp({ url: MCP, auth, fetch: s.network });
    expect((await tools.call("whoami", {})).isError).not.toBe(true);
    expect(s.urls.some((url) => url.endsWith("/register"))).toBe(false);
    expect(s.authorizations[0]?.searchParams.get("client_id")).toBe("my-client");
  });

  it("uses the client metadata document URL as client_id when the server supports it", async () => {
    const document = "https://app.example/oauth/client.json";
    const s = servers({
      as: {
        fetch: async () =>
          Response.json({
            client_id: document,
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: "none",
          }),
      },
    });
    const auth = oauth({
      redirectUrl: REDIRECT,
      authorize: s.authorize,
      fetch: s.network,
      clientMetadataUrl: document,
    });
    await connectMcp({ url: MCP, auth, fetch: s.network });
    expect(s.authorizations[0]?.searchParams.get("client_id")).toBe(document);
    expect(s.urls.some((url) => url.endsWith("/register"))).toBe(false);
  });
});

describe("oauth() refuses what it must not trust", () => {
  it("refuses protected-resource metadata naming another resource, before any sign-in", async () => {
    const s = servers({
      fetch: async (url, init, next) => {
        if (!url.includes("/.well-known/oauth-protected-resource")) return next(url, init);
        return Response.json({
          resource: "https://evil.example/mcp",
          authorization_servers: [ISSUER],
        });
      },
    });
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const error = await caught(connectMcp({ url: MCP, auth, fetch: s.network }));
    expect(isToolError(error, "protocol")).toBe(true);
    expect((error as ToolError).message).toContain("not this endpoint");
    expect(s.authorizations).toHaveLength(0);
  });

  it("refuses a plain-http authorization server that is not on this machine", async () => {
    const s = servers({
      fetch: async (url, init, next) => {
        if (!url.includes("/.well-known/oauth-protected-resource")) return next(url, init);
        return Response.json({ resource: MCP, authorization_servers: ["http://as.example"] });
      },
    });
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const error = await caught(connectMcp({ url: MCP, auth, fetch: s.network }));
    expect(isToolError(error, "protocol")).toBe(true);
    expect((error as ToolError).message).toContain("must use https");
    expect(s.urls.some((url) => url.startsWith("http://as.example"))).toBe(false);
  });

  it("never lets a remote endpoint's metadata aim a request at this machine", async () => {
    const remote = new URL("https://mcp.example/mcp");
    const cases: [string, Record<string, unknown> | undefined][] = [
      ['Bearer resource_metadata="http://127.0.0.1:8080/admin/reset"', undefined],
      ['Bearer resource_metadata="https://0.0.0.0:8443/x"', undefined],
      ["Bearer", { resource: remote.href, authorization_servers: ["https://127.0.0.1:4443"] }],
      ["Bearer", { resource: remote.href, authorization_servers: ["https://localhost"] }],
    ];
    for (const [wwwAuthenticate, metadata] of cases) {
      const asked: string[] = [];
      const auth = oauth({
        redirectUrl: REDIRECT,
        authorize: () => Promise.reject(new Error("must not be reached")),
        fetch: async (input) => {
          const url = String(input);
          asked.push(url);
          return metadata ? Response.json(metadata) : new Response(null, { status: 404 });
        },
      });
      const error = await caught(
        auth.unauthorized(
          { resource: remote, status: 401, wwwAuthenticate },
          new AbortController().signal,
        ),
      );
      expect(isToolError(error, "protocol")).toBe(true);
      expect(error.message).toContain("on this machine");
      expect(asked.filter((url) => !url.startsWith("https://mcp.example/"))).toEqual([]);
    }
  });

  it("never opens an authorization endpoint that is not https (javascript:, data:, plain http)", async () => {
    for (const endpoint of ["javascript:alert(1)", "data:text/html,x", "http://as.example/auth"]) {
      const s = servers({
        fetch: async (url, init, next) => {
          if (!url.includes("/.well-known/oauth-authorization-server")) return next(url, init);
          const real = await (await next(url, init)).json();
          return Response.json({ ...real, authorization_endpoint: endpoint });
        },
      });
      const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
      const error = await caught(connectMcp({ url: MCP, auth, fetch: s.network }));
      expect(isToolError(error, "protocol")).toBe(true);
      expect(s.authorizations).toHaveLength(0);
    }
  });

  it("refuses authorization server metadata whose issuer differs", async () => {
    const s = servers({
      fetch: async (url, init, next) => {
        if (!url.includes("/.well-known/oauth-authorization-server")) return next(url, init);
        const real = await (await next(url, init)).json();
        return Response.json({ ...real, issuer: "https://attacker.example" });
      },
    });
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const error = await caught(connectMcp({ url: MCP, auth, fetch: s.network }));
    expect(isToolError(error, "protocol")).toBe(true);
    expect(s.authorizations).toHaveLength(0);
  });

  it("refuses a redirect whose iss is not the issuer, without a token request", async () => {
    const s = servers();
    const auth = oauth({
      redirectUrl: REDIRECT,
      fetch: s.network,
      authorize: async (url) => {
        const returned = new URL(await s.authorize(url));
        returned.searchParams.set("iss", `${ISSUER}/`);
        return returned;
      },
    });
    const error = await caught(connectMcp({ url: MCP, auth, fetch: s.network }));
    expect(isToolError(error, "protocol")).toBe(true);
    expect(s.urls.some((url) => url.endsWith("/token"))).toBe(false);
  });

  it("ends with the user's refusal: error=access_denied, or authorize's own ToolError", async () => {
    const s = servers();
    const denied = oauth({
      redirectUrl: REDIRECT,
      fetch: s.network,
      authorize: async (url) => {
        const back = new URL(REDIRECT);
        back.searchParams.set("error", "access_denied");
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        back.searchParams.set("iss", ISSUER);
        return back;
      },
    });
    const error = await caught(connectMcp({ url: MCP, auth: denied, fetch: s.network }));
    expect(isToolError(error, "transport")).toBe(true);
    expect(error.message).toContain("access_denied");
    const closed = oauth({
      redirectUrl: REDIRECT,
      fetch: s.network,
      authorize: () =>
        Promise.reject(
          new ToolError({ type: "interaction_declined", tool: "oauth sign-in", reason: "closed" }),
        ),
    });
    const declined = await caught(connectMcp({ url: MCP, auth: closed, fetch: s.network }));
    expect(isToolError(declined, "interaction_declined")).toBe(true);
  });

  it("reads metadata bounded: a body over 256 KiB fails that sign-in", async () => {
    const s = servers({
      fetch: async (url, init, next) => {
        if (!url.includes("/.well-known/oauth-protected-resource")) return next(url, init);
        return new Response(`{"resource":"${"x".repeat(300 * 1024)}"}`, {
          headers: { "content-type": "application/json" },
        });
      },
    });
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const error = await caught(connectMcp({ url: MCP, auth, fetch: s.network }));
    expect(isToolError(error, "transport")).toBe(true);
    expect((error as ToolError).message).toContain("262144 bytes");
  });

  it("never shows a code, token, verifier or secret, even when the server echoes them", async () => {
    const secret = "the-client-secret-123";
    let echoed = "";
    const s = servers({
      as: {
        clients: [
          {
            client_id: "c1",
            client_secret: secret,
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: "client_secret_post",
          },
        ],
      },
      fetch: async (url, init, next) => {
        if (!url.endsWith("/token")) return next(url, init);
        const body = new URLSearchParams(String(init?.body));
        echoed = `${body.get("code")} ${body.get("code_verifier")} ${body.get("client_secret")}`;
        return Response.json(
          { error: "invalid_grant", error_description: `refused ${echoed}` },
          { status: 400 },
        );
      },
    });
    const auth = oauth({
      redirectUrl: REDIRECT,
      authorize: s.authorize,
      fetch: s.network,
      clientId: "c1",
      clientSecret: secret,
      tokenEndpointAuthMethod: "client_secret_post",
    });
    const error = await caught(connectMcp({ url: MCP, auth, fetch: s.network }));
    expect(isToolError(error, "transport")).toBe(true);
    expect((error as ToolError).message).toContain("invalid_grant");
    expect(echoed.split(" ").every((part) => part.length > 8)).toBe(true);
    expectNoSecret(error as ToolError, [...echoed.split(" "), secret]);
  });
});

describe("oauth() cancellation and configuration", () => {
  it("aborting while the user signs in rejects as cancelled and aborts authorize's signal", async () => {
    const s = servers();
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const auth = oauth({
      redirectUrl: REDIRECT,
      fetch: s.network,
      authorize: (_url, signal) => {
        seen = signal;
        controller.abort();
        return new Promise<string>(() => {});
      },
    });
    const error = await caught(
      connectMcp({ url: MCP, auth, fetch: s.network, signal: controller.signal }),
    );
    expect(isToolError(error, "cancelled")).toBe(true);
    expect(seen?.aborted).toBe(true);
    expect(s.urls.some((url) => url.endsWith("/token"))).toBe(false);
  });

  it("does not start a sign-in for an already aborted signal", async () => {
    const s = servers();
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize, fetch: s.network });
    const controller = new AbortController();
    controller.abort();
    const challenge = { resource: new URL(MCP), status: 401, wwwAuthenticate: "Bearer" };
    const error = await caught(auth.unauthorized(challenge, controller.signal));
    expect(isToolError(error, "cancelled")).toBe(true);
    expect(s.urls).toHaveLength(0);
  });

  it("rejects auth together with an Authorization header, and oauth() without its essentials", async () => {
    const s = servers();
    const auth = oauth({ redirectUrl: REDIRECT, authorize: s.authorize });
    const both = await caught(
      connectMcp({ url: MCP, auth, headers: { authorization: "Bearer x" }, fetch: s.network }),
    );
    expect(isToolError(both, "invalid_configuration")).toBe(true);
    expect(s.urls).toHaveLength(0);
    const bad = [
      {},
      { redirectUrl: "not a url", authorize: s.authorize },
      { redirectUrl: REDIRECT, authorize: s.authorize, clientSecret: "s" },
      { redirectUrl: REDIRECT, authorize: s.authorize, clientMetadataUrl: "http://a.example/c" },
      {
        redirectUrl: REDIRECT,
        authorize: s.authorize,
        clientId: "c",
        tokenEndpointAuthMethod: "client_secret_basic",
      },
    ];
    for (const options of bad) {
      expect(
        isToolError(await caught(async () => oauth(options as never)), "invalid_configuration"),
      ).toBe(true);
    }
  });
});

describe("the WWW-Authenticate challenge", () => {
  it("reads the Bearer challenge's parameters, quoted or not, among other challenges", () => {
    expect(
      parseChallenge(
        'DPoP algs="ES256", Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp"',
      ),
    ).toEqual({
      error: "insufficient_scope",
      scope: "files:read files:write",
      resourceMetadata: "https://x.example/.well-known/oauth-protected-resource/mcp",
    });
    expect(parseChallenge('Bearer scope=mcp, realm="a \\"b\\""')).toEqual({ scope: "mcp" });
    expect(parseChallenge('Bearer realm="mcp", Basic realm="x", scope="not-bearer"')).toEqual({});
    expect(parseChallenge("Basic realm=x")).toEqual({});
    expect(parseChallenge(null)).toEqual({});
  });
});
