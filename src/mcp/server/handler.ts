// `createMcpHandler`: the options, and what every request goes through before its protocol
// exchange: the Host and Origin checks, CORS, the endpoint, `authorize` and the caller's
// identity, and the one place where an unexpected failure becomes a 500 that `onError` sees.
// The exchange itself is in `rpc-2025.ts` (revisions 2025-11-25 and 2025-06-18) or
// `rpc-2026.ts` (2026-07-28), chosen per POST; see `docs/design.md`, "Serving MCP", for the flow
// and the behaviours S1….

import { ToolError } from "../../errors.ts";
import type { ToolsetBackend } from "../../execution/backend.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import { Toolset } from "../../toolset/toolset.ts";
import {
  ANSWER_DIRECTLY,
  type Answer,
  type AnswersDirectly,
  type HeaderLookup,
  httpError,
  type IncomingRequest,
  incomingRequest,
  JsonAnswer,
  noHeaders,
  toResponse,
} from "./http.ts";
import { createStateCodec } from "./mrtr.ts";
import {
  createProtectedResource,
  endpointUrl,
  type InsufficientScope,
  insufficientScopeChallenge,
  isInsufficientScope,
  type ResourceMetadataOptions,
} from "./protected-resource.ts";
import { handleDelete, handleGet, handlePost, methodNotAllowed, readPost } from "./rpc-2025.ts";
import { claimsModern, handleModernPost } from "./rpc-2026.ts";
import { type McpSources, serveSources } from "./sources.ts";
import {
  createDeclarations,
  createInFlightCalls,
  createPendingRequests,
  createSessionStore,
  identityOf,
  type ServerState,
} from "./state.ts";

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
  | "stateSecret"
  | "cacheHints"
  | "questionKey"
  | "resourceMetadata"
  | "resources"
  | "resourceTemplates"
  | "prompts";

/** A web-standard request handler for one MCP endpoint. */
export interface McpHandler {
  /**
   * Answers one HTTP request; never rejects. `fetch` is unbound-safe and has the shape of the
   * global `fetch`, so it also serves as a client's in-process transport
   * (`connectMcp({ url, fetch: handler.fetch })`). Given a `Request`, further arguments (a
   * Worker's `env` and `ctx`, Deno's connection info) are ignored; given a URL, `init`
   * describes the request as for the global `fetch`.
   */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /**
   * Tells 2026-07-28 clients that the tool list changed: every open `subscriptions/listen`
   * stream that asked for `toolsListChanged` gets `notifications/tools/list_changed`. Call it
   * after changing what the served toolset lists.
   */
  toolsChanged(): void;
  /**
   * Tells clients that the list of resources or resource templates changed: 2026-07-28
   * `subscriptions/listen` streams that asked for `resourcesListChanged` get
   * `notifications/resources/list_changed`.
   */
  resourcesChanged(): void;
  /**
   * Tells clients that the resource at `uri` changed: `notifications/resources/updated` goes to
   * every 2025 session that subscribed to it (`resources/subscribe`) on its standalone stream
   * (GET), and to every 2026 listen stream that names it in `resourceSubscriptions`.
   */
  resourceUpdated(uri: string): void;
  /**
   * Tells 2026-07-28 clients that the list of prompts changed: listen streams that asked for
   * `promptsListChanged` get `notifications/prompts/list_changed`.
   */
  promptsChanged(): void;
  /**
   * Ends every open `subscriptions/listen` stream gracefully (its final result, then close), as
   * before a shutdown. Requests keep being served.
   */
  close(): void;
}

/**
 * Creates an MCP server (Streamable HTTP; revisions 2026-07-28, 2025-11-25 and 2025-06-18, each
 * POST served in the one it speaks) for a toolset, as a `fetch` handler: a Worker's default export, `Deno.serve(handler.fetch)`, or Node through
 * `serve` from `toolwire/node`. The server never shuts the toolset down.
 *
 * @example
 * ```ts
 * const handler = createMcpHandler(Toolset.local([add]), { name: "calc", version: "1.0.0" });
 * export default handler; // Cloudflare Workers
 * ```
 *
 * @throws ToolError `invalid_configuration` for a bad name, version, endpoint or limit.
 */
