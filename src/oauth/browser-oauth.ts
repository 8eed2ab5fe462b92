// Signing in from a web page: `browserOAuth()` is `oauth()` with the two page-specific parts
// filled in, how the user reaches the authorization server (a popup, or the tab itself) and how
// the answer comes back (a same-origin `postMessage` from the popup, or the return URL of the
// tab), plus tokens in `sessionStorage`. `finishSignIn()` is what the page the authorization
// server redirects to runs. See `docs/design.md`, "OAuth (serving and the browser)", OW6….

import { cancelledError } from "../abort.ts";
import { ToolError } from "../errors.ts";
import type { McpAuth } from "../mcp/client/mcp-session.ts";
import { oauth } from "./oauth.ts";
import type { OAuthOptions, OAuthStorage } from "./oauth-options.ts";

// The page APIs used, declared here: the core type-checks without the DOM library (Workers).
/** What is used of a Web Storage (`sessionStorage`, `localStorage`). */
type WebStorage = {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
};
interface PageWindow {
  readonly closed: boolean;
  readonly opener: unknown;
  open(url: string, target: string, features: string): PageWindow | null;
  close(): void;
  postMessage(message: unknown, targetOrigin: string): void;
  addEventListener(type: "message", listener: (event: PageMessage) => void): void;
  removeEventListener(type: "message", listener: (event: PageMessage) => void): void;
}
interface PageMessage {
  readonly origin: string;
  readonly source: unknown;
  readonly data: unknown;
}
interface Page {
  location?: { href: string; origin: string; pathname: string; assign(url: string): void };
  history?: { state: unknown; replaceState(data: unknown, unused: string, url?: string): void };
  window?: PageWindow;
  sessionStorage?: WebStorage;
}
const scope = () => globalThis as unknown as Page;

/** Options of `browserOAuth()`; everything else is as for `oauth()`. */
export interface BrowserOAuthOptions
  extends Omit<OAuthOptions, "redirectUrl" | "authorize" | "callbackUrl" | "storage"> {
  /**
   * `popup` (default): the sign-in opens in a popup window and the page stays as it is; start
   * it from a click (see `browserOAuth`). `redirect`: the tab itself goes to the authorization
   * server and comes back to `redirectUrl`, where connecting again finishes the sign-in.
   */
  mode?: "popup" | "redirect";
  /**
   * Where the authorization server sends the user back; it must be on this page's origin.
   * Default: this page (origin and path, no query). In popup mode that page must call
   * `finishSignIn()` when it loads; a small page that does only that loads fastest.
   */
  redirectUrl?: string;
  /**
   * Where tokens, the registered client and a pending sign-in are kept: an `OAuthStorage`, or
   * a Web Storage such as `localStorage`. Default `sessionStorage`: it lasts as long as the tab
   * (a reload keeps it, a new tab signs in again) and other tabs cannot read it; `localStorage`
   * keeps the sign-in across tabs and restarts, but any script of the origin can read it at any
   * time, so an XSS bug then leaks long-lived refresh tokens.
   */
  storage?:
    | OAuthStorage
    | {
        getItem(key: string): string | null;
        setItem(key: string, value: string): void;
        removeItem(key: string): void;
      };
  /** `window.open` features of the popup; default a 500×650 popup window. */
  popupFeatures?: string;
  /** How long the popup may take, in ms; default 10 minutes. Then the sign-in fails with `timeout`. */
  popupTimeoutMs?: number;
}

/** The message the popup's `finishSignIn` posts to its opener. */
const CALLBACK_MESSAGE = "toolwire.oauth.callback";
// After the popup reports closed, a message it posted just before closing may still be queued.
const CLOSED_GRACE_MS = 1000;
const POLL_MS = 400;
const SIGN_IN = "oauth sign-in";

