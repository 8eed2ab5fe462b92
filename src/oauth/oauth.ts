// The MCP authorization flow on the client side (docs/design.md, "OAuth (client)"): `oauth()`
// returns the `McpAuth` that `connectMcp({ url, auth })` calls before every request and on a
// refusal. A refusal leads, in order, to: the retry alone (another request already signed in),
// a refresh with the refresh token, or a sign-in (discovery in `discovery.ts`, the client,
// authorization code with PKCE, the token request). The protocol work is oauth4webapi's.

import * as oauth4 from "oauth4webapi";
import { cancelledError } from "../abort.ts";
import { errorText, isToolError, ToolError } from "../errors.ts";
import { type McpAuth, type McpAuthChallenge, scrubError } from "../mcp/client/mcp-session.ts";
import { excerpt, redactUrl } from "../redaction.ts";
import {
  type Challenge,
  checkUrl,
  discoverAuthorizationServer,
  discoverResource,
  type Http,
  httpOptions,
  parseChallenge,
} from "./discovery.ts";
import { checkOAuthOptions, memoryStorage, type OAuthOptions } from "./oauth-options.ts";

/** Tokens for one resource, as stored. */
interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  /** Milliseconds since the epoch. */
  expiresAt?: number;
  /** The scope asked for (or granted, when the answer says). */
  scope?: string;
  issuer: string;
}

/** A registered client at one authorization server, as stored. */
interface StoredClient {
  clientId: string;
  clientSecret?: string;
  method: "none" | "client_secret_basic" | "client_secret_post";
  redirectUrl: string;
}

/** A sign-in waiting for its redirect, as stored. */
interface PendingSignIn {
  state: string;
  verifier: string;
  issuer: string;
  resource: string;
  /** The endpoint URL (its origin and path) the tokens are kept for. */
  key: string;
  scope?: string;
  /** Milliseconds since the epoch; a pending sign-in older than `PENDING_TTL_MS` is dropped. */
  createdAt: number;
}

const PREFIX = "toolwire.oauth.";
const PENDING = `${PREFIX}pending`;
// A token this close to expiry is refreshed before it is sent.
const EXPIRY_MARGIN_MS = 30_000;
// How long a stored (redirect-mode) sign-in may wait for its return.
const PENDING_TTL_MS = 15 * 60_000;
const expiring = (tokens: StoredTokens) =>
  tokens.expiresAt !== undefined && tokens.expiresAt - EXPIRY_MARGIN_MS < Date.now();

/**
 * Creates the `McpAuth` for the MCP authorization flow. On a 401 it discovers the server's
 * protected-resource and authorization-server metadata, gets a client (the pre-registered one,
 * a client metadata document, or dynamic registration), sends the user through `authorize`
 * (authorization code with PKCE S256, `state` and the `resource` indicator), checks the
 * redirect's `iss`, and keeps the tokens in `storage`. An expired token is refreshed first; a
 * 403 with `insufficient_scope` signs in again with the scopes the challenge adds.
 *
 * @example
 * ```ts
 * const auth = oauth({
 *   redirectUrl: "http://127.0.0.1:8976/callback",
 *   clientId: "my-registered-client",
 *   authorize: async (url) => await showAndWaitForRedirect(url),
 * });
 * const tools = await connectMcp({ url: "https://mcp.example.com/mcp", auth });
 * ```
 *
 * @throws ToolError `invalid_configuration` for bad options. The returned object's methods
 * reject with `protocol` (metadata that does not fit, a refused authorization response),
 * `transport` (network, an error from the authorization server), `cancelled`, or what
 * `authorize` rejects with; no message carries a token, code, verifier or client secret.
 */