export function createMcpHandler(toolset: ToolsetBackend, options: McpHandlerOptions): McpHandler {
  const resolved = resolveOptions(options);
  const inFlight = createInFlightCalls();
  const sessions =
    resolved.sessions === "memory"
      ? createSessionStore({
          capacity: resolved.maxSessions,
          perCaller: resolved.maxSessionsPerCaller,
          idleMs: resolved.sessionIdleTimeoutMs,
          busy: (id) => inFlight.running(id),
          onExpire: (id) => inFlight.cancelAll(id),
        })
      : undefined;
  const onError = resolved.onError;
  const served = Toolset.fromBackend(toolset);
  const state: ServerState = {
    toolset: served,
    options: resolved,
    policy: createOriginPolicy(resolved.allowedOrigins, resolved.allowedHosts),
    sessions,
    pending: createPendingRequests(),
    inFlight,
    stateCodec: createStateCodec(resolved.stateSecret, resolved.requestStateTtlMs),
    listens: new Set(),
    declarations: createDeclarations(served),
    sources: serveSources(resolved),
    protectedResource:
      resolved.resourceMetadata &&
      createProtectedResource(resolved.resourceMetadata, resolved.endpoint),
    report(error, phase, request) {
      if (!onError) return;
      try {
        onError(error, { phase, request: request() });
      } catch {
        // An observer that fails must not change the answer.
      }
    },
  };
  const answer = async (request: IncomingRequest): Promise<Answer> => {
    try {
      return await route(state, request);
    } catch (error) {
      // The details stay on the server. A browser page that was let in still gets the CORS
      // headers, so it can read that the server failed.
      state.report(error, "request", () => request.toRequest());
      const allowed = safely(() => state.policy.check(request) === undefined);
      return httpError(
        500,
        "Internal Server Error",
        allowed ? state.policy.corsHeaders(request) : noHeaders(),
      );
    }
  };
  const fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    let request: IncomingRequest;
    try {
      request = incomingRequest(input, init);
    } catch {
      return toResponse(httpError(400, "Bad Request: not a valid HTTP request", noHeaders()));
    }
    return toResponse(await answer(request));
  };
  const handler: McpHandler & AnswersDirectly = {
    fetch,
    // `serve()` calls this with the node:http request's parts (see design.md SP1).
    [ANSWER_DIRECTLY]: answer,
    toolsChanged() {
      state.declarations.forget();
      for (const listen of [...state.listens]) listen.notify("tools");
    },
    resourcesChanged() {
      for (const listen of [...state.listens]) listen.notify("resources");
    },
    resourceUpdated(uri) {
      for (const listen of [...state.listens]) listen.notify("resource", uri);
      state.sessions?.notifySubscribers(uri);
    },
    promptsChanged() {
      for (const listen of [...state.listens]) listen.notify("prompts");
    },
    close() {
      for (const listen of [...state.listens]) listen.close();
    },
  };
  return handler;
}

async function route(state: ServerState, request: IncomingRequest): Promise<Answer> {
  const refusal = state.policy.check(request);
  if (refusal !== undefined) return httpError(403, `Forbidden: ${refusal}`, noHeaders());
  const headers = state.policy.corsHeaders(request);
  if (!onEndpoint(request.url, state.options.endpoint)) {
    const resource = state.protectedResource;
    if (resource && new URL(request.url).pathname === resource.metadataPath) {
      return resourceMetadataAnswer(state, request, headers);
    }
    return httpError(404, "Not Found", headers);
  }
  if (request.method === "OPTIONS") {
    const merged = new Headers(headers);
    for (const [key, value] of state.policy.preflightHeaders(request)) merged.set(key, value);
    return new Response(null, { status: 204, headers: merged });
  }
  const auth = await authorize(state, request);
  if (auth === false || isInsufficientScope(auth)) return refuse(state, request, headers, auth);
  const caller = { auth: auth.value, identity: identityOf(auth.value) };
  if (caller.identity?.startsWith("token:") && !tokenOnly.has(state)) {
    tokenOnly.add(state);
    state.report(tokenOnlyError(), "authorize", () => request.toRequest());
  }
  switch (request.method) {
    case "POST": {
      const parsed = await readPost(request, headers, state.options);
      if (parsed instanceof JsonAnswer) return parsed;
      const headerVersion = request.headers.get("mcp-protocol-version");
      if (parsed.type === "single" && claimsModern(parsed.message, headerVersion)) {
        return handleModernPost(state, request, headers, caller, parsed.message);
      }
      return handlePost(state, request, headers, caller, parsed);
    }
    case "DELETE":
      return handleDelete(state, request, headers, caller.identity);
    case "GET":
      return handleGet(state, request, headers, caller.identity);
    default:
      return methodNotAllowed(
        headers,
        state.sessions ? "POST, GET, DELETE, OPTIONS" : "POST, OPTIONS",
      );
  }
}

