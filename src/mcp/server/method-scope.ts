// What a resources, prompts or completion method is given by the protocol era that received
// the request, and what it gives back. The methods are written once against this scope; each
// era's exchange (`rpc-2025.ts`, `rpc-2026.ts`) builds it and turns the outcome into its own
// answer (2026 adds `resultType`, the server's identity and the caching hints; a missing
// resource is `-32002` on 2025 and `-32602` on 2026).

import type { ToolName } from "../../declaration/tool-name.ts";
import { isToolError, ToolError } from "../../errors.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import { newInteractionId } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import type { McpRequestContext, ServedSources } from "./sources.ts";

/** Asks the client a question on behalf of the running read or prompt. */
export type Asker = (
  request: ToolInteractionRequest,
  signal: AbortSignal,
) => Promise<ToolInteractionResponse>;

/** What one request of a resources, prompts or completion method is served with. */
export interface MethodScope {
  readonly sources: ServedSources;
  /** What `authorize` returned. */
  readonly auth: unknown;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** Entries per list page (`pageSize`). */
  readonly pageSize: number;
  /** Asks the client, as this era does; `undefined` when this request cannot ask. */
  readonly ask: Asker | undefined;
  /** Reports a failure whose detail the client does not see (`onError`, phase `tool`). */
  report(error: unknown): void;
}

/** What a method answers, before its era shapes it. */
export type MethodOutcome =
  | { type: "result"; result: Record<string, unknown>; cacheable: boolean }
  | { type: "error"; code: number; message: string; data?: unknown }
  | { type: "resource_not_found"; uri: string };

/**
 * Returns the context a read or a prompt runs with: the request's signal and `auth`, and
 * questions through the era's asker (`unsupported` when it has none).
 *
 * @param asker Names the asker in the question (`prompt review`, `resource docs://x`).
 */
export function requestContext(scope: MethodScope, asker: string): McpRequestContext {
  const ask = async (prompt: string, kind: ToolInteractionRequest["kind"]): Promise<unknown> => {
    scope.signal.throwIfAborted();
    if (!scope.ask) {
      throw new ToolError({
        type: "unsupported",
        operation: `${asker} asked for input, but this request cannot be asked (a 2025 session with interactionPolicy \`elicit\`, or 2026-07-28, is needed)`,
      });
    }
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
    auth: scope.auth,
    requestText: async (prompt) => String(await ask(prompt, { type: "text", multiline: false })),
    requestForm: async (prompt, schema) =>
      (await ask(prompt, { type: "form", schema, schemaValidation: false })) as Record<
        string,
        unknown
      >,
  };
}

const CURSOR_PREFIX = "toolwire:at:";

/**
 * One page of a list, from the position a cursor names (`undefined` for a cursor this server
 * did not issue). Entries keep the order the source lists them in.
 */
export function pageOf<T>(
  entries: readonly T[],
  cursor: unknown,
  pageSize: number,
): { page: readonly T[]; nextCursor?: string } | undefined {
  let start = 0;
  if (cursor !== undefined) {
    if (typeof cursor !== "string") return undefined;
    let text: string;
    try {
      text = atob(cursor);
    } catch {
      return undefined;
    }
    if (!text.startsWith(CURSOR_PREFIX)) return undefined;
    start = Number(text.slice(CURSOR_PREFIX.length));
    if (!Number.isSafeInteger(start) || start < 0) return undefined;
  }
  const end = start + pageSize;
  const page = entries.slice(start, end);
  return end < entries.length ? { page, nextCursor: btoa(CURSOR_PREFIX + end) } : { page };
}

/** The `-32602` outcome of a request whose params are not what the method takes. */
export function invalidParams(message: string): MethodOutcome {
  return { type: "error", code: -32602, message: `Invalid params: ${message}` };
}

/**
 * The outcome of a read, prompt or completer that threw: a `ToolError` the client caused
 * (declined, cancelled, unsupported) keeps its message; anything else is reported and answered
 * `-32603` "internal error", so no detail of the server leaks.
 */
export function failureOutcome(scope: MethodScope, what: string, error: unknown): MethodOutcome {
  if (isToolError(error) && SHOWN.has(error.data.type)) {
    return { type: "error", code: -32603, message: `${what} failed: ${error.message}` };
  }
  scope.report(error);
  return { type: "error", code: -32603, message: `${what} failed: internal error` };
}

const SHOWN = new Set(["interaction_declined", "cancelled", "unsupported", "invalid_arguments"]);
