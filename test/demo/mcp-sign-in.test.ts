import { describe, expect, test } from "vitest";
import { failureText, type SignInState, watchSignIn } from "../../demo/mcp-sign-in.ts";
import { ToolError } from "../../src/index.ts";
import type { McpAuth } from "../../src/mcp/index.ts";

// What the Tools panel shows of a sign-in: it starts on the server's 401, ends signed in or
// failed with the typed error's text, and a server that needs no sign-in shows nothing.

const challenge = {
  resource: new URL("http://127.0.0.1:4176/mcp"),
  status: 401,
  wwwAuthenticate: null,
};

function provider(unauthorized: McpAuth["unauthorized"]): McpAuth {
  return { authorization: async () => "Bearer t", unauthorized };
}

describe("watchSignIn", () => {
  test("reports signing in, then signed in, and passes the token request through", async () => {
    const states: SignInState[] = [];
    const auth = watchSignIn(
      provider(async () => {}),
      (state) => states.push(state),
    );
    expect(await auth.authorization(challenge.resource, new AbortController().signal)).toBe(
      "Bearer t",
    );
    expect(states).toEqual([]);
    await auth.unauthorized(challenge, new AbortController().signal);
    expect(states).toEqual([{ type: "signing_in" }, { type: "signed_in" }]);
  });

  test("reports a failure with the ToolError's type and message, and still rejects", async () => {
    const states: SignInState[] = [];
    const declined = new ToolError({
      type: "interaction_declined",
      tool: "oauth sign-in",
      reason: "the sign-in window was closed",
    });
    const auth = watchSignIn(
      provider(async () => {
        throw declined;
      }),
      (state) => states.push(state),
    );
    await expect(auth.unauthorized(challenge, new AbortController().signal)).rejects.toBe(declined);
    expect(states.at(-1)).toEqual({ type: "failed", message: failureText(declined) });
    expect(failureText(declined)).toMatch(/^interaction_declined: /);
    const unsupported = new ToolError({ type: "unsupported", operation: "opening the popup" });
    expect(failureText(unsupported)).toBe(unsupported.message);
  });
});
