import { isToolError } from "../src/index.ts";
import type { McpAuth } from "../src/mcp/index.ts";

/** Where a server's OAuth sign-in stands, as the Tools panel shows it (never the token). */
export type SignInState =
  | { type: "signing_in" }
  | { type: "signed_in" }
  | { type: "failed"; message: string };

/**
 * Returns `auth` reporting its sign-ins: one starts when the server answers 401 (or 403 for more
 * scope) and `connectMcp` asks `unauthorized`, and ends when that settles. A server that needs no
 * sign-in never reports anything.
 *
 * @param auth The provider, `browserOAuth()` in the page.
 * @param onState Called as a sign-in starts, succeeds or fails.
 * @returns The same provider, observed.
 */
export function watchSignIn(auth: McpAuth, onState: (state: SignInState) => void): McpAuth {
  return {
    authorization: (resource, signal) => auth.authorization(resource, signal),
    async unauthorized(challenge, signal) {
      onState({ type: "signing_in" });
      try {
        await auth.unauthorized(challenge, signal);
      } catch (error) {
        onState({ type: "failed", message: failureText(error) });
        throw error;
      }
      onState({ type: "signed_in" });
    },
  };
}

/** The typed error's kind and message (a `ToolError` never carries a token or code). */
export function failureText(error: unknown): string {
  if (isToolError(error)) {
    return error.message.startsWith(error.type) ? error.message : `${error.type}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
