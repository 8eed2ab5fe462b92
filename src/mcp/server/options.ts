// What `createMcpHandler` takes: the options, their defaults, and what `authorize` may answer.
// Read once, when a handler is made; no request passes through this file.

import { ToolError } from "../../errors.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { Observer } from "../../observer.ts";
import type { DurableSessionNamespace } from "./durable-sessions.ts";
import type { InsufficientScope, ResourceMetadataOptions } from "./protected-resource.ts";
import type { McpSources } from "./sources.ts";

/**
 * What `authorize` may return besides `true`/`false` to admit a request. The tool sees the whole
 * value as `ctx.auth`; the server reads only the identity (see `createMcpHandler`).
 */
export interface AuthInfo {
  /** Who is calling; the identity sessions and cancellation are bound to. */
  subject?: string;
  /** The verified credential. */
  token?: string;
  /** The client it was issued to. */
  clientId?: string;
  /** The scopes it grants. */
  scopes?: string[];
  /** Anything else the hook wants the tools to see. */
  extra?: Record<string, unknown>;
}

/** What `authorize` may answer: admit (`true`, an `AuthInfo`), refuse (`false`), or ask for scope. */
export type AuthorizeOutcome = boolean | AuthInfo | InsufficientScope;

/** What `authorize` is told besides the request. */
export interface AuthorizeContext {
  /**
   * The resource identifier tokens must be issued for: `resourceMetadata.resource`, else the
   * endpoint's URL as the request reached it (`https://host/mcp`).
   */
  resource: string;
}

/** Where a failure reported to `onError` happened. */
export interface McpErrorContext {
  /**
   * `authorize`: the authorizer threw (the request got 401), or, once per handler, it named a
   * caller only by its `token` (an `invalid_configuration` error; the request is served; see
   * `authorize`). `request`: an unexpected failure answered 500. `tool`: the toolset failed in a way the client only sees as a generic error
   * (a transport or protocol failure of a backend, or a value that is not a `ToolError`).
   */
  phase: "authorize" | "request" | "tool";
  /** The HTTP request being answered. */
  request: Request;
}

/**
 * How `createMcpHandler` serves a toolset, and the resources and prompts it serves beside it
 * (`resources`, `resourceTemplates`, `prompts`; see `McpSources`). A server given none of them
 * serves tools only and declares no `resources`, `prompts` or `completions` capability.
 */