// The handlers that have reported a caller named only by its token: once each is enough.
const tokenOnly = new WeakSet<ServerState>();

// Names no token: the report is about the authorizer, not about one caller.
const tokenOnlyError = () =>
  new ToolError({
    type: "invalid_configuration",
    message:
      "`authorize` returned a `token` but none of `subject`, `sub`, `id` or `clientId`, so the caller's identity is its token: after a token refresh the same client is a new caller (its session answers 404, a pending question's answer is dropped). Return `subject` (the user or client the token is for). The request was served; this is reported once.",
  });

// The common case (the exact endpoint, no query) is read without parsing the URL.
function onEndpoint(url: string, endpoint: string): boolean {
  const scheme = url.indexOf("//");
  const path = scheme === -1 ? -1 : url.indexOf("/", scheme + 2);
  if (path !== -1 && url.length - path === endpoint.length && url.endsWith(endpoint)) return true;
  return new URL(url).pathname === endpoint;
}

function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

async function authorize(
  state: ServerState,
  request: IncomingRequest,
): Promise<false | InsufficientScope | { value: unknown }> {
  const hook = state.options.authorize;
  if (!hook) return { value: undefined };
  try {
    const resource =
      state.protectedResource?.resourceOf(request.url) ??
      endpointUrl(request.url, state.options.endpoint);
    const outcome = await hook(request.toRequest(), { resource });
    if (outcome === true) return { value: undefined };
    if (isInsufficientScope(outcome)) return outcome;
    return typeof outcome === "object" && outcome !== null ? { value: outcome } : false;
  } catch (error) {
    if (isInsufficientScope(error)) return error;
    // An authorizer that fails refuses; failing open would defeat it.
    state.report(error, "authorize", () => request.toRequest());
    return false;
  }
}

// 401 for no or a bad token, 403 for a good one that lacks scope (RFC 6750 §3, MCP
// authorization): with `resourceMetadata`, both name where the client signs in.
function refuse(
  state: ServerState,
  request: IncomingRequest,
  headers: Headers,
  refusal: false | InsufficientScope,
): Answer {
  const merged = new Headers(headers);
  const resource = state.protectedResource;
  if (refusal !== false) {
    merged.set(
      "www-authenticate",
      resource
        ? resource.forbidden(request.url, refusal)
        : insufficientScopeChallenge(refusal, undefined),
    );
    return httpError(403, "Forbidden: insufficient scope", merged);
  }
  merged.set(
    "www-authenticate",
    resource
      ? resource.unauthorized(request.url, request.headers.get("authorization") !== null)
      : 'Bearer realm="mcp"',
  );
  return httpError(401, "Unauthorized", merged);
}

function resourceMetadataAnswer(
  state: ServerState,
  request: IncomingRequest,
  headers: Headers,
): Answer {
  if (request.method === "OPTIONS") {
    const merged = new Headers(headers);
    for (const [key, value] of state.policy.preflightHeaders(request)) merged.set(key, value);
    merged.set("access-control-allow-methods", "GET, OPTIONS");
    return new Response(null, { status: 204, headers: merged });
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return methodNotAllowed(headers, "GET, OPTIONS");
  }
  return (state.protectedResource as NonNullable<ServerState["protectedResource"]>).document(
    request.url,
  );
}

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
    pageSize: positive("pageSize", 64),
    requestStateTtlMs: positive("requestStateTtlMs", 600_000),
    maxJournalBytes: positive("maxJournalBytes", 256 * 1024),
  };
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
  if (resolved.interactionPolicy !== "reject" && resolved.interactionPolicy !== "elicit") {
    throw bad("`interactionPolicy` must be `reject` or `elicit`");
  }
  return resolved;
}

/** The request parts the origin policy reads. */
export interface PolicyRequest {
  readonly headers: HeaderLookup;
  readonly url: string;
}

/** Which hosts and origins may reach the endpoint, and the CORS headers of their answers. */
export interface OriginPolicy {
  /** Checks `Host` and `Origin` (DNS-rebinding protection); `undefined` when allowed, else why not. */
  check(request: PolicyRequest): string | undefined;
  /**
   * The headers every answer to an allowed request carries: `Vary: Origin` always, and for a
   * browser request the CORS headers that let the page read the answer (errors included). The
   * result is shared: copy it before adding to it.
   */
  corsHeaders(request: PolicyRequest): Headers;
  /**
   * The headers that answer a CORS preflight: the methods, the request headers the page asked
   * for (the MCP ones when it named none), and a one-day cache.
   */
  preflightHeaders(request: PolicyRequest): Headers;
}

