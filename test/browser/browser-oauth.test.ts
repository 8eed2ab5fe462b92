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