export function oauth(options: OAuthOptions): McpAuth {
  const settings = checkOAuthOptions(options);
  const storage = settings.storage ?? memoryStorage();
  const fetchOf = () => settings.fetch ?? globalThis.fetch;
  // The values no error may show: every token, code, verifier and secret seen so far.
  const secrets = new Set<string>();
  if (settings.clientSecret) secrets.add(settings.clientSecret);
  const remember = (...values: (string | undefined)[]) => {
    for (const value of values) if (value && value.length >= 4) secrets.add(value);
  };
  const metadata = new Map<string, oauth4.AuthorizationServer>();
  const inFlight = new Map<string, Promise<void>>();

  const read = async <T>(key: string): Promise<T | undefined> => {
    const text = await storage.get(key);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as T;
    } catch {
      return undefined;
    }
  };
  const write = (key: string, value: unknown) => storage.set(key, JSON.stringify(value));

  const authServer = async (issuer: string, http: Http) => {
    const known = metadata.get(issuer);
    if (known) return known;
    const found = await discoverAuthorizationServer(issuer, http);
    metadata.set(issuer, found);
    return found;
  };

  // The client at `as`: pre-registered, else the metadata document URL, else one registered
  // dynamically (and kept, per issuer). A sign-in needs one registered for this redirect URL;
  // a refresh takes the kept one whatever its redirect (a loopback port changes per sign-in).
  const clientAt = async (
    as: oauth4.AuthorizationServer,
    http: Http,
    refreshing = false,
  ): Promise<StoredClient> => {
    const redirectUrl = settings.redirectUrl;
    if (settings.clientId !== undefined) {
      const method =
        settings.tokenEndpointAuthMethod ??
        (settings.clientSecret ? "client_secret_basic" : "none");
      return {
        clientId: settings.clientId,
        method,
        redirectUrl,
        ...(settings.clientSecret ? { clientSecret: settings.clientSecret } : {}),
      };
    }
    if (settings.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
      return { clientId: settings.clientMetadataUrl, method: "none", redirectUrl };
    }
    const key = `${PREFIX}client ${as.issuer}`;
    const stored = await read<StoredClient>(key);
    if (stored && (refreshing || stored.redirectUrl === redirectUrl)) {
      remember(stored.clientSecret);
      return stored;
    }
    if (!as.registration_endpoint) {
      throw new ToolError({
        type: "invalid_configuration",
        message: `the authorization server ${redactUrl(as.issuer)} offers no dynamic registration; pass clientId${as.client_id_metadata_document_supported === true ? " or clientMetadataUrl" : ""}`,
      });
    }
    const supported = as.token_endpoint_auth_methods_supported;
    const asked =
      supported === undefined || supported.includes("none")
        ? "none"
        : supported.includes("client_secret_basic")
          ? "client_secret_basic"
          : "client_secret_post";
    const request: Partial<oauth4.Client> = {
      client_name: settings.clientName,
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: asked,
      application_type: settings.applicationType,
    };
    const response = await oauth4.dynamicClientRegistrationRequest(
      as,
      request,
      httpOptions(http, as.registration_endpoint),
    );
    const registered = await registrationOf(response);
    const secret =
      typeof registered.client_secret === "string" ? registered.client_secret : undefined;
    remember(secret);
    const given = registered.token_endpoint_auth_method;
    const method =
      given === "none" || given === "client_secret_basic" || given === "client_secret_post"
        ? given
        : secret
          ? asked === "none"
            ? "client_secret_basic"
            : asked
          : "none";
    const client: StoredClient = {
      clientId: registered.client_id as string,
      method,
      redirectUrl,
      ...(secret ? { clientSecret: secret } : {}),
    };
    await write(key, client);
    return client;
  };

  const tokensKey = (key: string) => `${PREFIX}tokens ${key}`;

  const keep = async (
    key: string,
    issuer: string,
    scope: string | undefined,
    answer: oauth4.TokenEndpointResponse,
    previous?: StoredTokens,
  ) => {
    remember(answer.access_token, answer.refresh_token);
    if (answer.token_type.toLowerCase() !== "bearer") {
      throw new ToolError({
        type: "protocol",
        message: `the authorization server issued a ${excerpt(answer.token_type, [], 20)} token; only Bearer tokens are supported`,
      });
    }
    const refreshToken = answer.refresh_token ?? previous?.refreshToken;
    const granted = typeof answer.scope === "string" && answer.scope !== "" ? answer.scope : scope;
    const tokens: StoredTokens = {
      accessToken: answer.access_token,
      issuer,
      ...(refreshToken ? { refreshToken } : {}),
      ...(typeof answer.expires_in === "number"
        ? { expiresAt: Date.now() + answer.expires_in * 1000 }
        : {}),
      ...(granted ? { scope: granted } : {}),
    };
    await write(tokensKey(key), tokens);
    return tokens;
  };

  // A new access token from the refresh token; false when there is none or it was refused.
  const refresh = async (key: string, tokens: StoredTokens, http: Http): Promise<boolean> => {
    if (!tokens.refreshToken) return false;
    remember(tokens.refreshToken);
    let status = 0;
    try {
      const as = await authServer(tokens.issuer, http);
      const client = await clientAt(as, http, true);
      const response = await oauth4.refreshTokenGrantRequest(
        as,
        clientOf(client),
        clientAuthOf(client),
        tokens.refreshToken,
        httpOptions(http, as.token_endpoint),
      );
      status = response.status;
      const answer = await oauth4.processRefreshTokenResponse(as, clientOf(client), response);
      await keep(key, tokens.issuer, tokens.scope, answer, tokens);
      return true;
    } catch (error) {
      // A refresh token the server refused (400, 401, 403, with an OAuth error body or not) is
      // dropped, so the refusal signs in again; a network failure, a server error or an abort
      // keeps it for the next try.
      const answered = error instanceof oauth4.ResponseBodyError ? error.status : status;
      if (![400, 401, 403].includes(answered)) throw error;
      await storage.delete(tokensKey(key));
      return false;
    }
  };

  // The token request for a redirect back from the authorization server.
  const finish = async (pending: PendingSignIn, returned: string | URL, http: Http) => {
    remember(pending.verifier, pending.state);
    const as = await authServer(pending.issuer, http);
    const client = await clientAt(as, http);
    let callback: URL;
    try {
      callback = new URL(String(returned), settings.redirectUrl);
    } catch {
      throw new ToolError({ type: "protocol", message: "authorize() resolved with no URL" });
    }
    remember(callback.searchParams.get("code") ?? undefined);
    await dropPending(pending.state);
    const params = oauth4.validateAuthResponse(as, clientOf(client), callback, pending.state);
    const response = await oauth4.authorizationCodeGrantRequest(
      as,
      clientOf(client),
      clientAuthOf(client),
      params,
      client.redirectUrl,
      pending.verifier,
      {
        ...httpOptions(http, as.token_endpoint),
        additionalParameters: { resource: pending.resource },
      },
    );
    const answer = await oauth4.processAuthorizationCodeResponse(as, clientOf(client), response);
    await keep(pending.key, pending.issuer, pending.scope, answer);
  };

  // The stored pending sign-in, when it is the one with `state` (another may have replaced it).
  const dropPending = async (state: string) => {
    if ((await read<PendingSignIn>(PENDING))?.state === state) await storage.delete(PENDING);
  };

  // A whole sign-in: discovery, the client, the authorization request, the token request.
  const signIn = async (
    endpoint: URL,
    key: string,
    challenge: Challenge,
    previous: StoredTokens | undefined,
    http: Http,
  ) => {
    const resource = await discoverResource(endpoint, challenge, http);
    const issuer = resource.authorizationServers[0] as string;
    const as = await authServer(issuer, http);
    if (!as.code_challenge_methods_supported?.includes("S256")) {
      throw new ToolError({
        type: "protocol",
        message: `the authorization server ${redactUrl(issuer)} does not advertise PKCE S256 (code_challenge_methods_supported), which MCP requires`,
      });
    }
    if (!as.authorization_endpoint || !as.token_endpoint) {
      throw new ToolError({
        type: "protocol",
        message: `the authorization server ${redactUrl(issuer)} names no authorization or token endpoint`,
      });
    }
    checkUrl(as.authorization_endpoint, "the authorization endpoint", endpoint);
    checkUrl(as.token_endpoint, "the token endpoint", endpoint);
    const client = await clientAt(as, http);
    const scope = scopeFor(challenge, resource.scopesSupported, previous, as, settings.scope);
    const verifier = oauth4.generateRandomCodeVerifier();
    const state = oauth4.generateRandomState();
    remember(verifier, state);
    const pending: PendingSignIn = {
      state,
      verifier,
      issuer,
      resource: resource.resource,
      key,
      ...(scope ? { scope } : {}),
      createdAt: Date.now(),
    };
    // Only a redirect-mode flow (`callbackUrl`) reads it back; elsewhere it stays in memory, so
    // an abandoned sign-in leaves no verifier in storage.
    const stored = settings.callbackUrl !== undefined;
    if (stored) await write(PENDING, pending);
    const url = new URL(as.authorization_endpoint);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", client.clientId);
    url.searchParams.set("redirect_uri", client.redirectUrl);
    url.searchParams.set("code_challenge", await oauth4.calculatePKCECodeChallenge(verifier));
    url.searchParams.set("code_challenge_method", "S256");
    url.searchParams.set("state", state);
    url.searchParams.set("resource", resource.resource);
    if (scope) url.searchParams.set("scope", scope);
    let returned: string | URL;
    try {
      returned = await settings.authorize(url, http.signal);
    } catch (error) {
      // A refusal ends this sign-in; an abort may be the page leaving for the redirect, whose
      // return still needs the pending sign-in.
      if (stored && !http.signal.aborted) await dropPending(state);
      throw error;
    }
    http.signal.throwIfAborted();
    await finish(pending, returned, http);
  };

  // What a refusal leads to (see the file's header), one at a time per endpoint.
  const recover = async (challenge: McpAuthChallenge, http: Http) => {
    const endpoint = challenge.resource;
    const key = endpoint.origin + endpoint.pathname;
    const parsed = parseChallenge(challenge.wwwAuthenticate);
    const tokens = await read<StoredTokens>(tokensKey(key));
    const stepUp = challenge.status === 403 || parsed.error === "insufficient_scope";
    const sent = challenge.authorization;
    // A token other than the one refused (or, when none was sent, a fresh one) came meanwhile.
    if (
      tokens &&
      sent !== `Bearer ${tokens.accessToken}` &&
      (sent !== undefined || !expiring(tokens))
    ) {
      return;
    }
    if (!stepUp && tokens && (await refresh(key, tokens, http))) return;
    await signIn(endpoint, key, parsed, stepUp ? tokens : undefined, http);
  };

  const guarded = async (
    what: string,
    endpoint: URL,
    signal: AbortSignal,
    run: (http: Http) => Promise<void>,
  ) => {
    if (signal.aborted) throw cancelledError("oauth sign-in", signal);
    const http: Http = { fetch: fetchOf(), signal, endpoint };
    try {
      await run(http);
    } catch (error) {
      throw failure(what, error, signal, [...secrets]);
    }
  };

  return {
    async authorization(resource, signal) {
      const key = resource.origin + resource.pathname;
      await inFlight.get(key)?.catch(() => {});
      // Redirect mode: the return is taken (out of the address bar) only by the endpoint whose
      // sign-in it finishes, so connecting to another server first does not lose it.
      let pending = settings.callbackUrl ? await read<PendingSignIn>(PENDING) : undefined;
      const returned =
        pending === undefined || pending.key === key ? settings.callbackUrl?.() : undefined;
      if (returned && URL.canParse(returned, settings.redirectUrl)) {
        if (pending && !(Date.now() - pending.createdAt < PENDING_TTL_MS)) {
          await storage.delete(PENDING);
          pending = undefined;
        }
        const state = new URL(returned, settings.redirectUrl).searchParams.get("state");
        const waiting = pending;
        if (waiting && state === waiting.state) {
          await guarded(`signing in to ${redactUrl(resource)}`, resource, signal, (http) =>
            finish(waiting, returned, http),
          );
        }
      }
      let tokens = await read<StoredTokens>(tokensKey(key));
      if (tokens && expiring(tokens)) {
        // One refresh at a time per endpoint: a rotating refresh token is spent by the first,
        // and a second refresh with it would be refused and drop the new tokens.
        const current = tokens;
        const running = inFlight.get(key);
        if (running) await running.catch(() => {});
        else {
          const work = guarded(
            `refreshing the token for ${redactUrl(resource)}`,
            resource,
            signal,
            (http) => refresh(key, current, http).then(() => {}),
          ).finally(() => inFlight.delete(key));
          inFlight.set(key, work);
          await work;
        }
        const now = await read<StoredTokens>(tokensKey(key));
        tokens = now && now.accessToken !== current.accessToken ? now : undefined;
      }
      if (tokens) remember(tokens.accessToken, tokens.refreshToken);
      return tokens ? `Bearer ${tokens.accessToken}` : undefined;
    },
    async unauthorized(challenge, signal) {
      const endpoint = challenge.resource;
      const key = endpoint.origin + endpoint.pathname;
      const running = inFlight.get(key);
      if (running) return running;
      const work = guarded(`signing in to ${redactUrl(endpoint)}`, endpoint, signal, (http) =>
        recover(challenge, http),
      ).finally(() => inFlight.delete(key));
      inFlight.set(key, work);
      return work;
    },
  };
}

