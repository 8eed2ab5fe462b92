// Where to sign in for an MCP endpoint (docs/design.md, "OAuth (client)", OA3-OA5): the
// refusal's `WWW-Authenticate` challenge, the protected-resource metadata (RFC 9728) it points
// to or the well-known fallbacks, and the authorization server's metadata (RFC 8414 path-aware,
// then the OpenID configuration variants), each fetched over https (http only for loopback
// hosts) with its body bounded, and validated: the resource against the endpoint, the issuer
// against the one asked for.

import * as oauth4 from "oauth4webapi";
import { raceSignal } from "../abort.ts";
import { errorText, ToolError } from "../errors.ts";
import { readBody } from "../mcp/client/mcp-session.ts";
import { NO_REDIRECT, redactUrl } from "../redaction.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
import { isLoopback } from "./oauth-options.ts";

/** The most of a metadata, registration or token response that is read: 256 KiB. */
export const MAX_OAUTH_BODY_BYTES = 256 * 1024;

/** What a `Bearer` challenge asks for. */
export interface Challenge {
  /** `resource_metadata`: the protected-resource metadata URL. */
  resourceMetadata?: string;
  /** `scope`: the scopes the request needs, space-separated. */
  scope?: string;
  /** `error`, such as `invalid_token` or `insufficient_scope`. */
  error?: string;
}

/**
 * Returns the parameters of the `Bearer` challenge in a `WWW-Authenticate` value (RFC 9110
 * auth-params, quoted or not); an empty object when there is none.
 */
export function parseChallenge(header: string | null): Challenge {
  if (!header) return {};
  const start = header.search(/(^|[\s,])bearer(\s|$)/i);
  if (start < 0) return {};
  const rest = header.slice(start).replace(/^[\s,]*bearer/i, "");
  const params: Record<string, string> = {};
  const param = /\s*,?\s*([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))/y;
  for (;;) {
    const index = param.lastIndex;
    const match = param.exec(rest);
    // A token without `=` starts the next challenge (`Bearer a="b", DPoP c="d"`).
    if (!match || param.lastIndex === index) break;
    const name = (match[1] as string).toLowerCase();
    params[name] ??= match[2] === undefined ? (match[3] ?? "") : match[2].replace(/\\(.)/g, "$1");
  }
  const out: Challenge = {};
  if (params.resource_metadata) out.resourceMetadata = params.resource_metadata;
  if (params.scope) out.scope = params.scope;
  if (params.error) out.error = params.error;
  return out;
}

// Hosts that reach this machine: loopback, and the "any" addresses a connect also lands on.
function isLocal(url: URL): boolean {
  return isLoopback(url) || ["0.0.0.0", "[::]", "[::ffff:7f00:1]"].includes(url.hostname);
}

/**
 * Checks that the flow may send a request to `url`: https, or http to a loopback host; and,
 * for a sign-in to an endpoint not on this machine (`from`), not to this machine at all, so a
 * remote server's metadata cannot aim requests at local services.
 *
 * @throws ToolError `protocol` naming what the URL is for.
 */
export function checkUrl(url: string | URL, what: string, from?: URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    throw new ToolError({ type: "protocol", message: `${what} is not a URL` });
  }
  if (from !== undefined && !isLocal(from) && isLocal(parsed)) {
    throw new ToolError({
      type: "protocol",
      message: `${what} ${redactUrl(parsed)} is on this machine, but ${redactUrl(from)} is not`,
    });
  }
  if (parsed.protocol === "https:" || (parsed.protocol === "http:" && isLoopback(parsed))) {
    return parsed;
  }
  throw new ToolError({
    type: "protocol",
    message: `${what} ${redactUrl(parsed)} must use https (http only for localhost)`,
  });
}

/** The request options every oauth4webapi call of one sign-in gets. */
export interface Http {
  fetch: typeof fetch;
  signal: AbortSignal;
  /** The MCP endpoint signed in to; every request is checked against it (see `checkUrl`). */
  endpoint?: URL;
}

/**
 * Returns oauth4webapi's options for a request to `url`: the caller's `fetch` with every body
 * read bounded to `MAX_OAUTH_BODY_BYTES`, the signal, and plain http allowed only for loopback.
 */
export function httpOptions(http: Http, url: string | URL | undefined) {
  const target = url === undefined ? undefined : new URL(String(url));
  return {
    signal: http.signal,
    [oauth4.customFetch]: boundedFetch(http),
    [oauth4.allowInsecureRequests]: target !== undefined && isLoopback(target),
  };
}

