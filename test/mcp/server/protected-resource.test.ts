import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, isToolError, Toolset } from "../../../src/index.ts";
import {
  type AuthorizeContext,
  connectMcp,
  createMcpHandler,
  insufficientScope,
  type McpHandlerOptions,
} from "../../../src/mcp/index.ts";
import { createOAuthServer } from "../../support/oauth-server.ts";
import { post, rpc } from "./fixture.ts";
import { modern } from "./modern.ts";

// Serving a toolset as an OAuth protected resource: the metadata document, the 401 and 403
// challenges, the resource `authorize` checks the audience against, and the verified claims
// reaching the tool, in both eras, stateless and with sessions (docs/design.md OW1-OW5).

const ISSUER = "http://127.0.0.1:4999";
const RESOURCE = "http://127.0.0.1:3000/mcp";
const METADATA = "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp";

const whoami = defineTool({
  name: "whoami",
  description: "Says who called, with which scopes",
  readOnly: true,
  input: v.object({}),
  call: (_input, ctx) => JSON.stringify(ctx.auth ?? null),
});

/** A handler whose `authorize` checks bearer tokens of the test authorization server. */
function protectedHandler(options: Partial<McpHandlerOptions> = {}) {
  const as = createOAuthServer({ issuer: ISSUER, scopesSupported: ["mcp", "admin"] });
  const seen: AuthorizeContext[] = [];
  const handler = createMcpHandler(Toolset.local([whoami]), {
    name: "protected",
    version: "1",
    resourceMetadata: { authorizationServers: [ISSUER], scopesSupported: ["mcp"] },
    authorize: (request, context) => {
      seen.push(context);
      const claims = as.verifyRequest(request, context.resource);
      if (!claims) return false;
      if (!claims.scopes.includes("mcp")) return insufficientScope("mcp");
      return { subject: claims.subject, clientId: claims.clientId, scopes: claims.scopes };
    },
    ...options,
  });
  return { as, handler, seen };
}

const get = (url: string, headers: Record<string, string> = {}) =>
  new Request(url, { headers: { host: "127.0.0.1:3000", ...headers } });

