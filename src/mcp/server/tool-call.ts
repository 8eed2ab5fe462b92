// One `tools/call`, from the parsed request to its answer: the in-flight cap, the call into the
// toolset with the caller's `auth`, progress and log messages on an SSE stream, questions sent
// to the client, cancellation, and how a failure is answered (a gateway passes no upstream
// detail on). See `docs/design.md`, "Serving MCP".

import { raceSignal } from "../../abort.ts";
import { isToolError, ToolError } from "../../errors.ts";
import type { ToolLog, ToolProgress } from "../../execution/handler-io.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import type { CallOptions } from "../../toolset/toolset.ts";
import {
  JSON_RPC_ERROR,
  type JsonRpcRequest,
  type JsonRpcResponse,
  jsonRpcError,
  jsonRpcNotification,
  jsonRpcResult,
} from "../json-rpc.ts";
import {
  LOGGING_LEVELS,
  type McpCallToolResult,
  type McpLoggingLevel,
  TOOL_ERROR_META_KEY,
  toMcpCallToolResult,
} from "../protocol.ts";
import { type Answer, createResponseChannel, jsonAnswer, type ResponseChannel } from "./http.ts";
import { answerFrom, capabilityFor, clientDeclares, questionFor } from "./questions.ts";
import type { RequestScope, ServerState } from "./state.ts";

/** The error code answering a request the client cancelled (LSP's `RequestCancelled`). */
export const REQUEST_CANCELLED = -32800;

/** The error code answering a `tools/call` beyond `maxInFlightCalls`. */
export const TOO_MANY_CALLS = -32000;

/**
 * Answers a `tools/call`: as plain JSON when the tool just completes, as an SSE stream once it
 * reports progress (and the request carried `_meta.progressToken`), logs, or asks a question.
 * The tool's `ctx.log` messages at or above the session's `logging/setLevel` level (all of them
 * without a session or before it sets one) go out as `notifications/message`.
 * `notifications/cancelled` from the same owner aborts the tool's `ctx.signal`, and the stream
 * then ends without a response, as the cancellation spec asks.
 *
 * @param owner The session id, else the caller's identity: who may cancel or answer the call.
 */
export function serveToolCall(
  state: ServerState,
  scope: RequestScope,
  message: JsonRpcRequest,
  owner: string | undefined,
): Promise<Answer> {
  const params = message.params ?? {};
  const { name, arguments: args = {} } = params;
  const refuse = (code: number, why: string) =>
    Promise.resolve(jsonAnswer(jsonRpcError(message.id, code, why), 200, scope.headers));
  if (typeof name !== "string") {
    return refuse(JSON_RPC_ERROR.invalidParams, "tools/call needs a string `name`");
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return refuse(JSON_RPC_ERROR.invalidParams, "tools/call `arguments` must be an object");
  }
  const controller = new AbortController();
  const unregister = state.inFlight.add(
    owner,
    message.id,
    controller,
    {
      max: state.options.maxInFlightCalls,
      perOwner: state.sessions !== undefined,
      perCaller: state.options.maxInFlightCallsPerCaller,
    },
    scope.identity,
  );
  if (typeof unregister === "string") {
    return refuse(TOO_MANY_CALLS, tooManyCalls(state, unregister));
  }
  // Without an owner (an anonymous caller without a session) no `notifications/cancelled` can
  // be told from another caller's, so the call's own request is its only link to the client:
  // the client going away cancels it. Nothing else could deliver its answer, since a stream is
  // never resumed.
  const disconnect =
    owner === undefined ? () => controller.abort("the client closed the request") : undefined;
  const channel = createResponseChannel(scope.headers, disconnect);
  const stopListening = disconnect ? scope.onAbort(disconnect) : undefined;
  const options: CallOptions = {
    signal: controller.signal,
    auth: scope.auth,
    onLog: logSender(scope, channel),
    onInteraction: (request, signal) => ask(state, scope, owner, channel, signal, request),
  };
  const onProgress = progressSender(channel, params._meta);
  if (onProgress) options.onProgress = onProgress;
  const run = async () => {
    try {
      const result = await state.toolset.call(name, args, options);
      channel.finish(jsonRpcResult(message.id, toMcpCallToolResult(result)), cancelled(message));
    } catch (error) {
      if (controller.signal.aborted) return channel.finish(undefined, cancelled(message));
      const answer = failureAnswer(message, name, error, (hidden) =>
        state.report(hidden, "tool", scope.request),
      );
      channel.finish(answer, answer);
    } finally {
      stopListening?.();
      unregister();
    }
  };
  void run();
  return channel.response;
}

/** Why a call was refused by the in-flight caps, naming the limit. */
export function tooManyCalls(state: ServerState, refusal: "max" | "per_caller"): string {
  return refusal === "max"
    ? `Too many calls in flight (the limit is ${state.options.maxInFlightCalls}); retry when one has finished`
    : `Too many calls in flight for this caller (the limit is ${state.options.maxInFlightCallsPerCaller}); retry when one has finished`;
}