export interface McpHandlerOptions extends McpSources {
  /** `serverInfo.name`. */
  name: string;
  /** `serverInfo.version`. */
  version: string;
  /** `serverInfo.title`, a display name. */
  title?: string;
  /** `instructions` returned by `initialize`. */
  instructions?: string;
  /** The path served; default `/mcp`. Other paths get 404. */
  endpoint?: string;
  /**
   * Origins a browser page may call from (exact, e.g. `https://app.example.com`; `"*"` for
   * any). Default: loopback origins only. A request without `Origin` (not a browser) passes.
   */
  allowedOrigins?: readonly string[];
  /**
   * Hosts the endpoint answers as (`mcp.example.com` for any port, `mcp.example.com:8443`, or
   * `"*"`). Default: `localhost`, `127.0.0.1` and `[::1]` only, so DNS rebinding cannot reach a
   * local server. A deployed server must list its public host; loopback hosts still pass, so
   * its local dev run (`wrangler dev`, `127.0.0.1:8788`) is answered too.
   */
  allowedHosts?: readonly string[];
  /**
   * Admits or refuses a request; runs for every request but CORS preflights, after the Host and
   * Origin checks. `false` (or a throw, which `onError` sees) answers 401 with
   * `WWW-Authenticate: Bearer` (with `resource_metadata` and `scope` under `resourceMetadata`,
   * and `error="invalid_token"` when the request carried `Authorization`). `insufficientScope(…)`
   * (returned or thrown) answers 403 `insufficient_scope` naming the scopes needed. `true` admits
   * an anonymous caller; an `AuthInfo` admits that caller, reaches every tool it calls as
   * `ctx.auth`, and names its identity: the first of `subject`, `sub`, `id`, `clientId`, `token`
   * that is set, else the whole value compared as JSON. A session answers only the identity that
   * created it (others get 404), `notifications/cancelled` only reaches the sender's own calls,
   * and the per-caller limits (`maxSessionsPerCaller`, …) count per identity.
   *
   * Return `subject` (or `sub`, `id`, `clientId`): with only `token`, the identity is the token,
   * so after a refresh the same client is a new caller: its session answers 404 and a pending
   * question's answer is dropped. The first such request is reported to `onError` (phase
   * `authorize`, without the token) and served.
   *
   * `context.resource` is the resource identifier (see `resourceMetadata.resource`): check that
   * the token was issued for it (its audience), so a token meant for another server is refused.
   * To decide by the JSON-RPC method or tool, read `request.clone()`: the server reads the body
   * after `authorize`.
   *
   * @example
   * ```ts
   * authorize: async (request, { resource }) => {
   *   const user = await verify(request.headers.get("authorization"), resource);
   *   return user ? { subject: user.id, scopes: user.scopes } : false;
   * }
   * ```
   */
  authorize?(
    request: Request,
    context: AuthorizeContext,
  ): AuthorizeOutcome | Promise<AuthorizeOutcome>;
  /**
   * Makes the endpoint an OAuth protected resource (RFC 9728): its metadata is served at
   * `/.well-known/oauth-protected-resource` + `endpoint` (CORS open to any page), and every 401
   * points clients there, so an MCP client with `auth` finds the authorization server and signs
   * in. Tokens are still checked by `authorize`.
   */
  resourceMetadata?: ResourceMetadataOptions;
  /**
   * Observes failures the client sees only as a generic answer: a 500, an authorizer that threw,
   * and a toolset failure whose details are withheld (see `McpErrorContext`). Details never
   * reach the client; log them here. A throw from `onError` itself is ignored.
   */
  onError?(error: unknown, context: McpErrorContext): void;
  /**
   * Told of every request the server handles, with its `params._meta` (where a traced client
   * sends its trace context) and its HTTP headers: `otelObserver()` from `toolwire/otel` makes
   * each a span, a child of the client's. Default: none (a request then pays nothing for it).
   */
  observer?: Observer;
  /** The largest request body accepted, in bytes; default 1 MiB. Larger ones get 413. */
  maxBodyBytes?: number;
  /**
   * The deepest nesting of objects and arrays a POSTed message may have (the message itself is
   * level 1, a call's `arguments` level 3); default 128. A deeper one is refused before anything
   * walks it: HTTP 400 with JSON-RPC error `-32602` and the request's own id, in either
   * revision. Nesting deep enough to overflow a parser's or validator's stack fits in a small
   * body, so `maxBodyBytes` alone does not bound it.
   */
  maxJsonDepth?: number;
  /**
   * The most `tools/call` requests running at once: per session in `memory` mode, for the whole
   * handler in `stateless` mode; default 64. One more is answered with a JSON-RPC error
   * (`-32000`, "too many calls in flight") while the running ones carry on.
   */
  maxInFlightCalls?: number;
  /**
   * The most `tools/call` requests one caller (an identity `authorize` named) runs at once,
   * across its sessions and both revisions; default 32. One more is answered `-32000` as for
   * `maxInFlightCalls`, so one caller cannot take every slot. Anonymous callers cannot be told
   * apart, so only `maxInFlightCalls` bounds them.
   */
  maxInFlightCallsPerCaller?: number;
  /** `stateless` (default: any instance answers any request) or in-memory `Mcp-Session-Id` sessions. */
  sessions?: "stateless" | "memory";
  /**
   * On Cloudflare Workers: gives each 2025 session one home, a Durable Object of this namespace
   * (`env.MCP_SESSIONS`), and sends every request of the session there, whichever isolate took
   * it, so a client's answer to a tool's question reaches the running tool. The object serves
   * them with its own `createMcpHandler(toolset, { ...sameOptions, sessions: "memory" })`
   * (see the deploy guide); this handler authorizes, then only routes 2025 requests (and serves
   * 2026-07-28 ones itself). The session ids clients see name the object. Default: none.
   */
  durableSessions?: DurableSessionNamespace;
  /** The most live sessions in `memory` mode; default 1024. One more `initialize` gets 503. */
  maxSessions?: number;
  /**
   * The most live sessions one caller (an identity `authorize` named) holds in `memory` mode;
   * default 128. Its next `initialize` gets 503 while other callers still get sessions.
   * Anonymous callers are bounded by `maxSessions` only.
   */
  maxSessionsPerCaller?: number;
  /**
   * The most 2026 `subscriptions/listen` streams open at once; default 1024. One more is
   * answered with JSON-RPC error `-32603` "Subscription limit reached".
   */
  maxListens?: number;
  /**
   * The most `subscriptions/listen` streams one caller (an identity `authorize` named) keeps
   * open; default 128. One more is answered `-32603` as for `maxListens`. Anonymous callers are
   * bounded by `maxListens` only.
   */
  maxListensPerCaller?: number;
  /**
   * How long a `memory` session lives without a request and with no call running, in ms;
   * default 30 minutes. Its next request then gets 404, and the client must initialize again.
   */
  sessionIdleTimeoutMs?: number;
  /**
   * What a tool's question becomes on the 2025 revisions: a tool error (`reject`, default), or a
   * request to the client (`elicit`): text and form questions as `elicitation/create`, sampling requests as
   * `sampling/createMessage`, each only when the client declared that capability (in stateless
   * mode the server never saw `initialize`, so `elicit` assumes it did). A text question's
   * answer reaches the tool as a string, as it does locally. On 2026-07-28 a question is always
   * answered `input_required` (see `stateSecret`), since the request itself declares what the
   * client can answer and nothing waits on the server.
   */
  interactionPolicy?: "reject" | "elicit";
  /** How long a 2025 question may wait for its answer, in ms; default 5 minutes. */
  interactionTimeoutMs?: number;
  /**
   * With `memory` sessions, a 2025-11-25 request's SSE answer is resumable: it opens with a
   * priming event, every event has an id, and a client whose connection closed or dropped gets
   * what it missed with a GET carrying `Last-Event-ID`. This is the `retry:` it is told to wait
   * before reconnecting, in ms; default 1000.
   */
  sseRetryMs?: number;
  /**
   * With `memory` sessions, closes the connection of a 2025-11-25 request still running this
   * long after the connection opened, in ms (SSE polling): the client reconnects after
   * `sseRetryMs` with `Last-Event-ID` and the call goes on. A request not yet streaming is
   * switched to a stream first. Default: connections stay open until the answer.
   */
  ssePollMs?: number;
  /** Tools per `tools/list` page; default 64. */
  pageSize?: number;
  /**
   * The secret that signs `requestState` on the 2026-07-28 path, at least 32 characters. Every
   * instance that may take a retry (every isolate of a Worker, every replica) must share it; set
   * it from the environment (`env.MCP_STATE_SECRET`). Without it each handler draws a random
   * key, so a question's retry must reach the instance that asked.
   */
  stateSecret?: string | undefined;
  /** How long a 2026 `requestState` stays valid after it was issued, in ms; default 10 minutes. */
  requestStateTtlMs?: number;
  /**
   * The most bytes of a call's recorded `ctx.once` results (keys plus JSON text) a 2026
   * `requestState` carries; default 256 KiB, so the retry stays well inside `maxBodyBytes`. A
   * tool that asks a question with more recorded fails the call (`unsupported`) rather than
   * running its effects again on the retry.
   */
  maxJournalBytes?: number;
  /**
   * The caching hints of 2026 `server/discover` and `tools/list` results: how long a client may
   * reuse one (`ttlMs`, default 0) and whether it is the same for every caller (`public`) or
   * only for this authorization (`private`, default).
   */
  cacheHints?: { ttlMs?: number; cacheScope?: "public" | "private" };
  /**
   * The key of a tool's question in a 2026 `input_required` result (the client answers under
   * it), given the question and its position among the call's questions (0 first). Default
   * `q<position>`. It must come out the same when the tool runs again for the retry.
   *
   * @example
   * ```ts
   * questionKey: (question, index) => (question.prompt === "What is your name?" ? "user_name" : `q${index}`)
   * ```
   */
  questionKey?(question: ToolInteractionRequest, index: number): string;
  /**
   * Serves the MCP Tasks extension (`io.modelcontextprotocol/tasks`) on 2026-07-28: a tool
   * declared with `taskSupport` and called by a request that declares the extension answers a
   * task handle at once and runs beyond the request; the client polls `tasks/get`, answers
   * questions with `tasks/update`, and may `tasks/cancel`. Made by `mcpTasks(…)`, which holds the
   * store, retention and limits. Without it no tool runs as a task and `taskSupport` is not read.
   */
  tasks?: McpTasks;
}

