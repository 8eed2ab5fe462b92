import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, Toolset } from "../../../src/index.ts";
import { createMcpHandler } from "../../../src/mcp/index.ts";
import { createOAuthServer } from "../../support/oauth-server.ts";
import { post, rpc } from "./fixture.ts";

// The whole authorization code flow by hand, against the test authorization server
// (test/support/oauth-server.ts) and a protected MCP server (docs/design.md OW1-OW3): the
// discovery a client follows from the 401, and the checks the test server makes, which the
// OAuth client's and the browser's tests rely on to fail a client that gets the flow wrong.

const ISSUER = "http://127.0.0.1:4999";
const RESOURCE = "http://127.0.0.1:3000/mcp";
const REDIRECT = "http://127.0.0.1:5173/callback";

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
    name: "p",
    version: "1",
    resourceMetadata: { authorizationServers: [ISSUER] },
    authorize: (request, { resource }) => {
      const claims = as.verifyRequest(request, resource);
      return claims ? { subject: claims.subject } : false;
    },
  });
  const call = (token: string) =>
    mcp.fetch(
      post(rpc(1, "tools/call", { name: "whoami", arguments: {} }), {
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": "2025-11-25",
      }),
    );
  return { as, mcp, call };
}

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return btoa(String.fromCharCode(...new Uint8Array(digest)))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

/** Discovers from the 401, registers, and gets a code for `verifier`. */
async function codeFor(
  { as, mcp }: ReturnType<typeof setup>,
  verifier: string,
): Promise<{ code: string; clientId: string; redirect: URL; token: string; resource: string }> {
  const refused = await mcp.fetch(post(rpc(1, "tools/list")));
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(
    refused.headers.get("www-authenticate") ?? "",
  )?.[1];
  const resource = await (await mcp.fetch(new Request(metadataUrl ?? ""))).json();
  const issuer = resource.authorization_servers[0];
  const metadata = await (
    await as.fetch(`${issuer}/.well-known/oauth-authorization-server`)
  ).json();
  const client = await (
    await as.fetch(metadata.registration_endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
    })
  ).json();
  const authorize = new URL(metadata.authorization_endpoint);
  for (const [key, value] of Object.entries({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: await s256(verifier),
    code_challenge_method: "S256",
    state: "st",
    resource: resource.resource,
  })) {
    authorize.searchParams.set(key, value);
  }
  const answer = await as.fetch(authorize);
  const redirect = new URL(answer.headers.get("location") ?? "");
  return {
    code: redirect.searchParams.get("code") ?? "",
    clientId: client.client_id,
    redirect,
    token: metadata.token_endpoint,
    resource: resource.resource,
  };
}

describe("the authorization code flow against a protected MCP server", () => {
  it("discovers, signs in with PKCE, calls the tool, and refreshes after expiry", async () => {
    const servers = setup();
    const verifier = "a-verifier-of-enough-length-for-pkce-0123456789";
    const { code, clientId, redirect, token, resource } = await codeFor(servers, verifier);
    expect(resource).toBe(RESOURCE);
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT);
    expect(redirect.searchParams.get("state")).toBe("st");
    expect(redirect.searchParams.get("iss")).toBe(ISSUER);
    const grant = {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
      resource,
    };
    const tokens = await (await servers.as.fetch(token, form(grant))).json();
    const first = await servers.call(tokens.access_token);
    expect(await first.text()).toContain("you are user-1");

    // The code is spent.
    expect((await servers.as.fetch(token, form(grant))).status).toBe(400);
    servers.as.expireAccessTokens();
    expect((await servers.call(tokens.access_token)).status).toBe(401);
    const refresh = { grant_type: "refresh_token", client_id: clientId };
    const renewed = await (
      await servers.as.fetch(token, form({ ...refresh, refresh_token: tokens.refresh_token }))
    ).json();
    expect(await (await servers.call(renewed.access_token)).text()).toContain("you are user-1");
    // Refresh tokens rotate: the old one is spent.
    const reused = await servers.as.fetch(
      token,
      form({ ...refresh, refresh_token: tokens.refresh_token }),
    );
    expect(reused.status).toBe(400);
  });

  it("refuses a wrong verifier, another redirect_uri, another resource, or no PKCE", async () => {
    const servers = setup();
    const verifier = "a-verifier-of-enough-length-for-pkce-0123456789";
    const cases: Record<string, string>[] = [
      { code_verifier: "not-the-verifier" },
      { redirect_uri: "http://127.0.0.1:5173/elsewhere" },
      { resource: "http://other.example/mcp" },
    ];
    for (const change of cases) {
      const { code, clientId, token, resource } = await codeFor(servers, verifier);
      const grant = {
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
        resource,
        ...change,
      };
      const answer = await servers.as.fetch(token, form(grant));
      expect(answer.status).toBe(400);
    }
    const { clientId } = await codeFor(servers, verifier);
    const plain = new URL(`${ISSUER}/authorize`);
    for (const [key, value] of Object.entries({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: verifier,
      code_challenge_method: "plain",
      state: "st",
    })) {
      plain.searchParams.set(key, value);
    }
    const answer = new URL((await servers.as.fetch(plain)).headers.get("location") ?? "");
    expect(answer.searchParams.get("error")).toBe("invalid_request");
    const unknown = new URL(plain);
    unknown.searchParams.set("redirect_uri", "https://attacker.example/");
    expect((await servers.as.fetch(unknown)).status).toBe(400);
  });
});
