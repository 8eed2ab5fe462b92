/// <reference types="node" />
// Signing in from Node (docs/design.md, "OAuth (client)", OA9): `oauth()` with a loopback
// redirect server (RFC 8252 §7.3) that runs only while a sign-in waits for its redirect, and
// tokens in memory or in a file only the user can read.

import { dirname } from "node:path";
import { cancelledError } from "../abort.ts";
import { errorText, ToolError } from "../errors.ts";
import type { McpAuth } from "../mcp/client/mcp-session.ts";
import {
  checkOAuthOptions,
  memoryStorage,
  type OAuthOptions,
  type OAuthStorage,
} from "../oauth/oauth-options.ts";
import { type Served, serve } from "./serve.ts";

/** Options of `nodeOAuth()`; the client options are as for `oauth()` from `toolwire/oauth`. */
export interface NodeOAuthOptions
  extends Omit<OAuthOptions, "redirectUrl" | "authorize" | "callbackUrl" | "storage"> {
  /**
   * The redirect server's port (default 0: a free one per sign-in; the redirect URL names it).
   * Give a fixed one when the client is pre-registered with an exact redirect URL.
   */
  port?: number;
  /**
   * The loopback address the redirect server binds: `127.0.0.1` (default), another 127.x.x.x,
   * `::1` or `localhost`; any other host is `invalid_configuration`, since the redirect carries
   * the authorization code.
   */
  host?: string;
  /**
   * Keeps tokens and the registered client in this JSON file (mode 0600, written atomically),
   * so the next run signs in without the browser. Default: in memory, for this process.
   */
  tokensFile?: string;
  /**
   * How long a sign-in may wait for the browser to come back, in ms; default 10 minutes. Then
   * it fails with `timeout` and the redirect server closes.
   */
  timeoutMs?: number;
  /**
   * Shows the user the authorization URL (open a browser, print it). Default: prints it to
   * stderr. A rejection ends the sign-in with that error.
   */
  open?(url: URL): void | Promise<void>;
}

const CALLBACK_PATH = "/callback";
const DONE_PAGE =
  "<!doctype html><meta charset=utf-8><title>Signed in</title><p>Signed in. You can close this window.";
// A refused sign-in (`error=` in the redirect); the page never shows what the query says.
const REFUSED_PAGE =
  "<!doctype html><meta charset=utf-8><title>Not signed in</title><p>The sign-in did not complete. You can close this window.";
const LOOPBACK_HOST = /^(localhost|::1|127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/**
 * Creates the `auth` for `connectMcp` in Node: the MCP authorization flow of `oauth()`, where a
 * sign-in starts a redirect server on `http://127.0.0.1:<port>/callback`, shows the
 * authorization URL through `open`, and closes the server once the browser came back. Pass the
 * connection's `signal` to bound how long it waits for the user.
 *
 * @example
 * ```ts
 * const tools = await connectMcp({
 *   url: "https://mcp.example.com/mcp",
 *   auth: nodeOAuth({ tokensFile: `${os.homedir()}/.config/my-agent/tokens.json` }),
 * });
 * ```
 *
 * @throws ToolError `invalid_configuration` for a bad port or host, as `oauth()` does for the
 * rest. A sign-in rejects as `oauth()`'s does, or with `transport` when the redirect server
 * cannot listen.
 */
export function nodeOAuth(options: NodeOAuthOptions = {}): McpAuth {
  const {
    port = 0,
    host = "127.0.0.1",
    tokensFile,
    open = printUrl,
    timeoutMs = 600_000,
    ...client
  } = options;
  const invalid = (message: string) => new ToolError({ type: "invalid_configuration", message });
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw invalid("port must be a whole number from 0 to 65535");
  }
  if (typeof host !== "string" || !LOOPBACK_HOST.test(host)) {
    throw invalid(
      "host must be a loopback address: 127.0.0.1, another 127.x.x.x, ::1 or localhost",
    );
  }
  if (typeof open !== "function") throw invalid("open must be a function");
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw invalid("timeoutMs must be a positive whole number of milliseconds");
  }
  const storage = tokensFile === undefined ? memoryStorage() : fileStorage(tokensFile);
  const hostInUrl = host.includes(":") ? `[${host}]` : host;
  // One `oauth()` per redirect URL (a free port differs per sign-in); all share the storage.
  // The flow, and oauth4webapi with it (about 100 KB of source), loads with the first request
  // rather than with `toolwire/node` (cold start, design.md BC5).
  let flows: Promise<typeof import("../oauth/oauth.ts")> | undefined;
  const flowFor = async (redirectUrl: string, authorize: OAuthOptions["authorize"]) => {
    flows ??= import("../oauth/oauth.ts");
    return (await flows).oauth({ ...client, redirectUrl, storage, authorize });
  };
  // The sign-in waiting for its redirect: only a request with its `state` ends it, so another
  // local process cannot end it with an answer of its own.
  let waiting: { state: string | null; resolve(returned: URL): void } | undefined;
  const authorize = async (url: URL, signal: AbortSignal): Promise<string> => {
    let onAbort = () => {};
    let deadline: ReturnType<typeof setTimeout> | undefined;
    const returned = new Promise<URL>((resolve, reject) => {
      waiting = { state: url.searchParams.get("state"), resolve };
      onAbort = () => reject(cancelledError("oauth sign-in", signal));
      signal.addEventListener("abort", onAbort, { once: true });
      deadline = setTimeout(
        () => reject(new ToolError({ type: "timeout", tool: "oauth sign-in", timeoutMs })),
        timeoutMs,
      );
    });
    returned.catch(() => {});
    try {
      await open(url);
      return (await returned).href;
    } finally {
      clearTimeout(deadline);
      signal.removeEventListener("abort", onAbort);
    }
  };
  // Until the first sign-in, a placeholder redirect: giving the token or refreshing it needs no
  // redirect server. The client options are checked now rather than at the first request.
  const placeholder = `http://${hostInUrl}:${port}${CALLBACK_PATH}`;
  checkOAuthOptions({ ...client, redirectUrl: placeholder, storage, authorize });
  let current: Promise<McpAuth> | undefined;
  // Sign-ins per endpoint (origin and path): a refusal of one in flight joins it; another
  // endpoint's waits its turn, since the sign-ins share the port and `waiting`.
  const signingIn = new Map<string, Promise<void>>();
  let last: Promise<void> = Promise.resolve();

  const signIn = async (challenge: Parameters<McpAuth["unauthorized"]>[0], signal: AbortSignal) => {
    let server: Served;
    try {
      server = await serve(
        {
          fetch: (request) => {
            const url = new URL(request.url);
            const state = url.searchParams.get("state");
            if (url.pathname !== CALLBACK_PATH || !waiting || state !== waiting.state) {
              return new Response("Not found", { status: 404 });
            }
            waiting.resolve(url);
            waiting = undefined;
            return new Response(url.searchParams.has("error") ? REFUSED_PAGE : DONE_PAGE, {
              headers: { "content-type": "text/html; charset=utf-8" },
            });
          },
        },
        { port, hostname: host, signal },
      );
    } catch (error) {
      if (signal.aborted) throw cancelledError("oauth sign-in", signal);
      throw new ToolError({
        type: "transport",
        message: `the sign-in's redirect server could not listen on ${host}:${port}: ${errorText(error)}`,
      });
    }
    try {
      const chosen = new URL(server.url).port;
      current = flowFor(`http://${hostInUrl}:${chosen}${CALLBACK_PATH}`, authorize);
      await (await current).unauthorized(challenge, signal);
    } finally {
      waiting = undefined;
      await server.close();
    }
  };

  return {
    async authorization(resource, signal) {
      current ??= flowFor(placeholder, authorize);
      return (await current).authorization(resource, signal);
    },
    unauthorized(challenge, signal) {
      const key = challenge.resource.origin + challenge.resource.pathname;
      const running = signingIn.get(key);
      if (running) return running;
      const work = last
        .catch(() => {})
        .then(() => signIn(challenge, signal))
        .finally(() => signingIn.delete(key));
      signingIn.set(key, work);
      last = work;
      return work;
    },
  };
}

