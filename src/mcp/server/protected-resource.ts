// The OAuth side of serving: the protected-resource metadata document (RFC 9728) a client reads to
// find where to sign in, the `WWW-Authenticate` challenges of a refusal (401 with
// `resource_metadata`, 403 `insufficient_scope`), and the typed refusal `authorize` returns to ask
// for more scope. `handler.ts` calls these only for the well-known path and for refusals, so an
// admitted request pays nothing. See `docs/design.md`, "OAuth (serving and the browser)", OW1….

import { ToolError } from "../../errors.ts";

/**
 * What the server publishes about itself as an OAuth 2.0 protected resource (RFC 9728), at
 * `/.well-known/oauth-protected-resource` followed by the endpoint's path (the root form alone
 * for an endpoint at `/`). A client that gets a 401 reads it to find the authorization server.
 *
 * @example
 * ```ts
 * resourceMetadata: {
 *   authorizationServers: ["https://auth.example.com"],
 *   scopesSupported: ["files:read", "files:write"],
 * }
 * ```
 */
export interface ResourceMetadataOptions {
  /** Issuer URLs of the authorization servers whose tokens the server accepts; at least one. */
  authorizationServers: readonly string[];
  /**
   * The scopes the server understands. Also sent as `scope` in the 401 challenge, as the scopes a
   * client should ask for.
   */
  scopesSupported?: readonly string[];
  /**
   * The resource identifier: the URL clients connect to, which tokens must be issued for (their
   * audience, the `resource` a client requests). Default: the endpoint's URL as the request
   * reached it (origin and `endpoint`); set it behind a proxy that changes the host or path.
   */
  resource?: string;
  /** A human-readable name of the server (`resource_name`). */
  resourceName?: string;
  /** A page for developers about the server (`resource_documentation`). */
  resourceDocumentation?: string;
  /** The server's policy on data use (`resource_policy_uri`). */
  resourcePolicyUri?: string;
  /** The server's terms of service (`resource_tos_uri`). */
  resourceTosUri?: string;
}

const REFUSAL = Symbol.for("toolwire.InsufficientScope");

/**
 * What `authorize` returns (or throws) to refuse a valid token that lacks a scope: the request is
 * answered 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, and an MCP
 * client that supports step-up signs in again asking for that scope. Create it with
 * `insufficientScope`.
 */
export interface InsufficientScope {
  readonly type: "insufficient_scope";
  /** The scopes the request needs, space-separated as in the challenge. */
  readonly scope: string;
  /** Said to the client as `error_description`, if given. */
  readonly description: string | undefined;
}

/**
 * Creates the refusal that answers 403 `insufficient_scope`: return (or throw) it from
 * `authorize` when the token is valid but does not grant what the request needs. Name every
 * scope the request needs, those the token already has included, since the client asks for
 * exactly these.
 *
 * @example
 * ```ts
 * authorize: (request, { resource }) => {
 *   const claims = verify(bearer(request), resource);
 *   if (!claims) return false;
 *   if (!claims.scopes.includes("files:write")) return insufficientScope(["files:read", "files:write"]);
 *   return { subject: claims.sub, scopes: claims.scopes };
 * }
 * ```
 *
 * @throws ToolError `invalid_configuration` for no scope, a scope outside RFC 6749's characters
 * (printable ASCII but `"` and `\`), or a description with a quote, backslash, control or
 * non-ASCII character: either would break the `WWW-Authenticate` header.
 */
export function insufficientScope(
  scope: string | readonly string[],
  options?: { description?: string },
): InsufficientScope {
  const joined = typeof scope === "string" ? scope.trim() : scope.join(" ");
  const words = joined.split(" ").filter((word) => word !== "");
  if (
    words.length === 0 ||
    !words.every(isScopeToken) ||
    !/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/.test(options?.description ?? "")
  ) {
    throw new ToolError({
      type: "invalid_configuration",
      message:
        "`insufficientScope` needs scopes (and a description) of printable ASCII without quotes or backslashes",
    });
  }
  // The brand (not `type`, which an `AuthInfo` might carry too) marks it, across module copies.
  return {
    [REFUSAL]: true,
    type: "insufficient_scope",
    scope: joined,
    description: options?.description,
  } as InsufficientScope;
}

/** Checks whether `authorize` handed back an `insufficientScope` refusal. */
export function isInsufficientScope(value: unknown): value is InsufficientScope {
  return typeof value === "object" && value !== null && REFUSAL in value;
}

/** The metadata options checked, with what every request derives from them precomputed. */
export interface ProtectedResource {
  /** The path the metadata document is served at. */
  readonly metadataPath: string;
  /** The resource identifier of a request that reached `url`. */
  resourceOf(url: string): string;
  /** The metadata document for a request that reached `url`. */
  document(url: string): Response;
  /** The `WWW-Authenticate` value of a 401 (`error="invalid_token"` when a token was sent). */
  unauthorized(url: string, hadToken: boolean): string;
  /** The `WWW-Authenticate` value of a 403 for `refusal`. */
  forbidden(url: string, refusal: InsufficientScope): string;
}

