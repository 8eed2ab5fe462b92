// A small OAuth 2.1 authorization server for tests, as a `fetch` handler (serve it with `serve`
// from toolwire/node for a browser, or pass `fetch` to a client in process). It implements what
// the MCP authorization flow needs and checks it strictly, so a client that gets it wrong fails:
// RFC 8414 metadata, dynamic client registration (RFC 7591), client ID metadata documents (an
// https `client_id`), authorization code with PKCE (S256 only), `iss` in the redirect (RFC 9207),
// the `resource` indicator (RFC 8707) as the token's audience, refresh tokens that rotate, and
// `client_secret_basic`/`client_secret_post`/`none` client authentication. `verify` answers what
// an MCP server's `authorize` needs. Everything is in memory.

/** How the test server behaves. */
export interface OAuthServerOptions {
  /** The issuer, an absolute URL without query (e.g. `http://127.0.0.1:4175`); endpoints hang off it. */
  issuer: string;
  /**
   * `auto` (default) approves every valid authorization request at once; `page` answers
   * `/authorize` with an HTML consent page whose "Allow" and "Deny" buttons post the decision.
   */
  consent?: "auto" | "page";
  /** The subject the tokens are issued to; default `user-1`. */
  subject?: string;
  /** Advertised in the metadata; a requested scope outside it is `invalid_scope`. Default `["mcp"]`. */
  scopesSupported?: string[];
  /** The scopes granted when the request names none; default all of `scopesSupported`. */
  defaultScopes?: string[];
  /** When set, a `resource` outside this list is `invalid_target`. */
  resources?: string[];
  /** Access token lifetime in seconds; default 3600. */
  accessTokenTtlSeconds?: number;
  /** Clients registered in advance (no registration call needed). */
  clients?: RegisteredClient[];
  /** Fetches client ID metadata documents; default the global `fetch`. */
  fetch?: typeof fetch;
}

/** A client the server knows. */
export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: "none" | "client_secret_basic" | "client_secret_post";
  client_name?: string;
}

/** What a valid access token stands for. */
export interface VerifiedToken {
  subject: string;
  clientId: string;
  scopes: string[];
  /** The `resource` it was issued for, if the client named one. */
  resource: string | undefined;
  /** Seconds since the epoch. */
  expiresAt: number;
}

/** The running test server. */
export interface OAuthTestServer {
  issuer: string;
  /** Answers one request, as the global `fetch` would over the network. */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /** The token's claims when it is a live access token (for `resource`, also its audience). */
  verify(token: string, resource?: string): VerifiedToken | undefined;
  /** `verify` of the request's `Authorization: Bearer` token: what a protected server's `authorize` checks. */
  verifyRequest(request: Request, resource?: string): VerifiedToken | undefined;
  /**
   * Issues an access token directly, as if a client had signed in (default: client `direct`,
   * every supported scope, no resource), for tests of a resource server.
   */
  issueAccessToken(grant?: { clientId?: string; scopes?: string[]; resource?: string }): string;
  /** Makes every access token issued so far expire, so the next use needs a refresh. */
  expireAccessTokens(): void;
  /** Every authorization request received, in order. */
  readonly authorizationRequests: URL[];
  /** Every code and token issued so far, for asserting none of them leaked. */
  issuedSecrets(): string[];
  /** Registered clients, by id. */
  readonly clients: Map<string, RegisteredClient>;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scopes: string[];
  resource: string | undefined;
  expiresAt: number;
}

interface Grant {
  clientId: string;
  scopes: string[];
  resource: string | undefined;
}

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-allow-methods": "GET, POST, OPTIONS",
};

