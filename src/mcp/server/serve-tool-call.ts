import { isToolError, ToolError } from "../../errors.ts";
import type { ToolLog, ToolProgress } from "../../execution/handler-io.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import {
  JSON_RPC_ERROR,
  type JsonRpcRequest,
  jsonRpcError,
  jsonRpcNotification,
  jsonRpcResult,
} from "../json-rpc.ts";
import { LOGGING_LEVELS, type McpLoggingLevel, toMcpCallToolResult } from "../protocol.ts";
import { answerFrom, capabilityFor, clientDeclares, questionFor } from "./forward-interaction.ts";
import { jsonResponse } from "./json-response.ts";
import { createResponseChannel, type ResponseChannel } from "./response-channel.ts";
import type { RequestScope, ServerState } from "./server-state.ts";
import { type ToolErrorOutcome, thrownOutcome, toolErrorOutcome } from "./tool-error-outcome.ts";

/** The error code answering a request the client cancelled (LSP's `RequestCancelled`). */
export const REQUEST_CANCELLED = -32800;

/**
 * Answers a `tools/call`: as plain JSON when the tool just completes, as an SSE stream once it
 * reports progress (and the request carried `_meta.progressToken`) or asks a question that
 * becomes an elicitation (text, form) or a `sampling/createMessage` request (sampling). The
 * tool's `ctx.log` messages at or above the level the client set with `logging/setLevel` (all
 * of them before it sets one) go out as `notifications/message` on the same stream.
 * `notifications/cancelled` for the request aborts the tool's `ctx.signal`, and the stream then
 * ends without a response, as the cancellation spec asks.
 *
 * @param state The server.
 * @param scope The POST's session and headers.
 * @param message The request.
 * @returns The HTTP response.
 */
export function serveToolCall(
  state: ServerState,
  scope: RequestScope,
  message: JsonRpcRequest,
): Promise<Response> {
  const params = message.params ?? {};
  const { name, arguments: args = {} } = params;
  const invalid = (why: string) =>
    Promise.resolve(
      jsonResponse(jsonRpcError(message.id, JSON_RPC_ERROR.invalidParams, why), 200, scope.headers),
    );
  if (typeof name !== "string") return invalid("tools/call needs a string `name`");
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return invalid("tools/call `arguments` must be an object");
  }
  const channel = createResponseChannel(scope.headers);
  const controller = new AbortController();
  const owner = scope.session?.id;
  const unregister = state.inFlight.add(owner, message.id, controller);
  const run = async () => {
    try {
      const onProgress = progressSender(channel, params._meta);
      const result = await state.toolset.call(name, args, {
        signal: controller.signal,
        ...(onProgress ? { onProgress } : {}),
        onLog: logSender(state, scope, channel),
        onInteraction: (request) => ask(state, scope, channel, controller.signal, request),
      });
      channel.finish(jsonRpcResult(message.id, toMcpCallToolResult(result)), cancelled(message));
    } catch (error) {
      if (controller.signal.aborted) return channel.finish(undefined, cancelled(message));
      const outcome = isToolError(error) ? toolErrorOutcome(error) : thrownOutcome(error);
      const answer = answerOf(message, outcome);
      channel.finish(answer, answer);
    } finally {
      unregister();
    }
  };
  void run();
  return channel.response;
}

function progressSender(
  channel: ResponseChannel,
  meta: unknown,
): ((progress: ToolProgress) => void) | undefined {
  const token = (meta as { progressToken?: unknown } | undefined)?.progressToken;
  if (typeof token !== "string" && typeof token !== "number") return undefined;
  let last = Number.NEGATIVE_INFINITY;
  return (update) => {
    const progress = Number(update?.progress);
    // Hint: the spec requires progress to increase; a repeat or a step back is dropped.
    if (!Number.isFinite(progress) || progress <= last) return;
    last = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (typeof update.total === "number") params.total = update.total;
    if (typeof update.message === "string") params.message = update.message;
    channel.send(jsonRpcNotification("notifications/progress", params));
  };
}

function logSender(
  state: ServerState,
  scope: RequestScope,
  channel: ResponseChannel,
): (log: ToolLog) => void {
  return ({ level, data, logger }) => {
    const severity = LOGGING_LEVELS.indexOf(level as McpLoggingLevel);
    if (severity < 0) return;
    // Hint: read the level per message, so a `logging/setLevel` during the call applies at once.
    const threshold = scope.session ? scope.session.logLevel : state.logLevel;
    if (threshold !== undefined && severity < LOGGING_LEVELS.indexOf(threshold)) return;
    const params: Record<string, unknown> = { level, data };
    if (typeof logger === "string") params.logger = logger;
    channel.send(jsonRpcNotification("notifications/message", params));
  };
}

async function ask(
  state: ServerState,
  scope: RequestScope,
  channel: ResponseChannel,
  signal: AbortSignal,
  request: ToolInteractionRequest,
): Promise<ToolInteractionResponse> {
  const capability = capabilityFor(request.kind);
  if (state.options.interactionPolicy === "reject" || !clientDeclares(scope.session, capability)) {
    const why =
      state.options.interactionPolicy === "reject"
        ? "this MCP server does not forward questions (interactionPolicy `reject`)"
        : `the MCP client did not declare the ${capability} capability`;
    throw new ToolError({
      type: "unsupported",
      operation: `tool \`${request.toolName}\` asked for input, but ${why}`,
    });
  }
  const timeout = AbortSignal.timeout(state.options.interactionTimeoutMs);
  const pending = state.pending.open(scope.session?.id, {
    signal: AbortSignal.any([signal, timeout]),
  });
  channel.send(questionFor(request, pending.id, scope.protocolVersion));
  try {
    return answerFrom(request, await pending.response);
  } catch (error) {
    if (signal.aborted) throw error;
    return { type: "cancel", id: request.id, reason: "the client did not answer in time" };
  }
}

function answerOf(message: JsonRpcRequest, outcome: ToolErrorOutcome) {
  return outcome.type === "result"
    ? jsonRpcResult(message.id, outcome.result)
    : jsonRpcError(message.id, outcome.code, outcome.message, outcome.data);
}

function cancelled(message: JsonRpcRequest) {
  return jsonRpcError(message.id, REQUEST_CANCELLED, "Request cancelled");
}
