// What `oauth()` is given, checked before anything loads oauth4webapi: `nodeOAuth()` checks
// its options when it is called and loads the flow (`oauth.ts`) with its first request, so
// importing `toolwire/node` does not evaluate oauth4webapi (design.md BC5).

import { ToolError } from "../errors.ts";

/**
 * Where the flow keeps what must survive a reload or a new `connectMcp`: tokens (key
 * `toolwire.oauth.tokens <resource>`), the registered client (`toolwire.oauth.client
 * <issuer>`) and a pending sign-in (`toolwire.oauth.pending`: verifier, state, issuer,
 * resource). Values are JSON strings. The default keeps them in memory, for the life of the
 * `oauth()` object.
 */
export interface OAuthStorage {
  get(key: string): string | undefined | Promise<string | undefined>;
  set(key: string, value: string): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** Options of `oauth()`. `redirectUrl` and `authorize` are required. */
export interface OAuthOptions {
  /** The redirect URI registered for this client; the authorization server sends the user back there. */
  redirectUrl: string;
  /**
   * Sends the user to `authorizationUrl` and resolves with the URL the authorization server
   * redirected back to (`code`, `state` and `iss` in its query). May never resolve when the
   * page navigates away (browser redirect mode, see `callbackUrl`). A rejection ends the
   * sign-in with that error (a `ToolError` as is).
   */
  authorize(authorizationUrl: URL, signal: AbortSignal): Promise<string | URL>;
  /**
   * Browser redirect mode: the current page URL when it is the return from the authorization
   * server, else undefined; the flow then finishes the pending sign-in from `storage` instead
   * of starting a new one.
   */
  callbackUrl?(): string | undefined;
  /** Where tokens, the client and a pending sign-in live (default: in memory). */
  storage?: OAuthStorage;
  /** A pre-registered client's id; registration is skipped. */
  clientId?: string;
  /** A pre-registered confidential client's secret. */
  clientSecret?: string;
  /**
   * How a pre-registered client authenticates at the token endpoint (default
   * `client_secret_basic` with a secret, else `none`).
   */
  tokenEndpointAuthMethod?: "none" | "client_secret_basic" | "client_secret_post";
  /**
   * An https URL serving this client's metadata document (CIMD), used as `client_id` when the
   * authorization server advertises `client_id_metadata_document_supported`; otherwise the
   * client registers dynamically (RFC 7591).
   */
  clientMetadataUrl?: string;
  /** The `client_name` sent with dynamic registration (default `"toolwire"`). */
  clientName?: string;
  /**
   * The `application_type` sent with dynamic registration (default `"native"` for a loopback
   * or custom-scheme redirect, else `"web"`).
   */
  applicationType?: "web" | "native";
  /** The scope to ask for when neither the challenge nor the resource's metadata names one. */
  scope?: string;
  /** The `fetch` to use; `globalThis.fetch` at call time when absent. */
  fetch?: typeof fetch;
}

/** An `OAuthStorage` in memory, for the life of the object (the default of `oauth()`). */
export function memoryStorage(): OAuthStorage {
  const values = new Map<string, string>();
  return {
    get: (key) => values.get(key),
    set: (key, value) => void values.set(key, value),
    delete: (key) => void values.delete(key),
  };
}

/** Checks `oauth()`'s options; returns them with the defaults of registration filled in. */
export function checkOAuthOptions(options: OAuthOptions): OAuthOptions & { clientName: string } {
  const invalid = (message: string) => new ToolError({ type: "invalid_configuration", message });
  if (typeof options !== "object" || options === null)
    throw invalid("oauth() options must be an object");
  if (typeof options.authorize !== "function")
    throw invalid("oauth() needs authorize(url, signal)");
  let redirect: URL;
  try {
    redirect = new URL(String(options.redirectUrl));
  } catch {
    throw invalid(
      "oauth() needs redirectUrl, an absolute URL such as http://127.0.0.1:8976/callback",
    );
  }
  if (redirect.hash !== "") throw invalid("redirectUrl must not have a fragment");
  if (options.clientSecret !== undefined && options.clientId === undefined) {
    throw invalid("clientSecret needs the clientId it belongs to");
  }
  if (options.clientMetadataUrl !== undefined) {
    const url = URL.canParse(options.clientMetadataUrl) ? new URL(options.clientMetadataUrl) : null;
    if (url?.protocol !== "https:" || url.pathname === "/") {
      throw invalid(
        "clientMetadataUrl must be an https URL with a path (the client's metadata document)",
      );
    }
  }
  const method = options.tokenEndpointAuthMethod;
  if (
    method !== undefined &&
    !["none", "client_secret_basic", "client_secret_post"].includes(method)
  ) {
    throw invalid(
      'tokenEndpointAuthMethod must be "none", "client_secret_basic" or "client_secret_post"',
    );
  }
  if (method !== undefined && method !== "none" && !options.clientSecret) {
    throw invalid(`tokenEndpointAuthMethod ${method} needs clientSecret`);
  }
  for (const name of ["fetch", "callbackUrl"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw invalid(`${name} must be a function`);
    }
  }
  const native = redirect.protocol !== "http:" && redirect.protocol !== "https:";
  const loopback = isLoopback(redirect);
  return {
    ...options,
    clientName: options.clientName ?? "toolwire",
    applicationType: options.applicationType ?? (native || loopback ? "native" : "web"),
  };
}

/** Whether a URL's host is this machine (localhost, 127.0.0.0/8, [::1]). */
export function isLoopback(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}
