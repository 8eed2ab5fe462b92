// `oauth()` signing in to a protected MCP server, both servers in process behind one `fetch`:
// the flow (oauth4webapi, Web Crypto for PKCE) is proven in Node, Chromium, workerd and Deno.
import * as v from "valibot";
import { defineTool, isToolError, Toolset } from "../../src/index.ts";
import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
import { oauth } from "../../src/oauth/index.ts";
import { createOAuthServer } from "../support/oauth-server.ts";
import { assert, assertEqual, type PortableCase } from "./harness.ts";

const ISSUER = "https://auth.example.test";
const MCP = "https://files.example.test/mcp";

function setup() {
  const as = createOAuthServer({ issuer: ISSUER });
  const whoami = defineTool({
    name: "whoami",
    description: "Says who called",
    readOnly: true,
    input: v.object({}),
    call: (_input, ctx) => `you are ${(ctx.auth as { subject: string }).subject}`,
  });
  const mcp = createMcpHandler(Toolset.local([whoami]), {
    name: "files",
    version: "1",
    allowedHosts: ["files.example.test"],
    resourceMetadata: { authorizationServers: [ISSUER] },
    authorize: (request, { resource }) => {
      const claims = as.verifyRequest(request, resource);
      return claims ? { subject: claims.subject } : false;
    },
  });
  const network: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    return new URL(request.url).origin === ISSUER ? as.fetch(request) : mcp.fetch(request);
  };
  return { as, network };
}

export const cases: PortableCase[] = [
  {
    name: "oauth: signs in on the 401, calls with the token, and refreshes it",
    async run() {
      const { as, network } = setup();
      let asked = 0;
      const auth = oauth({
        redirectUrl: "https://app.example.test/callback",
        fetch: network,
        authorize: async (url) => {
          asked++;
          const answer = await network(url, { redirect: "manual" });
          return answer.headers.get("location") ?? "";
        },
      });
      const tools = await connectMcp({ url: MCP, auth, fetch: network });
      const result = await tools.call("whoami", {});
      assertEqual(result.content, [{ type: "text", text: "you are user-1" }]);
      as.expireAccessTokens();
      const again = await tools.call("whoami", {});
      assert(again.isError !== true, "the refreshed token works");
      assertEqual(asked, 1, "the refresh asked the user nothing");
      await tools.shutdown();
    },
  },
  {
    name: "oauth: a refused sign-in is a typed error that shows no secret",
    async run() {
      const { as, network } = setup();
      const auth = oauth({
        redirectUrl: "https://app.example.test/callback",
        fetch: network,
        authorize: async (url) => {
          const answer = await network(url, { redirect: "manual" });
          const back = new URL(answer.headers.get("location") ?? "");
          back.searchParams.set("state", "not-the-state");
          return back;
        },
      });
      let error: unknown;
      try {
        await connectMcp({ url: MCP, auth, fetch: network });
      } catch (e) {
        error = e;
      }
      assert(isToolError(error, "protocol"), `expected a protocol error, got ${String(error)}`);
      const shown = JSON.stringify(error.toJSON());
      for (const secret of as.issuedSecrets()) assert(!shown.includes(secret), "no code shown");
    },
  },
];