function printUrl(url: URL): void {
  process.stderr.write(`Sign in to continue: open this URL in a browser:\n${url.href}\n`);
}

// A JSON object of keys to values in one file, read once and rewritten whole on each change:
// a temporary file created 0600 beside it, then renamed over it, so a crash leaves the old
// file or the new one, never half of one, and no other user can read a token at any moment.
function fileStorage(path: string): OAuthStorage {
  let values: Map<string, string> | undefined;
  let writing: Promise<void> = Promise.resolve();
  // node:fs is loaded with the first read, not with toolwire/node (cold start).
  const fs = () => import("node:fs/promises");
  const load = async () => {
    if (values) return values;
    const { chmod, readFile, stat } = await fs();
    let text: string | undefined;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw fileError("read", path, error);
    }
    // A file others can read (made by hand, or by another tool) is narrowed to 0600 at once,
    // not only at the next write.
    if (text !== undefined && ((await stat(path)).mode & 0o077) !== 0) {
      await chmod(path, 0o600).catch((error: unknown) => {
        throw fileError("write", path, error);
      });
    }
    const parsed: unknown = text === undefined ? {} : safeJson(text);
    values = new Map(
      Object.entries(typeof parsed === "object" && parsed !== null ? parsed : {}).filter(
        (entry): entry is [string, string] => typeof entry[1] === "string",
      ),
    );
    return values;
  };
  const save = (known: Map<string, string>) => {
    const text = `${JSON.stringify(Object.fromEntries(known), null, 2)}\n`;
    // One write at a time, in order; a failed one does not block the next.
    writing = writing
      .catch(() => {})
      .then(async () => {
        const temporary = `${path}.${process.pid}.tmp`;
        const { chmod, mkdir, rename, rm, writeFile } = await fs();
        try {
          await mkdir(dirname(path), { recursive: true, mode: 0o700 });
          await writeFile(temporary, text, { mode: 0o600 });
          await chmod(temporary, 0o600);
          await rename(temporary, path);
        } catch (error) {
          await rm(temporary, { force: true }).catch(() => {});
          throw fileError("write", path, error);
        }
      });
    return writing;
  };
  return {
    get: async (key) => (await load()).get(key),
    set: async (key, value) => {
      const known = await load();
      known.set(key, value);
      await save(known);
    },
    delete: async (key) => {
      const known = await load();
      if (known.delete(key)) await save(known);
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

function fileError(what: "read" | "write", path: string, error: unknown): ToolError {
  const code = (error as NodeJS.ErrnoException).code;
  return new ToolError({
    type: "invalid_configuration",
    message: `could not ${what} the tokens file ${path}${code ? ` (${code})` : ""}`,
  });
}