// A `fetch` whose answer is read at once, up to the cap, and handed on as a buffered Response:
// oauth4webapi then parses JSON it can no longer be flooded with.
function boundedFetch(http: Http) {
  // Called plain, not as `http.fetch(...)`: a page's `fetch` throws "Illegal invocation" when
  // called as another object's method.
  const send = http.fetch;
  return async (url: string, init: RequestInit): Promise<Response> => {
    checkUrl(url, "a request of the sign-in", http.endpoint);
    const response = await raceSignal(
      send(url, { ...init, redirect: NO_REDIRECT, signal: http.signal }),
      http.signal,
    );
    const tooLarge = () =>
      new ToolError({
        type: "transport",
        message: `the answer of ${redactUrl(url)} is larger than ${MAX_OAUTH_BODY_BYTES} bytes`,
      });
    const text = await readBody(response, MAX_OAUTH_BODY_BYTES, http.signal, tooLarge);
    const empty = [101, 204, 205, 304].includes(response.status);
    return new Response(empty ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The protected-resource metadata fields the flow uses. */
export interface ResourceMetadata {
  /** The resource identifier, validated against the endpoint; sent as `resource`. */
  resource: string;
  authorizationServers: string[];
  scopesSupported?: string[];
}

/**
 * Returns the endpoint's protected-resource metadata: from the challenge's `resource_metadata`,
 * else `/.well-known/oauth-protected-resource` with the endpoint's path, then at the root. Its
 * `resource` must name the endpoint (same origin, a path prefix of it).
 *
 * @throws ToolError `protocol` when none is found or it does not fit, `transport` for the
 * network, `cancelled` through the signal.
 */
export async function discoverResource(
  endpoint: URL,
  challenge: Challenge,
  http: Http,
): Promise<ResourceMetadata> {
  const path = endpoint.pathname === "/" ? "" : endpoint.pathname.replace(/\/$/, "");
  const candidates = challenge.resourceMetadata
    ? [checkUrl(new URL(challenge.resourceMetadata, endpoint), "resource_metadata", endpoint)]
    : [
        ...(path === "" ? [] : [`/.well-known/oauth-protected-resource${path}`]),
        "/.well-known/oauth-protected-resource",
      ].map((well) => checkUrl(new URL(well, endpoint), "the MCP endpoint"));
  for (const url of candidates) {
    const response = await httpOptions(http, url)[oauth4.customFetch](url.href, {
      method: "GET",
      headers: { accept: "application/json" },
    });
    if (response.status !== 200) continue;
    const parsed: unknown = await response.json().catch(() => undefined);
    const body = isJsonObject(parsed) ? parsed : {};
    const { resource } = body;
    if (typeof resource !== "string") {
      throw metadataError(url, "is not protected-resource metadata (no `resource`)");
    }
    if (!namesEndpoint(resource, endpoint)) {
      throw metadataError(url, `names resource ${redactUrl(resource)}, not this endpoint`);
    }
    const servers = strings(body.authorization_servers);
    if (servers.length === 0) throw metadataError(url, "names no authorization server");
    const scopes = strings(body.scopes_supported);
    return {
      resource,
      authorizationServers: servers,
      ...(scopes.length > 0 ? { scopesSupported: scopes } : {}),
    };
  }
  throw new ToolError({
    type: "protocol",
    message: `${redactUrl(endpoint)} asked for sign-in but publishes no protected-resource metadata (tried ${candidates.map((url) => url.pathname).join(", ")})`,
  });
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry) => typeof entry === "string") : [];
}

// RFC 9728 §3.3 / RFC 8707: the metadata's resource identifies this endpoint or a prefix of it.
function namesEndpoint(resource: string, endpoint: URL): boolean {
  let parsed: URL;
  try {
    parsed = new URL(resource);
  } catch {
    return false;
  }
  if (parsed.origin !== endpoint.origin || parsed.search !== "" || parsed.hash !== "") {
    return false;
  }
  const prefix = parsed.pathname.replace(/\/$/, "");
  return (
    prefix === "" || endpoint.pathname === prefix || endpoint.pathname.startsWith(`${prefix}/`)
  );
}

function metadataError(url: URL, why: string): ToolError {
  return new ToolError({ type: "protocol", message: `the metadata at ${redactUrl(url)} ${why}` });
}

/**
 * Returns the authorization server's metadata for `issuer`, from the first well-known URL that
 * answers 200 (MCP's order: RFC 8414 with the issuer's path inserted, OpenID configuration with
 * it inserted, OpenID configuration appended; without a path, RFC 8414 then OpenID). Its
 * `issuer` must equal `issuer` exactly (oauth4webapi checks it).
 *
 * @throws ToolError `protocol` when none answers or the metadata does not fit, `transport`,
 * `cancelled`.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  http: Http,
): Promise<oauth4.AuthorizationServer> {
  const url = checkUrl(issuer, "the authorization server", http.endpoint);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const candidates =
    path === ""
      ? ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]
      : [
          `/.well-known/oauth-authorization-server${path}`,
          `/.well-known/openid-configuration${path}`,
          `${path}/.well-known/openid-configuration`,
        ];
  for (const candidate of candidates) {
    const target = new URL(candidate, url.origin);
    const response = await httpOptions(http, target)[oauth4.customFetch](target.href, {
      method: "GET",
      headers: { accept: "application/json" },
    });
    if (response.status !== 200) continue;
    try {
      return await oauth4.processDiscoveryResponse(new URL(issuer), response);
    } catch (error) {
      throw new ToolError({
        type: "protocol",
        message: `the authorization server metadata at ${redactUrl(target)} was refused: ${errorText(error)}`,
      });
    }
  }
  throw new ToolError({
    type: "protocol",
    message: `the authorization server ${redactUrl(issuer)} publishes no metadata (tried ${candidates.join(", ")})`,
  });
}