const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/**
 * Returns the checked metadata options for `endpoint`.
 *
 * @throws ToolError `invalid_configuration` for a missing or non-URL authorization server, a
 * `resource` that is not an http(s) URL without fragment, or a scope with a space or quote.
 */
export function createProtectedResource(
  options: ResourceMetadataOptions,
  endpoint: string,
): ProtectedResource {
  const bad = (message: string) => new ToolError({ type: "invalid_configuration", message });
  const servers = options?.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0 || !servers.every(isAbsoluteUrl)) {
    throw bad("`resourceMetadata.authorizationServers` must list at least one absolute URL");
  }
  const scopes = options.scopesSupported;
  if (scopes !== undefined && (!Array.isArray(scopes) || !scopes.every(isScopeToken))) {
    throw bad(
      "`resourceMetadata.scopesSupported` must be scope names (printable ASCII, no spaces or quotes)",
    );
  }
  const fixed = options.resource;
  // http(s) only: clients connect to it, and another scheme's path would reach the challenge raw.
  if (
    fixed !== undefined &&
    (!isAbsoluteUrl(fixed) || !/^https?:$/.test(new URL(fixed).protocol) || fixed.includes("#"))
  ) {
    throw bad("`resourceMetadata.resource` must be an http(s) URL without fragment");
  }
  for (const key of ["resourceDocumentation", "resourcePolicyUri", "resourceTosUri"] as const) {
    const value = options[key];
    if (value !== undefined && !isAbsoluteUrl(value)) {
      throw bad(`\`resourceMetadata.${key}\` must be an absolute URL`);
    }
  }
  const metadataPath = endpoint === "/" ? WELL_KNOWN : WELL_KNOWN + endpoint;
  const scope = scopes && scopes.length > 0 ? `, scope="${scopes.join(" ")}"` : "";
  const resourceOf = (url: string) => fixed ?? endpointUrl(url, endpoint);
  // RFC 9728 §3.1: the document's URL is the resource's with the well-known path put in front.
  const metadataUrl = (url: string) => {
    const resource = new URL(resourceOf(url));
    const path = resource.pathname === "/" ? "" : resource.pathname;
    return `${resource.origin}${WELL_KNOWN}${path}${resource.search}`;
  };
  const body = (url: string) => ({
    resource: resourceOf(url),
    authorization_servers: servers,
    ...(scopes ? { scopes_supported: scopes } : {}),
    bearer_methods_supported: ["header"],
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
    ...(options.resourceDocumentation === undefined
      ? {}
      : { resource_documentation: options.resourceDocumentation }),
    ...(options.resourcePolicyUri === undefined
      ? {}
      : { resource_policy_uri: options.resourcePolicyUri }),
    ...(options.resourceTosUri === undefined ? {} : { resource_tos_uri: options.resourceTosUri }),
  });
  return {
    metadataPath,
    resourceOf,
    document: (url) =>
      new Response(JSON.stringify(body(url)), {
        headers: {
          "content-type": "application/json",
          "cache-control": "public, max-age=3600",
          "access-control-allow-origin": "*",
        },
      }),
    unauthorized: (url, hadToken) =>
      `Bearer ${hadToken ? 'error="invalid_token", ' : ""}resource_metadata="${metadataUrl(url)}"${scope}`,
    forbidden: (url, refusal) => insufficientScopeChallenge(refusal, metadataUrl(url)),
  };
}

/**
 * The `WWW-Authenticate` value of a 403 for `refusal`: the scope, then where the metadata is
 * (with `resourceMetadata`), then the description if any.
 */
export function insufficientScopeChallenge(
  refusal: InsufficientScope,
  metadataUrl: string | undefined,
): string {
  const metadata = metadataUrl === undefined ? "" : `, resource_metadata="${metadataUrl}"`;
  const description =
    refusal.description === undefined ? "" : `, error_description="${refusal.description}"`;
  return `Bearer error="insufficient_scope", scope="${refusal.scope}"${metadata}${description}`;
}

/** The URL of `endpoint` on the origin `url` reached (`https://host/mcp`), without a URL parse. */
export function endpointUrl(url: string, endpoint: string): string {
  return originOf(url) + endpoint;
}

function originOf(url: string): string {
  const scheme = url.indexOf("//");
  const path = scheme === -1 ? -1 : url.indexOf("/", scheme + 2);
  return path === -1 ? new URL(url).origin : url.slice(0, path);
}

// RFC 6749 §3.3 scope-token: %x21 / %x23-5B / %x5D-7E, what a quoted header value can carry.
function isScopeToken(value: unknown): boolean {
  return typeof value === "string" && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(value);
}

function isAbsoluteUrl(value: unknown): value is string {
  if (typeof value !== "string") return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
