// The tool methods, written once for every revision against the request's `Scope`: `tools/list`
// (pages of the toolset's declarations) and `tools/call` (the in-flight slot, the call into the
// toolset with the caller's `auth`, progress and log messages, questions, cancellation, and
// how a failure is answered: a gateway passes no upstream detail on). See `docs/design.md`,
// "Serving MCP".

import { isToolError } from "../../errors.ts";
import type { ToolLog, ToolProgress } from "../../execution/handler-io.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import type { CallOptions } from "../../toolset/toolset.ts";
import { JSON_RPC_ERROR } from "../json-rpc.ts";
import {
  LOGGING_LEVELS,
  type McpCallToolResult,
  type McpLoggingLevel,
  TOOL_ERROR_META_KEY,
  toMcpCallToolResult,
  toMcpTool,
} from "../protocol.ts";
import {
  failure,
  type Method,
  type Outcome,
  pageOf,
  result,
  type Scope,
  TOO_MANY_CALLS,
} from "./core.ts";

/**
 * Answers `tools/list`: a page of the toolset's tools, listed afresh (and kept in
 * `core.tools`), by name; `-32602` for a cursor this server did not issue.
 */
export const listTools: Method = async (params, { core }) => {
  const listed = pageOf(
    await core.tools.list(),
    params.cursor,
    core.options.pageSize,
    (tool) => tool.name,
  );
  if (!listed) return failure(JSON_RPC_ERROR.invalidParams, "Invalid cursor");
  const page: Record<string, unknown> = { tools: listed.page.map(toMcpTool) };
  if (listed.nextCursor !== undefined) page.nextCursor = listed.nextCursor;
  return result(page);
};

/**
 * Answers `tools/call`: the tool's result as it is (an `isError` result included), or the
 * failure (`failureOutcome`). It runs under the in-flight caps, with the caller's `auth`, the
 * request's signal, progress when the request carries a `progressToken`, log messages at or
 * above the scope's level, and questions asked as the revision asks them.
 */
export const callTool: Method = async (params, scope) => {
  const { name, arguments: args = {} } = params;
  if (typeof name !== "string") {
    return failure(JSON_RPC_ERROR.invalidParams, "tools/call needs a string `name`");
  }
  if (!isJsonObject(args)) {
    return failure(JSON_RPC_ERROR.invalidParams, "tools/call `arguments` must be an object");
  }
  const release = scope.admit();
  if (typeof release === "string") return failure(TOO_MANY_CALLS, release);
  const options: CallOptions = {
    signal: scope.signal,
    auth: scope.caller.auth,
    onInteraction: (question, signal) => scope.ask(question, signal),
  };
  if (scope.journal) options["~journal"] = scope.journal;
  if (scope.progressToken !== undefined) options.onProgress = progressSender(scope);
  if (scope.logLevel() !== "off") options.onLog = logSender(scope);
  try {
    return result(toMcpCallToolResult(await scope.core.toolset.call(name, args, options)));
  } catch (error) {
    if (scope.signal.aborted) return { type: "cancelled" };
    return failureOutcome(name, error, (hidden) => scope.report(hidden, "tool"));
  } finally {
    release();
  }
};

function progressSender(scope: Scope): (progress: ToolProgress) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (update) => {
    const progress = Number(update?.progress);
    // The spec requires progress to increase; a repeat or a step back is dropped.
    if (!Number.isFinite(progress) || progress <= last) return;
    last = progress;
    const params: Record<string, unknown> = { progressToken: scope.progressToken, progress };
    if (typeof update.total === "number") params.total = update.total;
    if (typeof update.message === "string") params.message = update.message;
    scope.notify("notifications/progress", params);
  };
}

function logSender(scope: Scope): (log: ToolLog) => void {
  return ({ level, data, logger }) => {
    const severity = LOGGING_LEVELS.indexOf(level as McpLoggingLevel);
    if (severity < 0) return;
    // Read the level per message, so a `logging/setLevel` during the call applies at once.
    const threshold = scope.logLevel();
    if (threshold === "off") return;
    if (threshold !== "all" && severity < LOGGING_LEVELS.indexOf(threshold)) return;
    const params: Record<string, unknown> = { level, data };
    if (typeof logger === "string") params.logger = logger;
    scope.notify("notifications/message", params);
  };
}

// The `ToolError` types whose message describes the call itself (the client's arguments, its
// own cancellation, a question it declined) and is safe to show. Every other type (transport,
// protocol, configuration, …, and any type added later) may carry a backend's detail: a
// gateway serving a `connectMcp` toolset would pass on an upstream URL, body or credential.
const SHOWN = new Set([
  "invalid_arguments",
  "invalid_output",
  "undeclared_interaction",
  "interaction_declined",
  "cancelled",
  "timeout",
  "unsupported",
]);

/**
 * The outcome of a call that threw. Only a request the server cannot process is a JSON-RPC
 * error: an unknown tool (`-32602`, as the tools spec shows) and a toolset that has shut down
 * (`-32603`). Everything else, invalid arguments included (SEP-1303, 2025-11-25), is an
 * `isError: true` result the model can read; its `_meta` carries the error's JSON shape under
 * `toolwire/error`. A failure whose detail is withheld carries only its type, and goes to
 * `hide` (the handler's `onError`).
 */
export function failureOutcome(
  tool: string,
  error: unknown,
  hide: (error: unknown) => void,
): Outcome {
  if (!isToolError(error)) {
    hide(error);
    return result(errorResult(`Tool ${tool} failed: internal error`));
  }
  const data = error.toJSON();
  switch (data.type) {
    case "unknown_tool":
      return failure(JSON_RPC_ERROR.invalidParams, `Unknown tool: ${data.name}`, {
        type: data.type,
        name: data.name,
      });
    case "closed":
      return failure(JSON_RPC_ERROR.internalError, "The server's toolset has shut down", {
        type: data.type,
      });
    case "invalid_arguments": {
      const lines = data.issues.map((issue) => `- ${issue.path || "/"}: ${issue.message}`);
      const text = [`Invalid arguments for tool ${data.tool}:`, ...lines].join("\n");
      return result(errorResult(text, data));
    }
    default:
      if (SHOWN.has(data.type)) return result(errorResult(error.message, data));
      hide(error);
      return result(
        errorResult(`Tool ${tool} failed: internal error (${data.type})`, { type: data.type }),
      );
  }
}

function errorResult(text: string, data?: unknown): McpCallToolResult {
  const wire: McpCallToolResult = { content: [{ type: "text", text }], isError: true };
  if (data !== undefined) wire._meta = { [TOOL_ERROR_META_KEY]: data };
  return wire;
}
