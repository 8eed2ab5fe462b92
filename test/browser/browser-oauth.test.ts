// The browser provider in Chromium (docs/design.md OW6-OW9): the popup and its same-origin
// answer, a closed or blocked popup, cancellation, and the redirect return leaving the address bar.
import { afterEach, describe, expect, test, vi } from "vitest";
import { isToolError } from "../../src/index.ts";
import { popupSignIn, takeReturn } from "../../src/oauth/browser-oauth.ts";
import { browserOAuth, finishSignIn } from "../../src/oauth/index.ts";

const callbackPage = new URL("/test/browser/oauth-callback.html", location.origin);

/**
 * An authorization URL (carrying `state`) whose "server" at once sends the popup back to the
 * callback page with a code and `answerState`.
 */
function immediateReturn(state: string, answerState = state): URL {
  const back = new URL(callbackPage);
  back.searchParams.set("code", "the-code");
  back.searchParams.set("state", answerState);
  back.searchParams.set("iss", "https://as.example");
  const url = new URL(callbackPage);
  url.searchParams.set("state", state);
  url.searchParams.set("answer", back.href);
  return url;
}

const opened: (Window | null)[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const popup of opened.splice(0)) popup?.close();
});

function tracking(): void {
  const open = window.open.bind(window);
  vi.spyOn(window, "open").mockImplementation((...args) => {
    const popup = open(...args);
    opened.push(popup);
    return popup;
  });
}

describe("popup sign-in", () => {
  test("resolves with the URL the callback page posts back, and the popup closes", async () => {
    tracking();
    const answer = await popupSignIn(
      immediateReturn("s1"),
      new AbortController().signal,
      callbackPage,
      "popup",
      10_000,
    );
    expect(new URL(answer).searchParams.get("code")).toBe("the-code");
    expect(new URL(answer).searchParams.get("state")).toBe("s1");
    await vi.waitFor(() => expect(opened[0]?.closed).toBe(true));
  });

  test("ignores another sign-in's answer; the closed popup then means declined", async () => {
    tracking();
    const outcome = popupSignIn(
      immediateReturn("mine", "theirs"),
      new AbortController().signal,
      callbackPage,
      "popup",
      10_000,
    );
    const error = await outcome.catch((e: unknown) => e);
    expect(isToolError(error, "interaction_declined")).toBe(true);
  });

  test("fails with unsupported when the browser blocks the popup", async () => {
    vi.spyOn(window, "open").mockReturnValue(null);
    const error = await popupSignIn(
      new URL("https://as.example/authorize?state=x"),
      new AbortController().signal,
      callbackPage,
      "popup",
      10_000,
    ).catch((e: unknown) => e);
    expect(isToolError(error, "unsupported")).toBe(true);
    expect(String((error as Error).message)).toContain("click");
  });

  test("an abort closes the popup and rejects with cancelled", async () => {
    tracking();
    const stop = new AbortController();
    const outcome = popupSignIn(
      new URL("about:blank#state=x"),
      stop.signal,
      callbackPage,
      "popup",
      10_000,
    );
    stop.abort();
    const error = await outcome.catch((e: unknown) => e);
    expect(isToolError(error, "cancelled")).toBe(true);
    expect(opened[0]?.closed).toBe(true);
  });

  test("finishSignIn does nothing outside a sign-in popup", () => {
    expect(finishSignIn()).toBe(false);
  });
});

describe("redirect return", () => {
  test("hands the return URL over once and takes the code out of the address bar", () => {
    const before = location.href;
    try {
      history.replaceState(history.state, "", `${location.pathname}?keep=1&code=c&state=s&iss=i`);
      const redirect = new URL(location.pathname, location.origin);
      const taken = takeReturn(redirect);
      expect(taken && new URL(taken).searchParams.get("code")).toBe("c");
      expect(location.search).toBe("?keep=1");
      expect(takeReturn(redirect)).toBeUndefined();
    } finally {
      history.replaceState(history.state, "", before);
    }
  });

  test("is not taken on another path", () => {
    const before = location.href;
    try {
      history.replaceState(history.state, "", `${location.pathname}?code=c&state=s`);
      expect(takeReturn(new URL("/elsewhere", location.origin))).toBeUndefined();
      expect(location.search).toBe("?code=c&state=s");
    } finally {
      history.replaceState(history.state, "", before);
    }
  });
});

describe("browserOAuth options", () => {
  test("refuses a redirectUrl on another origin and a bad mode", () => {
    for (const options of [
      { redirectUrl: "https://elsewhere.example/callback" },
      { mode: "tab" as "popup" },
      { popupTimeoutMs: 0 },
    ]) {
      expect(() => browserOAuth(options)).toThrow(
        expect.objectContaining({ type: "invalid_configuration" }),
      );
    }
  });
});

describe("browserOAuth with connectMcp, against the test authorization server", () => {
  const MCP = "http://127.0.0.1:9/mcp";

  /** The authorization server and an MCP server behind it, reached through `fetch`. */
  async function servers() {
    const { createOAuthServer } = await import("../support/oauth-server.ts");
    const { Toolset, defineTool } = await import("../../src/index.ts");
    const { createMcpHandler } = await import("../../src/mcp/index.ts");
    const v = await import("valibot");
    const as = createOAuthServer({ issuer: "http://127.0.0.1:9" });
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
      allowedHosts: ["*"],
      allowedOrigins: ["*"],
      resourceMetadata: { authorizationServers: ["http://127.0.0.1:9"] },
      authorize: (request, { resource }) => {
        const claims = as.verifyRequest(request, resource);
        return claims ? { subject: claims.subject } : false;
      },
    });
    // Like the page's own `fetch`, it refuses to be called as another object's method.
    const fetch = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
      const request = new Request(input, init);
      return new URL(request.url).pathname.startsWith("/mcp") ||
        new URL(request.url).pathname.startsWith("/.well-known/oauth-protected-resource")
        ? mcp.fetch(request)
        : as.fetch(request);
    };
    return { as, fetch };
  }

  test("signs in through the popup, keeps the tokens in sessionStorage, and calls the tool", async () => {
    const { as, fetch } = await servers();
    sessionStorage.clear();
    // The popup is a real window, but the authorization server is in this page: its answer is
    // posted from the popup's window as finishSignIn would.
    const open = window.open.bind(window);
    vi.spyOn(window, "open").mockImplementation((url) => {
      const popup = open("about:blank", "_blank", "popup");
      opened.push(popup);
      void as.fetch(String(url)).then((answer) => {
        const back = answer.headers.get("location") as string;
        window.dispatchEvent(
          new MessageEvent("message", {
            origin: location.origin,
            source: popup,
            data: { type: "toolwire.oauth.callback", url: back },
          }),
        );
      });
      return popup;
    });
    const { connectMcp } = await import("../../src/mcp/index.ts");
    const remote = await connectMcp({ url: MCP, fetch, auth: browserOAuth({ fetch }) });
    try {
      const result = await remote.call("whoami", {});
      expect(result.content[0]).toMatchObject({ text: "you are user-1" });
    } finally {
      await remote.shutdown();
    }
    const kept = Object.keys(sessionStorage).join(" ");
    expect(kept).toContain("toolwire.oauth.");
    expect(as.authorizationRequests.length).toBe(1);
    // A second connection reuses the tokens: no second popup.
    const again = await connectMcp({ url: MCP, fetch, auth: browserOAuth({ fetch }) });
    await again.shutdown();
    expect(as.authorizationRequests.length).toBe(1);
    sessionStorage.clear();
  });
});
