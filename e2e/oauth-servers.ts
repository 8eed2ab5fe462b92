// The servers of the OAuth e2e (e2e/oauth.spec.ts): the test authorization server
// (test/support/oauth-server.ts, with its one-click consent page) on 127.0.0.1:4175, and an MCP
// server on 127.0.0.1:4176 that needs its tokens: `resourceMetadata` names the authorization
// server, `authorize` checks each bearer token's audience and scope. GET /_test/secrets on the
// authorization server lists every code and token issued, so the spec can check none leaked.
// Run with `tsx e2e/oauth-servers.ts`.
import * as v from "valibot";
import { defineTool, Toolset } from "../src/index.ts";
import { createMcpHandler, insufficientScope } from "../src/mcp/index.ts";
import { serve } from "../src/node/index.ts";
import { createOAuthServer } from "../test/support/oauth-server.ts";

const AS_PORT = Number(process.env.DEMO_OAUTH_PORT ?? 4175);
const MCP_PORT = Number(process.env.DEMO_OAUTH_MCP_PORT ?? 4176);
const issuer = `http://127.0.0.1:${AS_PORT}`;
const authorization = createOAuthServer({ issuer, consent: "page", scopesSupported: ["mcp"] });

const echo = defineTool({
  name: "echo",
  description: "Returns its text, reversed, behind an OAuth sign-in.",
  readOnly: true,
  input: v.object({ text: v.string() }),
  call: ({ text }) => `signed-in echo: ${[...text].reverse().join("")}`,
});

const whoami = defineTool({
  name: "whoami",
  description: "Says which user the token was issued to.",
  readOnly: true,
  input: v.object({}),
  call: (_input, ctx) => `you are ${(ctx.auth as { subject?: string } | undefined)?.subject}`,
});

const mcp = createMcpHandler(Toolset.local([echo, whoami]), {
  name: "demo-oauth-e2e",
  version: "1.0.0",
  resourceMetadata: { authorizationServers: [issuer], scopesSupported: ["mcp"] },
  authorize: (request, { resource }) => {
    const token = request.headers.get("authorization")?.match(/^Bearer (.+)$/)?.[1];
    const claims = token ? authorization.verify(token, resource) : undefined;
    if (!claims) return false;
    if (!claims.scopes.includes("mcp")) return insufficientScope("mcp");
    return { subject: claims.subject, clientId: claims.clientId, scopes: claims.scopes };
  },
});

const asServer = await serve(
  {
    fetch: (request: Request) =>
      new URL(request.url).pathname === "/_test/secrets"
        ? Promise.resolve(Response.json(authorization.issuedSecrets()))
        : authorization.fetch(request),
  },
  { port: AS_PORT },
);
const mcpServer = await serve(mcp, { port: MCP_PORT });
console.log(`authorization server on ${asServer.url}, MCP server on ${mcpServer.url}/mcp`);