describe("the protected-resource metadata", () => {
  it("is served at the well-known path of the endpoint, readable by any page", async () => {
    const { handler } = protectedHandler();
    const response = await handler.fetch(get(METADATA, { origin: "http://localhost:5173" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(await response.json()).toEqual({
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      scopes_supported: ["mcp"],
      bearer_methods_supported: ["header"],
    });
  });

  it("names the resource as the request reached it, or as configured, with the optional fields", async () => {
    const { handler } = protectedHandler({
      resourceMetadata: {
        authorizationServers: [ISSUER],
        resource: "https://mcp.example.com/mcp",
        resourceName: "Example",
        resourceDocumentation: "https://example.com/docs",
      },
      allowedHosts: ["*"],
    });
    const body = await (
      await handler.fetch(get("http://10.0.0.7/.well-known/oauth-protected-resource/mcp"))
    ).json();
    expect(body).toMatchObject({
      resource: "https://mcp.example.com/mcp",
      resource_name: "Example",
      resource_documentation: "https://example.com/docs",
    });
    const challenge = await handler.fetch(post(rpc(1, "tools/list")));
    expect(challenge.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it("uses the root form for an endpoint at `/`, and is not served without resourceMetadata", async () => {
    const root = protectedHandler({ endpoint: "/" }).handler;
    const atRoot = await root.fetch(
      get("http://127.0.0.1:3000/.well-known/oauth-protected-resource"),
    );
    expect(await atRoot.json()).toMatchObject({ resource: "http://127.0.0.1:3000/" });
    const plain = createMcpHandler(Toolset.local([whoami]), { name: "p", version: "1" });
    expect((await plain.fetch(get(METADATA))).status).toBe(404);
    // An endpoint at /mcp does not answer the root form: a client falls back to it only when
    // the path form is missing.
    const { handler } = protectedHandler();
    const rootForm = get("http://127.0.0.1:3000/.well-known/oauth-protected-resource");
    expect((await handler.fetch(rootForm)).status).toBe(404);
  });

  it("answers a preflight, refuses other methods, and keeps the Host check", async () => {
    const { handler } = protectedHandler();
    const preflight = await handler.fetch(
      new Request(METADATA, {
        method: "OPTIONS",
        headers: {
          host: "127.0.0.1:3000",
          origin: "http://localhost:5173",
          "access-control-request-method": "GET",
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect((await handler.fetch(new Request(METADATA, { method: "POST" }))).status).toBe(405);
    const rebound = get(METADATA, { host: "evil.example" });
    expect((await handler.fetch(rebound)).status).toBe(403);
  });
});

describe("refusals", () => {
  it("answers no token with 401 pointing at the metadata, with the scope to ask for", async () => {
    const { handler } = protectedHandler();
    const response = await handler.fetch(post(rpc(1, "tools/list")));
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate");
    expect(challenge).toBe(`Bearer resource_metadata="${METADATA}", scope="mcp"`);
    expect((await handler.fetch(get(METADATA))).status).toBe(200);
  });

  it("answers a bad token with invalid_token, and a token for another resource the same", async () => {
    const { as, handler } = protectedHandler();
    const foreign = as.issueAccessToken({ resource: "http://other.example/mcp" });
    for (const token of ["nonsense", foreign]) {
      const response = await handler.fetch(
        post(rpc(1, "tools/list"), { authorization: `Bearer ${token}` }),
      );
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(
        /^Bearer error="invalid_token", resource_metadata="/,
      );
      expect(await response.text()).not.toContain(token);
    }
  });

  it("answers 403 insufficient_scope, returned or thrown, without reporting it as a failure", async () => {
    const errors: unknown[] = [];
    for (const how of ["return", "throw"] as const) {
      const handler = createMcpHandler(Toolset.local([whoami]), {
        name: "scoped",
        version: "1",
        resourceMetadata: { authorizationServers: [ISSUER] },
        onError: (error) => errors.push(error),
        authorize: () => {
          const refusal = insufficientScope(["mcp", "admin"], { description: "admin needed" });
          if (how === "throw") throw refusal;
          return refusal;
        },
      });
      const response = await handler.fetch(
        post(rpc(1, "tools/list"), { origin: "http://localhost:5173" }),
      );
      expect(response.status).toBe(403);
      expect(response.headers.get("www-authenticate")).toBe(
        `Bearer error="insufficient_scope", scope="mcp admin", resource_metadata="${METADATA}", error_description="admin needed"`,
      );
      // A page can read the challenge.
      expect(response.headers.get("access-control-expose-headers")).toContain("www-authenticate");
    }
    expect(errors).toEqual([]);
  });

  it("names the needed scope in a 403 even without resourceMetadata", async () => {
    const handler = createMcpHandler(Toolset.local([whoami]), {
      name: "scoped",
      version: "1",
      authorize: () => insufficientScope("files:write"),
    });
    const response = await handler.fetch(post(rpc(1, "tools/list")));
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toBe(
      'Bearer error="insufficient_scope", scope="files:write"',
    );
  });

  it("refuses a token without the scope through the test authorization server", async () => {
    const { as, handler } = protectedHandler();
    const token = as.issueAccessToken({ scopes: ["admin"], resource: RESOURCE });
    const response = await handler.fetch(
      post(rpc(1, "tools/list"), { authorization: `Bearer ${token}` }),
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain('scope="mcp"');
  });
});

describe("the verified caller reaches the tool", () => {
  const cases = [
    { era: "2025-11-25", sessions: "stateless" },
    { era: "2025-11-25", sessions: "memory" },
    { era: "2026-07-28", sessions: "stateless" },
  ] as const;
  for (const { era, sessions } of cases) {
    it(`as ctx.auth on ${era}, ${sessions}`, async () => {
      const { as, handler, seen } = protectedHandler({ sessions });
      const token = as.issueAccessToken({ scopes: ["mcp"], resource: RESOURCE });
      const remote = await connectMcp({
        url: RESOURCE,
        protocol: era,
        headers: { authorization: `Bearer ${token}` },
        fetch: handler.fetch,
      });
      try {
        const result = await remote.call("whoami", {});
        const text = result.content[0]?.type === "text" ? result.content[0].text : "";
        expect(JSON.parse(text)).toEqual({
          subject: "user-1",
          clientId: "direct",
          scopes: ["mcp"],
        });
      } finally {
        await remote.shutdown();
      }
      expect(seen.every((context) => context.resource === RESOURCE)).toBe(true);
    });
  }

  it("refuses a 2026 request without a token with the same challenge", async () => {
    const { handler } = protectedHandler();
    const response = await handler.fetch(modern(1, "tools/list"));
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain(`resource_metadata="${METADATA}"`);
  });

  it("tells authorize the endpoint's URL as the resource without resourceMetadata", async () => {
    const seen: string[] = [];
    const handler = createMcpHandler(Toolset.local([whoami]), {
      name: "p",
      version: "1",
      authorize: (_request, { resource }) => {
        seen.push(resource);
        return true;
      },
    });
    await handler.fetch(post(rpc(1, "tools/list")));
    expect(seen).toEqual([RESOURCE]);
  });
});

describe("configuration", () => {
  it("rejects bad resourceMetadata and bad scopes with invalid_configuration", () => {
    const bad: unknown[] = [
      { authorizationServers: [] },
      { authorizationServers: ["not a url"] },
      { authorizationServers: [ISSUER], scopesSupported: ["two words"] },
      // Characters a quoted WWW-Authenticate value cannot carry (a header break, non-ASCII).
      { authorizationServers: [ISSUER], scopesSupported: ["a\r\nx-injected: 1"] },
      { authorizationServers: [ISSUER], scopesSupported: ["caf\u00e9"] },
      { authorizationServers: [ISSUER], resource: "/mcp" },
      { authorizationServers: [ISSUER], resource: "https://x.example/mcp#frag" },
      { authorizationServers: [ISSUER], resource: 'urn:x"y' },
      { authorizationServers: [ISSUER], resourceDocumentation: "docs" },
    ];
    for (const resourceMetadata of bad) {
      const create = () =>
        createMcpHandler(Toolset.local([whoami]), {
          name: "p",
          version: "1",
          resourceMetadata: resourceMetadata as McpHandlerOptions["resourceMetadata"] & object,
        });
      expect(create).toThrow(expect.objectContaining({ type: "invalid_configuration" }));
    }
    const refusals: [string | string[], string?][] = [
      [""],
      [[]],
      ['a"b'],
      ["a\\b"],
      ["files:write\r\nx-injected: 1"],
      [["ok", "caf\u00e9"]],
      ["ok", "two\nlines"],
      ["ok", 'a "quote"'],
    ];
    for (const [scope, description] of refusals) {
      try {
        insufficientScope(scope, description === undefined ? undefined : { description });
        expect.unreachable();
      } catch (error) {
        expect(isToolError(error, "invalid_configuration")).toBe(true);
      }
    }
  });
});
