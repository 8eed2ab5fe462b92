// The servers of the OAuth e2e (e2e/oauth.spec.ts): the test authorization server
// (test/support/oauth-server.ts, with its one-click consent page) on 127.0.0.1:4175, an MCP
// server on 127.0.0.1:4176 that needs its tokens (`resourceMetadata` names the authorization
// server, `authorize` checks each bearer token's audience and scope), and on 127.0.0.1:4177 a
// page that signs in with `browserOAuth({ mode: "redirect" })` (toolwire bundled from the
// sources by esbuild). GET /_test/secrets on the authorization server lists every code and
// token issued, so the spec can check none leaked. Run with `tsx e2e/oauth-servers.ts`.
import { build } from "esbuild";
import * as v from "valibot";
import { defineTool, Toolset } from "../src/index.ts";
import { createMcpHandler, insufficientScope } from "../src/mcp/index.ts";
import { serve } from "../src/node/index.ts";
import { createOAuthServer } from "../test/support/oauth-server.ts";

const AS_PORT = Number(process.env.DEMO_OAUTH_PORT ?? 4175);
const MCP_PORT = Number(process.env.DEMO_OAUTH_MCP_PORT ?? 4176);
const APP_PORT = Number(process.env.DEMO_OAUTH_APP_PORT ?? 4177);
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
    fetch: (request: Request) => {
      const path = new URL(request.url).pathname;
      if (path === "/_test/secrets")
        return Promise.resolve(Response.json(authorization.issuedSecrets()));
      // The consent page's tab asks for one; a 404 would be a console error.
      if (path === "/favicon.ico") return Promise.resolve(new Response(null, { status: 204 }));
      return authorization.fetch(request);
    },
  },
  { port: AS_PORT },
);
const mcpServer = await serve(mcp, { port: MCP_PORT });

// A page served from loopback (Chromium lets only such a page reach the loopback MCP server).
const bundle = await build({
  stdin: {
    contents: [
      'export { connectMcp } from "./src/mcp/index.ts";',
      'export { browserOAuth } from "./src/oauth/index.ts";',
    ].join("\n"),
    resolveDir: process.cwd(),
    loader: "ts",
  },
  bundle: true,
  format: "esm",
  platform: "browser",
  write: false,
  logLevel: "silent",
});
const script = bundle.outputFiles[0]?.text ?? "";
const page = `<!doctype html>
<title>Redirect sign-in</title>
<button id="connect">Connect</button>
<p id="out"></p>
<script type="module">
  import { browserOAuth, connectMcp } from "/toolwire.js";
  const out = document.querySelector("#out");
  async function connect() {
    try {
      const auth = browserOAuth({ mode: "redirect" });
      const tools = await connectMcp({ url: "${mcpServer.url}/mcp", auth });
      const names = (await tools.listTools()).map((tool) => tool.name).join(", ");
      const who = (await tools.call("whoami", {})).content[0].text;
      out.textContent = "connected: " + names + "; " + who;
    } catch (error) {
      out.textContent = "failed: " + error.message;
    }
  }
  document.querySelector("#connect").onclick = connect;
  // Back from the authorization server: connecting again finishes the sign-in.
  if (new URLSearchParams(location.search).has("state")) connect();
</script>`;
const appServer = await serve(
  {
    fetch: async (request: Request) =>
      new URL(request.url).pathname === "/toolwire.js"
        ? new Response(script, { headers: { "content-type": "text/javascript" } })
        : new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }),
  },
  { port: APP_PORT },
);
console.log(
  `authorization server on ${asServer.url}, MCP server on ${mcpServer.url}/mcp, redirect page on ${appServer.url}/app.html`,
);
