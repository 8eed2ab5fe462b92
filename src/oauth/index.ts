/**
 * toolwire/oauth — the client side of the MCP authorization flow (OAuth 2.1 with PKCE,
 * protected-resource and authorization-server discovery, client ID metadata documents or
 * dynamic registration, refresh, step-up). `oauth()` makes the `auth` that `connectMcp` takes.
 *
 * @example
 * ```ts
 * import { connectMcp } from "toolwire/mcp";
 * import { oauth } from "toolwire/oauth";
 *
 * const tools = await connectMcp({
 *   url: "https://mcp.example.com/mcp",
 *   auth: oauth({
 *     redirectUrl: "https://app.example.com/callback",
 *     authorize: async (url) => openPopupAndWaitForRedirect(url),
 *   }),
 * });
 * ```
 *
 * @module
 */

export { type BrowserOAuthOptions, browserOAuth, finishSignIn } from "./browser-oauth.ts";
export { oauth } from "./oauth.ts";
export type { OAuthOptions, OAuthStorage } from "./oauth-options.ts";