// The scope to ask for: the challenge's (with what the current token has, on a step-up), else
// the resource's `scopes_supported`, else the caller's `scope`, else none; `offline_access`
// added when the authorization server lists it, for a refresh token.
function scopeFor(
  challenge: Challenge,
  supported: string[] | undefined,
  previous: StoredTokens | undefined,
  as: oauth4.AuthorizationServer,
  fallback: string | undefined,
): string | undefined {
  const base = challenge.scope ?? supported?.join(" ") ?? fallback;
  const words = new Set(
    [previous?.scope, base].flatMap((text) => (text ? text.split(/\s+/) : [])).filter(Boolean),
  );
  if (words.size === 0) return undefined;
  if (as.scopes_supported?.includes("offline_access")) words.add("offline_access");
  return [...words].join(" ");
}

// The registration answer (RFC 7591 §3.2). Read here rather than by oauth4webapi, which
// refuses an answer without `client_secret_expires_at`, a field servers commonly leave out.
async function registrationOf(response: Response): Promise<Partial<oauth4.Client>> {
  if (response.status !== 201 && response.status !== 200) {
    // oauth4webapi turns an OAuth error body into a ResponseBodyError with its `error`.
    await oauth4.processDynamicClientRegistrationResponse(response);
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (
    typeof body !== "object" ||
    body === null ||
    typeof (body as oauth4.Client).client_id !== "string"
  ) {
    throw new ToolError({
      type: "protocol",
      message: "the registration endpoint answered without a client_id",
    });
  }
  return body as Partial<oauth4.Client>;
}

function clientOf(client: StoredClient): oauth4.Client {
  return { client_id: client.clientId, token_endpoint_auth_method: client.method };
}

function clientAuthOf(client: StoredClient): oauth4.ClientAuth {
  switch (client.method) {
    case "client_secret_basic":
      return secretBasic(client.clientSecret ?? "");
    case "client_secret_post":
      return oauth4.ClientSecretPost(client.clientSecret ?? "");
    case "none":
      return oauth4.None();
    default:
      return oauth4.None();
  }
}

// `client_secret_basic` (RFC 6749 §2.3.1) with the id and secret form-encoded as browsers do:
// oauth4webapi also escapes `-`, `_`, `.` and `~`, which many servers do not decode, so an id
// such as `my-client` would not match.
function secretBasic(secret: string): oauth4.ClientAuth {
  const encode = (text: string) => encodeURIComponent(text).replace(/%20/g, "+");
  return (_as, client, _body, headers) => {
    const credentials = `${encode(client.client_id)}:${encode(secret)}`;
    const bytes = new TextEncoder().encode(credentials);
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    headers.set("authorization", `Basic ${btoa(binary)}`);
  };
}

// The error a failed sign-in step becomes: the signal's reason when it aborted, a `ToolError`
// as is, an authorization server's error (`error`, `error_description`) as `transport`, the
// rest as `protocol`; every text scrubbed of the flow's secrets and no `cause` kept (an
// oauth4webapi error holds the response, tokens included).
function failure(what: string, error: unknown, signal: AbortSignal, secrets: string[]): ToolError {
  if (signal.aborted) {
    return isToolError(signal.reason) ? signal.reason : cancelledError("oauth sign-in", signal);
  }
  const sorted = secrets.sort((a, b) => b.length - a.length);
  if (isToolError(error)) return scrubError(error, sorted);
  if (
    error instanceof oauth4.ResponseBodyError ||
    error instanceof oauth4.AuthorizationResponseError
  ) {
    const description = error.error_description ? `: ${error.error_description}` : "";
    return new ToolError({
      type: "transport",
      message: excerpt(
        `${what} failed: the authorization server answered ${error.error}${description}`,
        sorted,
        300,
      ),
    });
  }
  return new ToolError({
    type: "protocol",
    message: excerpt(`${what} failed: ${errorText(error)}`, sorted, 300),
  });
}