/**
 * Creates the `McpAuth` a page passes to `connectMcp({ url, auth })` to sign in to an MCP server
 * that needs OAuth: `oauth()` with a popup (or the tab) as the way to the authorization server
 * and `sessionStorage` for the tokens.
 *
 * Popup mode: browsers open a popup only shortly after a user's click, so call `connectMcp` (or
 * the tool call that needs the sign-in) from a click handler. The popup opens once discovery
 * has found the authorization server, a few requests after the click; if the browser still
 * blocks it the sign-in fails with `unsupported`, and another click can try again. The popup's
 * page (`redirectUrl`) must call `finishSignIn()`. A user who closes the popup gets
 * `interaction_declined`. An authorization server that sends `Cross-Origin-Opener-Policy:
 * same-origin` cuts the popup off from the page; use redirect mode with it.
 *
 * Redirect mode: the tab navigates to the authorization server, so unsaved page state is lost;
 * back on `redirectUrl`, calling `connectMcp` with a `browserOAuth({ mode: "redirect" })` again
 * finishes the sign-in and takes the code out of the address bar (`history.replaceState`).
 *
 * @example
 * ```ts
 * import { connectMcp } from "toolwire/mcp";
 * import { browserOAuth, finishSignIn } from "toolwire/oauth";
 *
 * if (!finishSignIn()) {
 *   button.onclick = async () => {
 *     const tools = await connectMcp({ url: "https://mcp.example.com/mcp", auth: browserOAuth() });
 *   };
 * }
 * ```
 *
 * @throws ToolError `invalid_configuration` outside a page, for a bad `mode`, or for a
 * `redirectUrl` on another origin.
 */
export function browserOAuth(options: BrowserOAuthOptions = {}): McpAuth {
  const { mode = "popup", redirectUrl, storage, popupFeatures, popupTimeoutMs, ...rest } = options;
  const page = scope().location;
  const bad = (message: string) => new ToolError({ type: "invalid_configuration", message });
  if (typeof page?.origin !== "string" || scope().window === undefined) {
    throw bad("browserOAuth() needs a web page; elsewhere use nodeOAuth from toolwire/node");
  }
  if (mode !== "popup" && mode !== "redirect") throw bad("`mode` must be `popup` or `redirect`");
  let redirect: URL;
  try {
    redirect = new URL(redirectUrl ?? page.origin + page.pathname, page.href);
  } catch {
    throw bad("`redirectUrl` must be a URL");
  }
  if (redirect.origin !== page.origin) {
    throw bad("`redirectUrl` must be on this page's origin, which receives the sign-in's answer");
  }
  const timeoutMs = popupTimeoutMs ?? 600_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw bad("`popupTimeoutMs` must be a positive integer");
  }
  const features = popupFeatures ?? "popup,width=500,height=650";
  const kept = toOAuthStorage(storage ?? tabStorage());
  return oauth({
    ...rest,
    redirectUrl: redirect.href,
    ...(kept ? { storage: kept } : {}),
    ...(mode === "popup"
      ? { authorize: (url, signal) => popupSignIn(url, signal, redirect, features, timeoutMs) }
      : {
          authorize: (url, signal) => leaveForSignIn(url, signal),
          callbackUrl: () => takeReturn(redirect),
        }),
  });
}

/**
 * Hands the authorization server's answer back to the page that opened the sign-in popup, and
 * closes the popup. Call it first thing on the page `redirectUrl` names (which may be the app
 * itself): it returns `false` and does nothing unless this window is such a popup, so the page
 * then starts as usual. The answer goes only to an opener on this same origin; the code leaves
 * the popup's address bar before anything else runs.
 *
 * @returns `true` when this window was the sign-in popup (it is closing), else `false`.
 */
export function finishSignIn(): boolean {
  const { location: page, window: here, history } = scope();
  if (!page || !here || !history) return false;
  if (!isReturn(new URL(page.href))) return false;
  const opener = here.opener as PageWindow | null;
  if (!opener || opener === here) return false;
  const href = page.href;
  history.replaceState(history.state, "", withoutAnswer(new URL(href)));
  // The target origin keeps the code from ever reaching a page of another origin.
  opener.postMessage({ type: CALLBACK_MESSAGE, url: href }, page.origin);
  here.close();
  return true;
}