/**
 * The MCP Tasks extension as `createMcpHandler` takes it: what `mcpTasks(…)` returns, opaque
 * here so a handler without tasks loads none of their code.
 */
export interface McpTasks {
  readonly "~kind": "mcp_tasks";
}

/** The options with every default filled in. */
export type ResolvedOptions = Required<Omit<McpHandlerOptions, OptionalOption>> &
  Pick<McpHandlerOptions, OptionalOption>;

type OptionalOption =
  | "title"
  | "instructions"
  | "allowedOrigins"
  | "allowedHosts"
  | "authorize"
  | "onError"
  | "observer"
  | "stateSecret"
  | "cacheHints"
  | "questionKey"
  | "resourceMetadata"
  | "resources"
  | "resourceTemplates"
  | "prompts"
  | "durableSessions"
  | "ssePollMs"
  | "tasks";

/** Returns the options with defaults filled in, or throws `invalid_configuration`. */
export function resolveOptions(options: McpHandlerOptions): ResolvedOptions {
  const bad = (message: string) => new ToolError({ type: "invalid_configuration", message });
  if (typeof options?.name !== "string" || options.name === "") throw bad("`name` is required");
  if (typeof options.version !== "string" || options.version === "") {
    throw bad("`version` is required");
  }
  const endpoint = options.endpoint ?? "/mcp";
  if (!endpoint.startsWith("/") || /[?#]/.test(endpoint)) {
    throw bad("`endpoint` must be a path starting with `/`, without query or fragment");
  }
  const positive = (name: keyof McpHandlerOptions, fallback: number): number => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
      throw bad(`\`${name}\` must be a positive integer`);
    }
    return value;
  };
  if (options.onError !== undefined && typeof options.onError !== "function") {
    throw bad("`onError` must be a function");
  }
  if (options.observer && typeof options.observer.start !== "function") {
    throw bad("`observer` must be an Observer");
  }
  const resolved: ResolvedOptions = {
    ...options,
    endpoint,
    maxBodyBytes: positive("maxBodyBytes", 1024 * 1024),
    maxJsonDepth: positive("maxJsonDepth", 128),
    maxInFlightCalls: positive("maxInFlightCalls", 64),
    maxInFlightCallsPerCaller: positive("maxInFlightCallsPerCaller", 32),
    sessions: options.sessions ?? "stateless",
    maxSessions: positive("maxSessions", 1024),
    maxSessionsPerCaller: positive("maxSessionsPerCaller", 128),
    maxListens: positive("maxListens", 1024),
    maxListensPerCaller: positive("maxListensPerCaller", 128),
    sessionIdleTimeoutMs: positive("sessionIdleTimeoutMs", 1_800_000),
    interactionPolicy: options.interactionPolicy ?? "reject",
    interactionTimeoutMs: positive("interactionTimeoutMs", 300_000),
    sseRetryMs: positive("sseRetryMs", 1000),
    pageSize: positive("pageSize", 64),
    requestStateTtlMs: positive("requestStateTtlMs", 600_000),
    maxJournalBytes: positive("maxJournalBytes", 256 * 1024),
  };
  if (options.ssePollMs !== undefined) positive("ssePollMs", 0);
  if (
    options.stateSecret !== undefined &&
    (typeof options.stateSecret !== "string" || options.stateSecret.length < 32)
  ) {
    throw bad("`stateSecret` must be a string of at least 32 characters");
  }
  const hints = options.cacheHints;
  if (
    hints !== undefined &&
    (typeof hints !== "object" ||
      hints === null ||
      (hints.ttlMs !== undefined && !(Number.isInteger(hints.ttlMs) && hints.ttlMs >= 0)) ||
      (hints.cacheScope !== undefined &&
        hints.cacheScope !== "public" &&
        hints.cacheScope !== "private"))
  ) {
    throw bad(
      "`cacheHints` needs a non-negative integer `ttlMs` and a `cacheScope` of `public` or `private`",
    );
  }
  if (options.questionKey !== undefined && typeof options.questionKey !== "function") {
    throw bad("`questionKey` must be a function");
  }
  if (resolved.sessions !== "stateless" && resolved.sessions !== "memory") {
    throw bad("`sessions` must be `stateless` or `memory`");
  }
  const homes = options.durableSessions as Partial<Record<string, unknown>> | undefined;
  if (
    homes !== undefined &&
    (typeof homes?.idFromName !== "function" || typeof homes.get !== "function")
  ) {
    throw bad("`durableSessions` must be a Durable Object namespace binding (idFromName, get)");
  }
  if (homes !== undefined && resolved.sessions === "memory") {
    throw bad(
      '`durableSessions` routes sessions to their objects, so this handler holds none: leave `sessions` out here and give the object\'s handler `sessions: "memory"`',
    );
  }
  if (options.tasks !== undefined && options.tasks?.["~kind"] !== "mcp_tasks") {
    throw bad("`tasks` must come from `mcpTasks()`");
  }
  if (resolved.interactionPolicy !== "reject" && resolved.interactionPolicy !== "elicit") {
    throw bad("`interactionPolicy` must be `reject` or `elicit`");
  }
  return resolved;
}
