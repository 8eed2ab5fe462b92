// The MCP authorization flow on the client side (docs/design.md, "OAuth (client)"): `oauth()`
// returns the `McpAuth` that `connectMcp({ url, auth })` calls before every request and on a
// 401/403.

import { ToolError } from "../errors.ts";
import type { McpAuth } from "../mcp/client/mcp-session.ts";

/**
 * Where the flow keeps what must survive a reload or a new `connectMcp`: tokens, the
 * registered client, and a pending sign-in (verifier, state, issuer, resource). Values are
 * JSON strings; keys start with `toolwire.oauth.`. The default keeps them in memory.
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
   * page navigates away (browser redirect mode, see `callbackUrl`).
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
  /** A pre-registered client's id; dynamic registration is skipped. */
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
   * authorization server advertises `client_id_metadata_document_supported`.
   */
  clientMetadataUrl?: string;
  /** The client name sent with dynamic registration (RFC 7591), default `"toolwire"`. */
  clientName?: string;
  /** The application type sent with dynamic registration (default `"web"` for http(s) redirects, else `"native"`). */
  applicationType?: "web" | "native";
  /** The scope to ask for when neither the challenge nor the server's metadata names one. */
  scope?: string;
  /** The `fetch` to use; `globalThis.fetch` at call time when absent. */
  fetch?: typeof fetch;
}

/**
 * Creates the `McpAuth` for the MCP authorization flow: on a 401 it discovers the server's
 * protected-resource and authorization-server metadata, registers (or uses a pre-registered
 * id or a client metadata document), sends the user to sign in through `authorize`
 * (authorization code with PKCE and the `resource` indicator), keeps the tokens in `storage`,
 * refreshes them, and steps up the scope on `insufficient_scope`.
 *
 * @throws ToolError `invalid_configuration` for bad options.
 */
export function oauth(options: OAuthOptions): McpAuth {
  if (typeof options?.authorize !== "function" || typeof options.redirectUrl !== "string") {
    throw new ToolError({
      type: "invalid_configuration",
      message: "oauth() needs redirectUrl and authorize()",
    });
  }
  return {
    authorization: async () => undefined,
    unauthorized: async () => {
      throw new ToolError({ type: "unsupported", operation: "oauth sign-in (not built yet)" });
    },
  };
}