/** Creates the test authorization server. */
export function createOAuthServer(options: OAuthServerOptions): OAuthTestServer {
  const issuer = options.issuer.replace(/\/$/, "");
  const subject = options.subject ?? "user-1";
  const scopesSupported = options.scopesSupported ?? ["mcp"];
  const defaultScopes = options.defaultScopes ?? scopesSupported;
  const ttl = options.accessTokenTtlSeconds ?? 3600;
  const clients = new Map((options.clients ?? []).map((c) => [c.client_id, c]));
  const codes = new Map<string, PendingCode>();
  const tickets = new Map<string, { params: URLSearchParams; client: RegisteredClient }>();
  const accessTokens = new Map<string, VerifiedToken>();
  const refreshTokens = new Map<string, Grant>();
  const secrets: string[] = [];
  const authorizationRequests: URL[] = [];
  const now = () => Math.floor(Date.now() / 1000);

  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    scopes_supported: scopesSupported,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };

  async function findClient(clientId: string | null): Promise<RegisteredClient | undefined> {
    if (!clientId) return undefined;
    const known = clients.get(clientId);
    if (known || !clientId.startsWith("https://")) return known;
    // A client ID metadata document: the id is the URL of the client's own metadata.
    try {
      const response = await (options.fetch ?? fetch)(clientId, {
        signal: AbortSignal.timeout(5000),
      });
      if (!response.ok) return undefined;
      const document = (await response.json()) as Partial<RegisteredClient>;
      if (document.client_id !== clientId || !Array.isArray(document.redirect_uris))
        return undefined;
      return {
        client_id: clientId,
        redirect_uris: document.redirect_uris,
        token_endpoint_auth_method: "none",
        ...(document.client_name ? { client_name: document.client_name } : {}),
      };
    } catch {
      return undefined;
    }
  }

  function issue(prefix: string): string {
    const value = `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;
    secrets.push(value);
    return value;
  }

  function grantedScopes(requested: string | null): string[] | undefined {
    if (!requested) return defaultScopes;
    const scopes = requested.split(" ").filter(Boolean);
    return scopes.every((s) => scopesSupported.includes(s)) ? scopes : undefined;
  }

  function redirectWith(redirectUri: string, params: Record<string, string>): Response {
    const target = new URL(redirectUri);
    for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
    target.searchParams.set("iss", issuer);
    return new Response(null, { status: 302, headers: { location: target.href } });
  }

  function approve(params: URLSearchParams, client: RegisteredClient): Response {
    const redirectUri = params.get("redirect_uri") as string;
    const state = params.get("state");
    const scopes = grantedScopes(params.get("scope")) as string[];
    const code = issue("code");
    codes.set(code, {
      clientId: client.client_id,
      redirectUri,
      challenge: params.get("code_challenge") as string,
      scopes,
      resource: params.get("resource") ?? undefined,
      expiresAt: now() + 60,
    });
    return redirectWith(redirectUri, { code, ...(state ? { state } : {}) });
  }

  async function authorize(url: URL): Promise<Response> {
    authorizationRequests.push(url);
    const params = url.searchParams;
    const client = await findClient(params.get("client_id"));
    const redirectUri = params.get("redirect_uri");
    // Without a known client and one of its exact redirect URIs there is nowhere safe to go back.
    if (!client) return page(400, "Unknown client");
    if (!redirectUri || !client.redirect_uris.includes(redirectUri)) {
      return page(400, "The redirect_uri is not registered for this client");
    }
    const state = params.get("state");
    const fail = (error: string, description: string) =>
      redirectWith(redirectUri, {
        error,
        error_description: description,
        ...(state ? { state } : {}),
      });
    if (params.get("response_type") !== "code") {
      return fail("unsupported_response_type", "only code");
    }
    if (!params.get("code_challenge") || params.get("code_challenge_method") !== "S256") {
      return fail("invalid_request", "PKCE with S256 is required");
    }
    if (!grantedScopes(params.get("scope"))) return fail("invalid_scope", "unknown scope");
    const resource = params.get("resource");
    if (resource && options.resources && !options.resources.includes(resource)) {
      return fail("invalid_target", "unknown resource");
    }
    if (options.consent !== "page") return approve(params, client);
    const ticket = crypto.randomUUID();
    tickets.set(ticket, { params, client });
    return consentPage(ticket, client.client_name ?? client.client_id, params.get("scope"));
  }

  async function decide(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    const ticket = tickets.get(form.get("ticket") ?? "");
    if (!ticket) return page(400, "This sign-in has expired");
    tickets.delete(form.get("ticket") as string);
    if (form.get("decision") === "allow") return approve(ticket.params, ticket.client);
    const state = ticket.params.get("state");
    return redirectWith(ticket.params.get("redirect_uri") as string, {
      error: "access_denied",
      error_description: "The user denied the request",
      ...(state ? { state } : {}),
    });
  }

  async function register(request: Request): Promise<Response> {
    let body: Record<string, unknown>;
    try {
      body = (await request.json()) as Record<string, unknown>;
    } catch {
      return json(400, { error: "invalid_client_metadata", error_description: "not JSON" });
    }
    const uris = body.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === "string")) {
      return json(400, { error: "invalid_redirect_uri", error_description: "redirect_uris" });
    }
    const method = body.token_endpoint_auth_method ?? "client_secret_basic";
    if (method !== "none" && method !== "client_secret_basic" && method !== "client_secret_post") {
      return json(400, {
        error: "invalid_client_metadata",
        error_description: "token_endpoint_auth_method",
      });
    }
    const client: RegisteredClient = {
      client_id: `client_${crypto.randomUUID()}`,
      redirect_uris: uris as string[],
      token_endpoint_auth_method: method,
      ...(typeof body.client_name === "string" ? { client_name: body.client_name } : {}),
      ...(method === "none" ? {} : { client_secret: issue("secret") }),
    };
    clients.set(client.client_id, client);
    return json(201, {
      ...body,
      ...client,
      client_id_issued_at: now(),
      ...(client.client_secret ? { client_secret_expires_at: 0 } : {}),
    });
  }

  async function authenticate(
    request: Request,
    form: URLSearchParams,
  ): Promise<RegisteredClient | undefined> {
    const basic = request.headers.get("authorization");
    if (basic?.startsWith("Basic ")) {
      const [id, secret] = atob(basic.slice(6)).split(":").map(decodeURIComponent);
      const client = await findClient(id ?? null);
      return client?.token_endpoint_auth_method === "client_secret_basic" &&
        client.client_secret === secret
        ? client
        : undefined;
    }
    const client = await findClient(form.get("client_id"));
    if (!client) return undefined;
    switch (client.token_endpoint_auth_method) {
      case "none":
        return form.has("client_secret") ? undefined : client;
      case "client_secret_post":
        return form.get("client_secret") === client.client_secret ? client : undefined;
      case "client_secret_basic":
        return undefined;
    }
  }

  function tokens(grant: Grant): Response {
    const access = issue("at");
    const refresh = issue("rt");
    accessTokens.set(access, {
      subject,
      clientId: grant.clientId,
      scopes: grant.scopes,
      resource: grant.resource,
      expiresAt: now() + ttl,
    });
    refreshTokens.set(refresh, grant);
    return json(200, {
      access_token: access,
      token_type: "Bearer",
      expires_in: ttl,
      refresh_token: refresh,
      scope: grant.scopes.join(" "),
    });
  }

  async function token(request: Request): Promise<Response> {
    if (!request.headers.get("content-type")?.startsWith("application/x-www-form-urlencoded")) {
      return json(400, { error: "invalid_request", error_description: "form body expected" });
    }
    const form = new URLSearchParams(await request.text());
    const client = await authenticate(request, form);
    if (!client) return json(401, { error: "invalid_client" });
    const resource = form.get("resource") ?? undefined;
    switch (form.get("grant_type")) {
      case "authorization_code": {
        const code = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        if (!code || code.expiresAt < now() || code.clientId !== client.client_id) {
          return json(400, { error: "invalid_grant", error_description: "unknown code" });
        }
        if (code.redirectUri !== form.get("redirect_uri")) {
          return json(400, { error: "invalid_grant", error_description: "redirect_uri" });
        }
        if ((await s256(form.get("code_verifier") ?? "")) !== code.challenge) {
          return json(400, { error: "invalid_grant", error_description: "code_verifier" });
        }
        if (resource !== code.resource) {
          return json(400, { error: "invalid_target", error_description: "resource" });
        }
        return tokens({ clientId: client.client_id, scopes: code.scopes, resource });
      }
      case "refresh_token": {
        const grant = refreshTokens.get(form.get("refresh_token") ?? "");
        if (!grant || grant.clientId !== client.client_id) {
          return json(400, { error: "invalid_grant", error_description: "unknown refresh token" });
        }
        if (resource !== undefined && resource !== grant.resource) {
          return json(400, { error: "invalid_target", error_description: "resource" });
        }
        // Refresh tokens rotate: the old one is spent.
        refreshTokens.delete(form.get("refresh_token") as string);
        return tokens(grant);
      }
      default:
        return json(400, { error: "unsupported_grant_type" });
    }
  }

  function verify(value: string, resource?: string): VerifiedToken | undefined {
    const found = accessTokens.get(value);
    if (!found || found.expiresAt <= now()) return undefined;
    if (resource !== undefined && found.resource !== resource) return undefined;
    return found;
  }

  async function answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
    switch (`${request.method} ${url.pathname}`) {
      case "GET /.well-known/oauth-authorization-server":
      case "GET /.well-known/openid-configuration":
        return json(200, metadata);
      case "GET /authorize":
        return authorize(url);
      case "POST /authorize":
        return decide(request);
      case "POST /register":
        return register(request);
      case "POST /token":
        return token(request);
      default:
        return json(404, { error: "not_found" });
    }
  }

  return {
    issuer,
    clients,
    authorizationRequests,
    fetch: (input, init) => answer(input instanceof Request ? input : new Request(input, init)),
    verify,
    verifyRequest: (request, resource) =>
      verify(request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "", resource),
    issueAccessToken(grant = {}) {
      const access = issue("at");
      accessTokens.set(access, {
        subject,
        clientId: grant.clientId ?? "direct",
        scopes: grant.scopes ?? scopesSupported,
        resource: grant.resource,
        expiresAt: now() + ttl,
      });
      return access;
    },
    expireAccessTokens() {
      for (const claims of accessTokens.values()) claims.expiresAt = 0;
    },
    issuedSecrets: () => [...secrets],
  };
}

async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  let binary = "";
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...CORS },
  });
}

function page(status: number, message: string): Response {
  return new Response(`<!doctype html><title>Sign-in error</title><p>${escapeHtml(message)}</p>`, {
    status,
    headers: { "content-type": "text/html; charset=utf-8" },
  });
}

function consentPage(ticket: string, client: string, scope: string | null): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in to the test server</title></head>
<body>
<h1>Allow access?</h1>
<p><strong>${escapeHtml(client)}</strong> asks for ${escapeHtml(scope ?? "access")}.</p>
<form method="post" action="/authorize">
<input type="hidden" name="ticket" value="${escapeHtml(ticket)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</body></html>`;
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