/** Opens the sign-in popup and resolves with the return URL its `finishSignIn` posts back. */
export function popupSignIn(
  url: URL,
  signal: AbortSignal,
  redirect: URL,
  features: string,
  timeoutMs: number,
): Promise<string> {
  if (signal.aborted) return Promise.reject(cancelledError(SIGN_IN, signal));
  const here = scope().window as PageWindow;
  const popup = here.open(url.href, "toolwire-oauth", features);
  if (!popup) {
    return Promise.reject(
      new ToolError({
        type: "unsupported",
        operation:
          "opening the sign-in popup: the browser blocked it; start the sign-in from a click",
      }),
    );
  }
  const state = url.searchParams.get("state");
  return new Promise<string>((resolve, reject) => {
    let grace: ReturnType<typeof setTimeout> | undefined;
    const settle = (outcome: () => void) => {
      here.removeEventListener("message", onMessage);
      signal.removeEventListener("abort", onAbort);
      clearTimeout(deadline);
      clearTimeout(grace);
      clearInterval(poll);
      if (!popup.closed) popup.close();
      outcome();
    };
    const onMessage = (event: PageMessage) => {
      const data = event.data as { type?: unknown; url?: unknown } | null;
      if (event.origin !== redirect.origin || event.source !== popup) return;
      if (data?.type !== CALLBACK_MESSAGE || typeof data.url !== "string") return;
      // Another sign-in's answer (a second popup of the same page) is not this one's.
      if (!URL.canParse(data.url) || new URL(data.url).searchParams.get("state") !== state) return;
      const answer = data.url;
      settle(() => resolve(answer));
    };
    const onAbort = () => settle(() => reject(cancelledError(SIGN_IN, signal)));
    const deadline = setTimeout(
      () => settle(() => reject(new ToolError({ type: "timeout", tool: SIGN_IN, timeoutMs }))),
      timeoutMs,
    );
    const poll = setInterval(() => {
      if (!popup.closed || grace !== undefined) return;
      grace = setTimeout(() => {
        const reason = "the sign-in window was closed";
        settle(() =>
          reject(new ToolError({ type: "interaction_declined", tool: SIGN_IN, reason })),
        );
      }, CLOSED_GRACE_MS);
    }, POLL_MS);
    here.addEventListener("message", onMessage);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

// Redirect mode: the tab leaves; what follows happens on the return page (see `takeReturn`).
function leaveForSignIn(url: URL, signal: AbortSignal): Promise<string> {
  if (signal.aborted) return Promise.reject(cancelledError(SIGN_IN, signal));
  scope().location?.assign(url.href);
  return new Promise<string>((_resolve, reject) => {
    signal.addEventListener("abort", () => reject(cancelledError(SIGN_IN, signal)), {
      once: true,
    });
  });
}

/**
 * The return page's URL, once: the code and state leave the address bar (and so the history and
 * anything that reads `location` later) the first time the flow asks.
 */
export function takeReturn(redirect: URL): string | undefined {
  const { location, history } = scope();
  if (!location || !history) return undefined;
  const href = location.href;
  const here = new URL(href);
  if (here.origin !== redirect.origin || here.pathname !== redirect.pathname) return undefined;
  if (!isReturn(here)) return undefined;
  history.replaceState(history.state, "", withoutAnswer(here));
  return href;
}

const ANSWER_PARAMS = ["code", "state", "iss", "error", "error_description", "error_uri"];

function isReturn(url: URL): boolean {
  const query = url.searchParams;
  return query.has("state") && (query.has("code") || query.has("error"));
}

function withoutAnswer(url: URL): string {
  for (const name of ANSWER_PARAMS) url.searchParams.delete(name);
  return url.pathname + url.search + url.hash;
}

// A sandboxed frame throws on `sessionStorage`; the flow then keeps its state in memory.
function tabStorage(): WebStorage | undefined {
  try {
    return scope().sessionStorage;
  } catch {
    return undefined;
  }
}

function toOAuthStorage(storage: OAuthStorage | WebStorage | undefined): OAuthStorage | undefined {
  if (!storage || !("getItem" in storage)) return storage;
  return {
    get: (key) => storage.getItem(key) ?? undefined,
    set: (key, value) => storage.setItem(key, value),
    delete: (key) => storage.removeItem(key),
  };
}
