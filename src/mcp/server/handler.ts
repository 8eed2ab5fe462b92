// `createMcpHandler`: what every request goes through before its protocol exchange (the Host and
// Origin checks, CORS, the endpoint, `authorize` and the caller's identity, and the one place
// where an unexpected failure becomes a 500 that `onError` sees), the revision's codec chosen
// per POST (`codec-2025.ts` for 2025-11-25 and 2025-06-18, `codec-2026.ts` for 2026-07-28), and
// the table of methods both codecs serve. See `docs/design.md`, "Serving MCP", for the flow and
// the behaviours S1….

import { ToolError } from "../../errors.ts";
import type { ToolsetBackend } from "../../execution/backend.ts";
import { Toolset } from "../../toolset/toolset.ts";
import { handleDelete, handleGet, handlePost, methodNotAllowed } from "./codec-2025.ts";
import { claimsModern, createModernCodec, type ModernCodec } from "./codec-2026.ts";
import { complete } from "./completion.ts";
import {
  type Core,
  createListCache,
  createRegistry,
  identityOf,
  type MethodTable,
  ping,
} from "./core.ts";
import { bufferBody, createSessionRouter, type SessionRouter } from "./durable-sessions.ts";
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
  readPost,
  toResponse,
} from "./http.ts";
import { type McpHandlerOptions, type ResolvedOptions, resolveOptions } from "./options.ts";
import { getPrompt, listPrompts } from "./prompt-methods.ts";
import {
  createProtectedResource,
  endpointUrl,
  type InsufficientScope,
  insufficientScopeChallenge,
  isInsufficientScope,
  type ProtectedResource,
} from "./protected-resource.ts";
import { listResources, listResourceTemplates, readResource } from "./resource-methods.ts";
import { type ServedSources, serveSources } from "./sources.ts";
import type { TaskServing } from "./tasks.ts";
import { callTool, listTools } from "./tools.ts";

/**
 * The methods both revisions serve, one entry each; each codec adds only what its revision
 * alone has (2025: `initialize`, `logging/setLevel`; 2026: `server/discover`,
 * `subscriptions/listen`) and drops what it removed (2026: `ping`).
 *
 * To serve one more method: write it in its own file as a `Method` (`core.ts`), its params and
 * the request's `Scope` in, an `Outcome` out, and add one line here. Both revisions then serve
 * it; a list it serves goes through a `ListCache` and `pageOf`, so its pages work as
 * `tools/list`'s do.
 */
const METHODS: MethodTable = {
  ping,
  "tools/list": listTools,
  "tools/call": callTool,
};

/**
 * The methods of the resources, prompts and completion a handler serves beside its tools
 * (`sources.ts`): only those whose capability it declares, so the others stay "method not
 * found" in both revisions.
 */
function sourceMethods(sources: ServedSources): MethodTable {
  return {
    ...(sources.resources
      ? {
          "resources/list": listResources,
          "resources/templates/list": listResourceTemplates,
          "resources/read": readResource,
        }
      : {}),
    ...(sources.prompts ? { "prompts/list": listPrompts, "prompts/get": getPrompt } : {}),
    ...(sources.completions ? { "completion/complete": complete } : {}),
  };
}

/** The part of a Worker's execution context the handler uses. */
export interface WaitUntilContext {
  /** Keeps the Worker alive until `work` settles (Cloudflare's `ctx.waitUntil`). */
  waitUntil(work: Promise<unknown>): void;
}

