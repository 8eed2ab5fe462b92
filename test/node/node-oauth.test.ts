import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defineTool, isToolError, Toolset } from "../../src/index.ts";
import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
import { nodeOAuth } from "../../src/node/index.ts";
import { caught } from "../support/caught.ts";
import { createOAuthServer } from "../support/oauth-server.ts";

// `nodeOAuth` end to end (docs/design.md OA9): a real loopback redirect server, the `open`
// callback playing the browser (it follows the authorization URL and then the redirect to
// 127.0.0.1), and the tokens file. The authorization and MCP servers answer in process.

const ISSUER = "http://127.0.0.1:4998";
const MCP = "http://127.0.0.1:3001/mcp";

function setup() {
  const as = createOAuthServer({ issuer: ISSUER });
  const whoami = defineTool({
    name: "whoami",
    description: "Says who called",
    readOnly: true,
    input: v.object({}),
    call: (_input, ctx) => `you are ${(ctx.auth as { subject: string }).subject}`,
  });
  // Two endpoints of one origin, each its own protected resource.
  const [mcp, other] = ["/mcp", "/other"].map((endpoint) =>
    createMcpHandler(Toolset.local([whoami]), {
      name: "p",
      version: "1",
      endpoint,
      resourceMetadata: { authorizationServers: [ISSUER] },
      authorize: (request, { resource }) => {
        const claims = as.verifyRequest(request, resource);
        return claims ? { subject: claims.subject } : false;
      },
    }),
  ) as [ReturnType<typeof createMcpHandler>, ReturnType<typeof createMcpHandler>];
  // The two servers in process; anything else (the redirect server) over the real network.
  const network: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const origin = new URL(request.url).origin;
    if (origin === ISSUER) return as.fetch(request);
    if (origin === new URL(MCP).origin) {
      return (request.url.includes("/other") ? other : mcp).fetch(request);
    }
    return fetch(request);
  };
  const redirects: URL[] = [];
  const pages: string[] = [];
  // The browser: the authorization server redirects it to the loopback server, which answers.
  const open = async (url: URL) => {
    const answer = await network(url, { redirect: "manual" });
    const location = new URL(answer.headers.get("location") ?? "");
    // Another local process guessing at the port gets nothing and ends nothing.
    const forged = new URL(location);
    forged.searchParams.set("state", "forged");
    forged.searchParams.set("code", "forged");
    pages.push(`${(await fetch(forged)).status}`);
    redirects.push(location);
    pages.push(await (await fetch(location)).text());
  };
  return { as, network, open, redirects, pages };
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("nodeOAuth", () => {
  it("signs in through a loopback redirect, then closes the redirect server", async () => {
    const s = setup();
    const auth = nodeOAuth({ open: s.open, fetch: s.network });
    const tools = await connectMcp({ url: MCP, auth, fetch: s.network });
    expect((await tools.call("whoami", {})).content).toEqual([
      { type: "text", text: "you are user-1" },
    ]);
    const [redirect] = s.redirects;
    expect(redirect?.hostname).toBe("127.0.0.1");
    expect(redirect?.pathname).toBe("/callback");
    expect(Number(redirect?.port)).toBeGreaterThan(0);
    expect(s.pages).toEqual(["404", expect.stringContaining("Signed in")]);
    // The server is gone once the sign-in is over.
    await expect(fetch(redirect as URL)).rejects.toThrow();
    await tools.shutdown();
  });

  it("writes the tokens file 0600 and signs in from it on the next run", async () => {
    dir = await mkdtemp(join(tmpdir(), "toolwire-oauth-"));
    const tokensFile = join(dir, "nested", "tokens.json");
    const s = setup();
    const first = nodeOAuth({ open: s.open, fetch: s.network, tokensFile });
    await (await connectMcp({ url: MCP, auth: first, fetch: s.network })).shutdown();
    expect((await stat(tokensFile)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(tokensFile, "utf8")) as Record<string, string>;
    expect(Object.keys(stored).some((key) => key.startsWith("toolwire.oauth.tokens "))).toBe(true);
    expect(Object.keys(stored)).not.toContain("toolwire.oauth.pending");

    const next = nodeOAuth({
      fetch: s.network,
      tokensFile,
      open: () => {
        throw new Error("the second run must not ask the user");
      },
    });
    const tools = await connectMcp({ url: MCP, auth: next, fetch: s.network });
    expect((await tools.call("whoami", {})).isError).not.toBe(true);
    expect(s.redirects).toHaveLength(1);
  });

  it("ends the sign-in with the caller's signal and leaves no server listening", async () => {
    const s = setup();
    const controller = new AbortController();
    let shown: URL | undefined;
    const auth = nodeOAuth({
      fetch: s.network,
      open: (url) => {
        shown = url;
        controller.abort();
      },
    });
    const error = await caught(
      connectMcp({ url: MCP, auth, fetch: s.network, signal: controller.signal }),
    );
    expect(isToolError(error, "cancelled")).toBe(true);
    const redirect = new URL(shown?.searchParams.get("redirect_uri") ?? "");
    await expect(fetch(redirect)).rejects.toThrow();
  });

  it("gives up after timeoutMs with timeout, and leaves no server listening", async () => {
    const s = setup();
    let shown: URL | undefined;
    // The user never comes back.
    const auth = nodeOAuth({
      fetch: s.network,
      timeoutMs: 50,
      open: (url) => {
        shown = url;
      },
    });
    const error = await caught(connectMcp({ url: MCP, auth, fetch: s.network }));
    expect(isToolError(error, "timeout")).toBe(true);
    const redirect = new URL(shown?.searchParams.get("redirect_uri") ?? "");
    await expect(fetch(redirect)).rejects.toThrow();
    expect(() => nodeOAuth({ timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it("prints the sign-in URL to stderr when no open is given", async () => {
    const s = setup();
    const printed: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      printed.push(String(chunk));
      const url = /https?:\/\/\S+/.exec(String(chunk))?.[0];
      if (url) void s.open(new URL(url));
      return true;
    });
    try {
      const tools = await connectMcp({
        url: MCP,
        auth: nodeOAuth({ fetch: s.network }),
        fetch: s.network,
      });
      expect((await tools.call("whoami", {})).isError).not.toBe(true);
    } finally {
      spy.mockRestore();
    }
    expect(printed.join("")).toContain(`${ISSUER}/authorize?`);
  });

  it("rejects a bad port, and a host that is not loopback", () => {
    expect(() => nodeOAuth({ port: 70000 })).toThrow(/port/);
    for (const host of ["0.0.0.0", "192.168.1.2", "::", "example.com", ""]) {
      expect(() => nodeOAuth({ host })).toThrow(
        expect.objectContaining({ type: "invalid_configuration" }),
      );
    }
    expect(() => nodeOAuth({ host: "::1" })).not.toThrow();
  });

  // The flow itself loads with the first request (cold start); its options are checked at once.
  it("rejects bad client options when it is called, before any request", () => {
    expect(() => nodeOAuth({ clientSecret: "s3cret-value" })).toThrow(
      expect.objectContaining({
        type: "invalid_configuration",
        message: expect.stringContaining("clientId"),
      }),
    );
    expect(() => nodeOAuth({ clientMetadataUrl: "http://example.com/client.json" })).toThrow(
      /clientMetadataUrl/,
    );
  });

  it("signs in to two endpoints at once, each with its own sign-in", async () => {
    const s = setup();
    const auth = nodeOAuth({ open: s.open, fetch: s.network });
    const other = MCP.replace("/mcp", "/other");
    const both = await Promise.all(
      [MCP, other].map((url) => connectMcp({ url, auth, fetch: s.network })),
    );
    for (const tools of both) expect((await tools.call("whoami", {})).isError).not.toBe(true);
    expect(s.redirects).toHaveLength(2);
  });

  it("answers a refused sign-in's redirect with a page that does not say signed in", async () => {
    const s = setup();
    let page = "";
    const auth = nodeOAuth({
      fetch: s.network,
      open: async (url) => {
        const back = new URL(url.searchParams.get("redirect_uri") ?? "");
        back.searchParams.set("error", "access_denied");
        back.searchParams.set("error_description", "<script>alert(1)</script>");
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        back.searchParams.set("iss", ISSUER);
        page = await (await fetch(back)).text();
      },
    });
    const error = await caught(connectMcp({ url: MCP, auth, fetch: s.network }));
    expect(isToolError(error, "transport")).toBe(true);
    expect(error.message).toContain("access_denied");
    expect(page).toContain("did not complete");
    expect(page).not.toContain("<script>");
  });

  it("narrows an existing tokens file others can read to 0600 on first use", async () => {
    dir = await mkdtemp(join(tmpdir(), "toolwire-oauth-"));
    const tokensFile = join(dir, "tokens.json");
    const s = setup();
    await (
      await connectMcp({
        url: MCP,
        auth: nodeOAuth({ open: s.open, fetch: s.network, tokensFile }),
        fetch: s.network,
      })
    ).shutdown();
    await chmod(tokensFile, 0o644);
    // The next run only reads the file: the stored token is still good.
    const tools = await connectMcp({
      url: MCP,
      auth: nodeOAuth({ open: s.open, fetch: s.network, tokensFile }),
      fetch: s.network,
    });
    expect((await tools.call("whoami", {})).isError).not.toBe(true);
    expect(s.redirects).toHaveLength(1);
    expect((await stat(tokensFile)).mode & 0o777).toBe(0o600);
  });
});
