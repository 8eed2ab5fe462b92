// Direction one of WebMCP (see `docs/design.md`, "WebMCP", W1-W6): a toolwire `Toolset`
// offered to the browser's agent through the page's model context.

import { isReadOnly, type ToolInfo } from "../declaration/tool-info.ts";
import { errorText, isToolError, ToolError } from "../errors.ts";
import { ToolResult } from "../execution/tool-result.ts";
import type { ToolInteractionRequest } from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import {
  type McpCallToolResult,
  TOOL_ERROR_META_KEY,
  toMcpCallToolResult,
  toMcpTool,
} from "../mcp/protocol.ts";
import type { Toolset } from "../toolset/toolset.ts";
import {
  findModelContext,
  type WebMcpClient,
  type WebMcpModelContext,
  type WebMcpToolDefinition,
} from "./model-context.ts";

/** Options of `registerWebMcpTools`. */
export interface RegisterWebMcpToolsOptions {
  /** Aborting it unregisters every tool; required, since a registration without one cannot end. */
  signal: AbortSignal;
  /** The model context to register on; default `document.modelContext`, else `navigator.modelContext`. */
  modelContext?: WebMcpModelContext;
  /**
   * The origins of the documents that may see the tools, for a page inside a cross-origin
   * iframe: the embedding page's origin (its iframe also needs `allow="tools"`). Default: only
   * this document.
   */
  exposedTo?: readonly string[];
  /**
   * Answers a tool's question from the page's own UI. When the browser offers a user-interaction
   * hook (`requestUserInteraction`, in earlier drafts) the answer is asked for inside it.
   * Without this option a question fails the call with `unsupported`: WebMCP's current draft
   * gives a tool no way to ask the browser's agent or user.
   */
  onInteraction?(
    request: ToolInteractionRequest,
    signal: AbortSignal,
  ): Promise<ToolInteractionResponse>;
}

/** A live registration, returned by `registerWebMcpTools`. */
export interface WebMcpRegistration {
  /** The names registered now, sorted. */
  readonly names: readonly string[];
  /**
   * Lists the toolset again and brings the registration in line: new tools are registered,
   * removed ones unregistered, changed ones registered anew. A `Toolset` has no change event,
   * so call this after changing what it lists; a call that finds its tool gone does it too.
   *
   * @throws ToolError as `registerWebMcpTools` does.
   */
  refresh(): Promise<void>;
}

/**
 * Registers every tool of a toolset with the page's WebMCP model context, so the browser's
 * agent can call it. Each call runs through `toolset.call`: the arguments are validated, the
 * browser's cancellation aborts `ctx.signal`, and the result comes back in MCP's
 * `CallToolResult` shape. A failure that is a `ToolError` (invalid arguments, a question
 * nobody can answer) comes back as an `isError: true` result whose text says why and whose
 * `_meta["toolwire/error"]` holds the error's JSON, because the browser replaces an exception
 * with a generic `UnknownError`.
 *
 * @param toolset The tools to offer.
 * @param options The signal that ends the registration, and where and to whom to offer them.
 * @returns The live registration.
 * @throws ToolError `unsupported` when the page has no model context (the message says how to
 * turn WebMCP on); `invalid_configuration` for a missing signal or a tool WebMCP refuses;
 * `duplicate_name` when the page already registered a tool of that name; whatever
 * `toolset.listTools` throws.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * await registerWebMcpTools(Toolset.local([add]), { signal: stop.signal });
 * // later: stop.abort() unregisters them
 * ```
 */
