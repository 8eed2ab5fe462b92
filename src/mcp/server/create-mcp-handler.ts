import type { ToolsetBackend } from "../../execution/backend.ts";
import { Toolset } from "../../toolset/toolset.ts";
import { handleDelete, handlePost, methodNotAllowed } from "./handle-post.ts";
import { createInFlightCalls } from "./in-flight-calls.ts";
import { type IncomingRequest, incomingRequest } from "./incoming-request.ts";
import { httpError, NO_HEADERS } from "./json-response.ts";
import { type AuthInfo, type McpHandlerOptions, resolveOptions } from "./mcp-handler-options.ts";
import { createOriginPolicy } from "./origin-policy.ts";
import { createPendingRequests } from "./pending-requests.ts";
import type { ServerState } from "./server-state.ts";
import { createSessionStore } from "./sessions.ts";

/**
 * MCP handler interface: a web-standard request handler. `fetch` is unbound-safe and has the
 * shape of the global `fetch`, so it also serves as a client's in-process transport
 * (`connectMcp({ url, fetch: handler.fetch })`).
 */
export interface McpHandler {
  /**
   * Answers one HTTP request; never rejects. Given a `Request`, further arguments (a Worker's
   * `env` and `ctx`, Deno's connection info) are ignored; given a URL, `init` describes the
   * request as for the global `fetch`.
   */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
}

/**
 * Creates an MCP server (Streamable HTTP, revisions 2025-11-25 and 2025-06-18) for a toolset,
 * as a `fetch` handler: a Worker's default export, `Deno.serve(handler.fetch)`, or Node through
 * `serve` from `toolwire/node`. The server never shuts the toolset down.
 *
 * @example
 * ```ts
 * const handler = createMcpHandler(Toolset.local([add]), { name: "calc", version: "1.0.0" });
 * export default handler; // Cloudflare Workers
 * ```
 *
 * @param toolset The tools to serve.
 * @param options Identity, security and transport options.
 * @returns The handler.
 * @throws ToolError `invalid_configuration` for bad options.
 */
export function createMcpHandler(toolset: ToolsetBackend, options: McpHandlerOptions): McpHandler {
  const resolved = resolveOptions(options);
  const inFlight = createInFlightCalls();
  const sessions =
    resolved.sessions === "memory"
      ? createSessionStore({
          capacity: resolved.maxSessions,
          idleMs: resolved.sessionIdleTimeoutMs,
          busy: (id) => inFlight.running(id),
          onExpire: (id) => inFlight.cancelAll(id),
        })
      : undefined;
  const state: ServerState = {
    toolset: Toolset.fromBackend(toolset),
    options: resolved,
    policy: createOriginPolicy(resolved.allowedOrigins, resolved.allowedHosts),
    sessions,
    pending: createPendingRequests(),
    inFlight,
    logLevel: undefined,
  };
  const fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    let request: IncomingRequest;
    try {
      request = incomingRequest(input, init);
    } catch {
      return httpError(400, "Bad Request: not a valid HTTP request", NO_HEADERS);
    }
    try {
      return await route(state, request);
    } catch {
      // Hint: never leak a stack; the details stay on the server. A browser page that was let in
      // still gets the CORS headers, so it can read that the server failed.
      const allowed = safely(() => state.policy.check(request) === undefined);
      return httpError(
        500,
        "Internal Server Error",
        allowed ? state.policy.corsHeaders(request) : NO_HEADERS,
      );
    }
  };
  return { fetch };
}

async function route(state: ServerState, request: IncomingRequest): Promise<Response> {
  const refusal = state.policy.check(request);
  if (refusal !== undefined) return httpError(403, `Forbidden: ${refusal}`, NO_HEADERS);
  const headers = state.policy.corsHeaders(request);
  if (!onEndpoint(request.url, state.options.endpoint)) {
    return httpError(404, "Not Found", headers);
  }
  if (request.method === "OPTIONS") {
    const merged = new Headers(headers);
    for (const [key, value] of state.policy.preflightHeaders(request)) merged.set(key, value);
    return new Response(null, { status: 204, headers: merged });
  }
  const auth = await authorize(state, request);
  if (auth === false) {
    const merged = new Headers(headers);
    merged.set("www-authenticate", 'Bearer realm="mcp"');
    return httpError(401, "Unauthorized", merged);
  }
  const authInfo = auth === true ? undefined : auth;
  switch (request.method) {
    case "POST":
      return handlePost(state, request, headers, authInfo);
    case "DELETE":
      return handleDelete(state, request, headers);
    default:
      return methodNotAllowed(headers, state.sessions ? "POST, DELETE, OPTIONS" : "POST, OPTIONS");
  }
}

// Hint: the common case (the exact endpoint, no query) is read without parsing the URL.
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
): Promise<boolean | AuthInfo> {
  const hook = state.options.authorize;
  if (!hook) return true;
  try {
    const outcome = await hook(request.toRequest());
    if (outcome === true || outcome === false) return outcome;
    return typeof outcome === "object" && outcome !== null ? outcome : false;
  } catch {
    // Hint: an authorizer that fails refuses; failing open would defeat it.
    return false;
  }
}