/** A web-standard request handler for one MCP endpoint. */
export interface McpHandler {
  /**
   * Answers one HTTP request; never rejects. `fetch` is unbound-safe and has the shape of the
   * global `fetch`, so it also serves as a client's in-process transport
   * (`connectMcp({ url, fetch: handler.fetch })`). Given a `Request`, further arguments (a
   * Worker's `env` and `ctx`, Deno's connection info: hence `| object`, so `Deno.serve(options,
   * handler.fetch)` type-checks) are ignored, but for a third with `waitUntil` (a Worker's
   * `ctx`): a task's run (`tasks`) is handed to it so the Worker keeps running it after the
   * answer. Given a URL, `init` describes the request as for the global `fetch`.
   */
  fetch(
    input: Request | string | URL,
    init?: RequestInit | object,
    context?: WaitUntilContext | object,
  ): Promise<Response>;
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
  const onError = resolved.onError;
  const served = Toolset.fromBackend(toolset);
  const sources = serveSources(resolved);
  const core: Core = {
    toolset: served,
    options: resolved,
    registry: createRegistry(resolved),
    tools: createListCache(
      () => served.listTools(),
      (tool) => tool.name,
    ),
    sources,
    methods:
      sources.resources || sources.prompts ? { ...METHODS, ...sourceMethods(sources) } : METHODS,
    tasks: undefined,
    report(error, phase, request) {
      if (!onError) return;
      try {
        onError(error, { phase, request: request() });
      } catch {
        // An observer that fails must not change the answer.
      }
    },
  };
  if (resolved.tasks) core.tasks = (resolved.tasks as TaskServing)["~engine"](core);
  const state: Server = {
    core,
    options: resolved,
    policy: createOriginPolicy(resolved.allowedOrigins, resolved.allowedHosts),
    protectedResource:
      resolved.resourceMetadata &&
      createProtectedResource(resolved.resourceMetadata, resolved.endpoint),
    modern: createModernCodec(core),
    router: resolved.durableSessions && createSessionRouter(resolved.durableSessions),
    report: core.report,
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
  const fetch = async (
    input: Request | string | URL,
    init?: RequestInit,
    context?: object,
  ): Promise<Response> => {
    let request: IncomingRequest;
    try {
      request = incomingRequest(input, init);
      const waitUntil = (context as Partial<WaitUntilContext> | undefined)?.waitUntil;
      if (typeof waitUntil === "function") {
        request = { ...request, waitUntil: (work) => waitUntil.call(context, work) };
      }
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
      core.tools.forget();
      for (const listen of [...core.registry.listens]) listen.notify("tools");
    },
    resourcesChanged() {
      for (const listen of [...core.registry.listens]) listen.notify("resources");
    },
    resourceUpdated(uri) {
      for (const listen of [...core.registry.listens]) listen.notify("resource", uri);
      core.registry.sessions?.notifySubscribers(uri);
    },
    promptsChanged() {
      for (const listen of [...core.registry.listens]) listen.notify("prompts");
    },
    close() {
      for (const listen of [...core.registry.listens]) listen.close();
    },
  };
  return handler;
}

/** What the handler's edge keeps beside the core. */
interface Server {
  readonly core: Core;
  readonly options: ResolvedOptions;
  /** Host/Origin checks and CORS. */
  readonly policy: OriginPolicy;
  /** The protected-resource metadata and challenges, with `resourceMetadata`. */
  readonly protectedResource: ProtectedResource | undefined;
  /** The 2026-07-28 codec. */
  readonly modern: ModernCodec;
  /** Sends 2025 requests to their session's Durable Object, with `durableSessions`. */
  readonly router: SessionRouter | undefined;
  report: Core["report"];
}

async function route(state: Server, request: IncomingRequest): Promise<Answer> {
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
      // With `durableSessions` a 2025 body is read once here and sent on as it came.
      const buffered = state.router && (await bufferBody(request, state.options.maxBodyBytes));
      const incoming = buffered?.request ?? request;
      const parsed = await readPost(incoming, headers, state.options);
      if (parsed instanceof JsonAnswer) return parsed;
      const headerVersion = request.headers.get("mcp-protocol-version");
      if (parsed.type === "single" && claimsModern(parsed.message, headerVersion)) {
        return state.modern(incoming, headers, caller, parsed.message);
      }
      if (state.router) return state.router(incoming, buffered?.text ?? null, headers);
      return handlePost(state.core, request, headers, caller, parsed);
    }
    case "DELETE":
      if (state.router) return state.router(request, null, headers);
      return handleDelete(state.core, request, headers, caller.identity);
    case "GET":
      // A session's standalone stream, or the resumption of one of its response streams, is
      // served where the session lives.
      if (state.router) return state.router(request, null, headers);
      return handleGet(state.core, request, headers, caller.identity);
    default:
      return methodNotAllowed(
        headers,
        state.core.registry.sessions ? "POST, GET, DELETE, OPTIONS" : "POST, OPTIONS",
      );
  }
}

// The handlers that have reported a caller named only by its token: once each is enough.
const tokenOnly = new WeakSet<Server>();

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
  state: Server,
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
  state: Server,
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

function resourceMetadataAnswer(state: Server, request: IncomingRequest, headers: Headers): Answer {
  if (request.method === "OPTIONS") {
    const merged = new Headers(headers);
    for (const [key, value] of state.policy.preflightHeaders(request)) merged.set(key, value);
    merged.set("access-control-allow-methods", "GET, OPTIONS");
    return new Response(null, { status: 204, headers: merged });
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return methodNotAllowed(headers, "GET, OPTIONS");
  }
  return (state.protectedResource as ProtectedResource).document(request.url);
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