export async function registerWebMcpTools(
  toolset: Toolset,
  options: RegisterWebMcpToolsOptions,
): Promise<WebMcpRegistration> {
  const context = findModelContext(options?.modelContext);
  const { signal } = options;
  if (!(signal instanceof AbortSignal)) {
    throw new ToolError({
      type: "invalid_configuration",
      message: "registerWebMcpTools needs a signal; aborting it unregisters the tools",
    });
  }
  const exposedTo = options.exposedTo === undefined ? undefined : [...options.exposedTo];
  const live = new Map<string, { fingerprint: string; stop: AbortController }>();
  signal.addEventListener("abort", () => live.clear(), { once: true });

  const sync = async (): Promise<void> => {
    const tools = signal.aborted ? [] : await toolset.listTools();
    const wanted = new Map(tools.map((info) => [info.name as string, info]));
    for (const [name, entry] of live) {
      const info = wanted.get(name);
      if (!info || fingerprintOf(info, exposedTo) !== entry.fingerprint) {
        entry.stop.abort();
        live.delete(name);
      }
    }
    for (const [name, info] of wanted) {
      if (signal.aborted) return;
      if (live.has(name)) continue;
      const stop = new AbortController();
      const definition = definitionOf(info, (input, client) =>
        execute(toolset, info.name, input, client, options.onInteraction, refresh),
      );
      const registration: { signal: AbortSignal; exposedTo?: string[] } = {
        signal: AbortSignal.any([signal, stop.signal]),
      };
      if (exposedTo) registration.exposedTo = exposedTo;
      try {
        await context.registerTool(definition, registration);
      } catch (error) {
        if (signal.aborted) return;
        throw refusal(name, error);
      }
      live.set(name, { fingerprint: fingerprintOf(info, exposedTo), stop });
    }
  };

  // One sync at a time, so two refreshes never register the same name twice.
  let queue: Promise<void> = Promise.resolve();
  const refresh = (): Promise<void> => {
    const next = queue.then(sync);
    queue = next.catch(() => {});
    return next;
  };

  try {
    await refresh();
  } catch (error) {
    for (const entry of live.values()) entry.stop.abort();
    live.clear();
    throw error;
  }
  return {
    get names() {
      return [...live.keys()].sort();
    },
    refresh,
  };
}

/** The WebMCP definition of one toolwire tool (see design.md "WebMCP", Mapping). */
function definitionOf(
  info: ToolInfo,
  execute: WebMcpToolDefinition["execute"],
): WebMcpToolDefinition {
  const definition: WebMcpToolDefinition = {
    name: info.name,
    // WebMCP refuses an empty description.
    description: info.description || info.title || info.name,
    inputSchema: toMcpTool(info).inputSchema,
    annotations: {
      readOnlyHint: isReadOnly(info),
      untrustedContentHint: info.capabilities.untrustedInput,
      consequentialHint: info.capabilities.destructive || info.capabilities.externalSend,
    },
    execute,
  };
  const title = info.title ?? info.annotations.title;
  if (title !== undefined) definition.title = title;
  return definition;
}

function fingerprintOf(info: ToolInfo, exposedTo: readonly string[] | undefined): string {
  const { execute: _, ...shape } = definitionOf(info, async () => undefined);
  return JSON.stringify([shape, exposedTo]);
}

async function execute(
  toolset: Toolset,
  name: string,
  input: Record<string, unknown>,
  client: WebMcpClient | undefined,
  onInteraction: RegisterWebMcpToolsOptions["onInteraction"],
  refresh: () => Promise<void>,
): Promise<McpCallToolResult> {
  try {
    const result = await toolset.call(name, input ?? {}, {
      ...(client?.signal ? { signal: client.signal } : {}),
      onInteraction: (request, signal) => {
        if (!onInteraction) {
          throw new ToolError({
            type: "unsupported",
            operation: `${name} asked for input, but WebMCP gives a tool no way to ask the browser's agent or user (registerWebMcpTools has no onInteraction)`,
          });
        }
        const ask = () => onInteraction(request, signal);
        return typeof client?.requestUserInteraction === "function"
          ? client.requestUserInteraction(ask)
          : ask();
      },
    });
    return toMcpCallToolResult(result);
  } catch (error) {
    if (isToolError(error, "unknown_tool")) refresh().catch(() => {});
    const wire = toMcpCallToolResult(ToolResult.error(errorText(error)));
    if (isToolError(error)) wire._meta = { [TOOL_ERROR_META_KEY]: error.toJSON() };
    return wire;
  }
}

function refusal(name: string, error: unknown): ToolError {
  // The draft answers a name already registered with InvalidStateError; toolwire's own names
  // and non-empty descriptions rule out its other reasons.
  if ((error as { name?: unknown })?.name === "InvalidStateError") {
    return new ToolError({ type: "duplicate_name", name }, { cause: error });
  }
  return new ToolError(
    {
      type: "invalid_configuration",
      message: `WebMCP refused tool ${name}: ${errorText(error)}`,
    },
    { cause: error },
  );
}
