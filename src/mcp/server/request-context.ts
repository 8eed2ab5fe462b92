// What the resources, prompts and completion methods share beyond the core's `Scope`: the
// context a read or a prompt runs with (its questions go through `scope.ask`, as a tool's do,
// so each revision asks them its own way), and how their failures are answered.

import type { ToolName } from "../../declaration/tool-name.ts";
import { isToolError, ToolError } from "../../errors.ts";
import {
  newInteractionId,
  type ToolInteractionRequest,
} from "../../interaction/interaction-request.ts";
import { failure, type Outcome, type Scope } from "./core.ts";
import type { McpRequestContext } from "./sources.ts";

/**
 * Returns the context a read or a prompt runs with: the request's signal and `auth`, and
 * questions asked through the revision (`scope.ask`).
 *
 * @param asker Names the asker in the question (`prompt review`, `resource docs://x`).
 */
export function requestContext(scope: Scope, asker: string): McpRequestContext {
  const ask = async (prompt: string, kind: ToolInteractionRequest["kind"]): Promise<unknown> => {
    scope.signal.throwIfAborted();
    const request: ToolInteractionRequest = {
      id: newInteractionId(),
      // Questions carry a tool name; a read or prompt is named by what it is.
      toolName: asker as ToolName,
      prompt,
      kind,
    };
    const response = await scope.ask(request, scope.signal);
    if (response.type === "submit") return response.content;
    throw new ToolError({
      type: "interaction_declined",
      tool: asker,
      ...(response.reason === undefined ? {} : { reason: response.reason }),
    });
  };
  return {
    signal: scope.signal,
    auth: scope.caller.auth,
    requestText: async (prompt) => String(await ask(prompt, { type: "text", multiline: false })),
    requestForm: async (prompt, schema) =>
      (await ask(prompt, { type: "form", schema, schemaValidation: false })) as Record<
        string,
        unknown
      >,
  };
}

/** The `-32602` outcome of a request whose params are not what the method takes. */
export function invalidParams(message: string): Outcome {
  return failure(-32602, `Invalid params: ${message}`);
}

// The `ToolError` types the client caused, whose message is safe to show.
const SHOWN = new Set(["interaction_declined", "cancelled", "unsupported"]);

/**
 * The outcome of a read, prompt or completer that threw: a `ToolError` the client caused
 * (declined, cancelled, unsupported) keeps its message; anything else is reported (`onError`,
 * phase `tool`) and answered `-32603` "internal error", so no detail of the server leaks. A
 * request the client cancelled is `cancelled`.
 */
export function failureOutcome(scope: Scope, what: string, error: unknown): Outcome {
  if (scope.signal.aborted) return { type: "cancelled" };
  if (isToolError(error) && SHOWN.has(error.data.type)) {
    return failure(-32603, `${what} failed: ${error.message}`);
  }
  scope.report(error, "tool");
  return failure(-32603, `${what} failed: internal error`);
}

/** Returns a sorted copy, so pages (`pageOf`) follow one order whatever the source lists. */
export function sortedBy<T>(entries: readonly T[], keyOf: (entry: T) => string): T[] {
  return [...entries].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}