export function progressSender(
  channel: ResponseChannel,
  meta: unknown,
): ((progress: ToolProgress) => void) | undefined {
  const token = (meta as { progressToken?: unknown } | undefined)?.progressToken;
  if (typeof token !== "string" && typeof token !== "number") return undefined;
  let last = Number.NEGATIVE_INFINITY;
  return (update) => {
    const progress = Number(update?.progress);
    // The spec requires progress to increase; a repeat or a step back is dropped.
    if (!Number.isFinite(progress) || progress <= last) return;
    last = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (typeof update.total === "number") params.total = update.total;
    if (typeof update.message === "string") params.message = update.message;
    channel.send(jsonRpcNotification("notifications/progress", params));
  };
}

function logSender(scope: RequestScope, channel: ResponseChannel): (log: ToolLog) => void {
  return ({ level, data, logger }) => {
    const severity = LOGGING_LEVELS.indexOf(level as McpLoggingLevel);
    if (severity < 0) return;
    // Read the level per message, so a `logging/setLevel` during the call applies at once.
    const threshold = scope.session?.logLevel;
    if (threshold !== undefined && severity < LOGGING_LEVELS.indexOf(threshold)) return;
    const params: Record<string, unknown> = { level, data };
    if (typeof logger === "string") params.logger = logger;
    channel.send(jsonRpcNotification("notifications/message", params));
  };
}

/**
 * Asks the client a question during a 2025 request (a tool's, a prompt's, a read's): refused
 * (`unsupported`) under `interactionPolicy: "reject"` or when the session's client did not
 * declare the capability; else sent on the request's stream and answered by the client's
 * POSTed response, or cancelled after `interactionTimeoutMs`.
 */
export async function ask(
  state: ServerState,
  scope: RequestScope,
  owner: string | undefined,
  channel: ResponseChannel,
  signal: AbortSignal,
  request: ToolInteractionRequest,
): Promise<ToolInteractionResponse> {
  const capability = capabilityFor(request.kind);
  const policy = state.options.interactionPolicy;
  if (policy === "reject" || !clientDeclares(scope.session?.capabilities, capability)) {
    const why =
      policy === "reject"
        ? "this MCP server does not forward questions (interactionPolicy `reject`)"
        : `the MCP client did not declare the ${capability} capability`;
    throw new ToolError({
      type: "unsupported",
      operation: `tool \`${request.toolName}\` asked for input, but ${why}`,
    });
  }
  const timeout = AbortSignal.timeout(state.options.interactionTimeoutMs);
  const pending = state.pending.open(owner);
  channel.send(questionFor(request, pending.id, scope.protocolVersion));
  try {
    return answerFrom(
      request,
      await raceSignal(pending.response, AbortSignal.any([signal, timeout])),
    );
  } catch (error) {
    if (signal.aborted) throw error;
    return { type: "cancel", id: request.id, reason: "the client did not answer in time" };
  } finally {
    pending.withdraw();
  }
}

export function cancelled(message: JsonRpcRequest): JsonRpcResponse {
  return jsonRpcError(message.id, REQUEST_CANCELLED, "Request cancelled");
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
 * The answer to a call that threw. Only a request the server cannot process is a JSON-RPC
 * error: an unknown tool (`-32602`, as the tools spec shows) and a toolset that has shut down
 * (`-32603`). Everything else, invalid arguments included (SEP-1303, 2025-11-25), is an
 * `isError: true` result the model can read; its `_meta` carries the error's JSON shape under
 * `toolwire/error`. A failure whose detail is withheld carries only its type, and goes to
 * `hide` (the handler's `onError`).
 */
export function failureAnswer(
  message: JsonRpcRequest,
  tool: string,
  error: unknown,
  hide: (error: unknown) => void,
): JsonRpcResponse {
  if (!isToolError(error)) {
    hide(error);
    return jsonRpcResult(message.id, errorResult(`Tool ${tool} failed: internal error`));
  }
  const data = error.toJSON();
  switch (data.type) {
    case "unknown_tool":
      return jsonRpcError(message.id, JSON_RPC_ERROR.invalidParams, `Unknown tool: ${data.name}`, {
        type: data.type,
        name: data.name,
      });
    case "closed":
      return jsonRpcError(
        message.id,
        JSON_RPC_ERROR.internalError,
        "The server's toolset has shut down",
        { type: data.type },
      );
    case "invalid_arguments": {
      const lines = data.issues.map((issue) => `- ${issue.path || "/"}: ${issue.message}`);
      const text = [`Invalid arguments for tool ${data.tool}:`, ...lines].join("\n");
      return jsonRpcResult(message.id, errorResult(text, data));
    }
    default:
      if (SHOWN.has(data.type)) return jsonRpcResult(message.id, errorResult(error.message, data));
      hide(error);
      return jsonRpcResult(
        message.id,
        errorResult(`Tool ${tool} failed: internal error (${data.type})`, { type: data.type }),
      );
  }
}

function errorResult(text: string, data?: unknown): McpCallToolResult {
  const result: McpCallToolResult = { content: [{ type: "text", text }], isError: true };
  if (data !== undefined) result._meta = { [TOOL_ERROR_META_KEY]: data };
  return result;
}