const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

const ALLOWED_HEADERS = [
  "content-type",
  "accept",
  "authorization",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
].join(", ");

const EXPOSED_HEADERS = ["mcp-session-id", "mcp-protocol-version", "www-authenticate"].join(", ");

/**
 * Creates the origin policy. Unconfigured, only loopback hosts (`localhost`, `127.0.0.1`,
 * `[::1]`, any port) and loopback origins pass; a configured origin list replaces that
 * default, and `"*"` in a list switches that check off. Loopback hosts pass whatever
 * `allowedHosts` says: the Host check stops DNS rebinding, where a browser names the
 * attacker's host, never a loopback one, so refusing them only broke a deployed server's own
 * local dev run (`wrangler dev` answering as `127.0.0.1:8788`). Origins are exact
 * (`https://app.example.com`, or `"null"`); hosts are `mcp.example.com` (any port) or
 * `mcp.example.com:8443`.
 */
export function createOriginPolicy(
  allowedOrigins: readonly string[] | undefined,
  allowedHosts: readonly string[] | undefined,
): OriginPolicy {
  // Answers never add to these, so one instance serves every request without `Origin`. Made
  // here rather than at import, where a `Headers` costs Node's fetch implementation (~20 ms).
  const noOrigin = new Headers({ vary: "Origin" });
  const origins = allowedOrigins && new Set(allowedOrigins.map((o) => o.toLowerCase()));
  const hosts = allowedHosts && new Set(allowedHosts.map((h) => h.toLowerCase()));
  const originAllowed = memoLast((origin: string) => {
    if (origins) return origins.has("*") || origins.has(origin.toLowerCase());
    const parsed = parseUrl(origin);
    return (
      parsed !== undefined &&
      (parsed.protocol === "http:" || parsed.protocol === "https:") &&
      LOCAL_HOSTNAMES.has(parsed.hostname)
    );
  });
  const hostAllowed = memoLast((host: string) => {
    const parsed = parseUrl(`http://${host}`);
    if (!parsed || parsed.username || parsed.pathname !== "/") return false;
    if (LOCAL_HOSTNAMES.has(parsed.hostname)) return true;
    return (
      hosts !== undefined &&
      (hosts.has("*") || hosts.has(parsed.host) || hosts.has(parsed.hostname))
    );
  });
  return {
    check(request) {
      const host = request.headers.get("host") ?? hostOf(request.url);
      if (!hostAllowed(host)) return `Host \`${host}\` is not allowed`;
      const origin = request.headers.get("origin");
      if (origin !== null && !originAllowed(origin)) return `Origin \`${origin}\` is not allowed`;
      return undefined;
    },
    corsHeaders(request) {
      const origin = request.headers.get("origin");
      if (origin === null) return noOrigin;
      return new Headers({
        "access-control-allow-origin": origin,
        "access-control-expose-headers": EXPOSED_HEADERS,
        vary: "Origin",
      });
    },
    preflightHeaders(request) {
      // The origin passed the check, so the headers its page asks for may be sent.
      const asked = request.headers.get("access-control-request-headers");
      return new Headers({
        "access-control-allow-methods": "POST, GET, DELETE, OPTIONS",
        "access-control-allow-headers": asked?.trim() ? asked : ALLOWED_HEADERS,
        "access-control-max-age": "86400",
      });
    },
  };
}

// A server sees the same Host and Origin over and over; parsing them once saves a URL each.
function memoLast(decide: (value: string) => boolean): (value: string) => boolean {
  let last: string | undefined;
  let verdict = false;
  return (value) => {
    if (value !== last) {
      verdict = decide(value);
      last = value;
    }
    return verdict;
  };
}

function hostOf(url: string): string {
  // `scheme://host/...`; an in-process request without a Host header names it in the URL.
  const start = url.indexOf("//");
  if (start === -1) return parseUrl(url)?.host ?? "";
  const end = url.indexOf("/", start + 2);
  const authority = url.slice(start + 2, end === -1 ? undefined : end);
  return /[@?#\\]/.test(authority) ? (parseUrl(url)?.host ?? "") : authority.toLowerCase();
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
