import { isJsonObject } from "../../schema/is-json-object.ts";
import {
  JSON_RPC_ERROR,
  type JsonRpcNotification,
  type JsonRpcRequest,
  jsonRpcError,
  jsonRpcResult,
} from "../json-rpc.ts";
import { LOGGING_LEVELS, type McpLoggingLevel, negotiateProtocolVersion } from "../protocol.ts";
import { httpError, jsonResponse } from "./json-response.ts";
import { listToolsPage } from "./list-tools-page.ts";
import { serveToolCall } from "./serve-tool-call.ts";
import type { RequestScope, ServerState } from "./server-state.ts";

/**
 * Answers one JSON-RPC request: `initialize`, `ping`, `tools/list`, `tools/call`,
 * `logging/setLevel`; any other method gets `-32601`.
 *
 * @param state The server.
 * @param scope The POST's session and headers.
 * @param message The request.
 * @returns The HTTP response.
 */
export async function handleRequest(
  state: ServerState,
  scope: RequestScope,
  message: JsonRpcRequest,
): Promise<Response> {
  const params = message.params ?? {};
  const answer = (result: Record<string, unknown>) =>
    jsonResponse(jsonRpcResult(message.id, result), 200, scope.headers);
  const fail = (code: number, why: string) =>
    jsonResponse(jsonRpcError(message.id, code, why), 200, scope.headers);
  switch (message.method) {
    case "initialize":
      return initialize(state, scope, message);
    case "ping":
      return answer({});
    case "tools/list": {
      const page = await listToolsPage(state.toolset, params.cursor, state.options.pageSize);
      if (page.type === "invalid_cursor") {
        return fail(JSON_RPC_ERROR.invalidParams, "Invalid cursor");
      }
      const { type: _, ...result } = page;
      return answer(result);
    }
    case "tools/call":
      return serveToolCall(state, scope, message);
    case "logging/setLevel": {
      const level = params.level;
      if (!(LOGGING_LEVELS as readonly unknown[]).includes(level)) {
        return fail(
          JSON_RPC_ERROR.invalidParams,
          `level must be one of ${LOGGING_LEVELS.join(", ")}`,
        );
      }
      if (scope.session) scope.session.logLevel = level as McpLoggingLevel;
      else state.logLevel = level as McpLoggingLevel;
      return answer({});
    }
    default:
      return fail(JSON_RPC_ERROR.methodNotFound, `Method not found: ${message.method}`);
  }
}

/**
 * Handles one notification: `notifications/cancelled` stops the named in-flight call; every
 * other notification (`notifications/initialized` included) needs nothing and is ignored.
 *
 * @param state The server.
 * @param scope The POST's session.
 * @param message The notification.
 */
export function handleNotification(
  state: ServerState,
  scope: RequestScope,
  message: JsonRpcNotification,
): void {
  if (message.method !== "notifications/cancelled") return;
  const { requestId, reason } = message.params ?? {};
  if (typeof requestId !== "string" && typeof requestId !== "number") return;
  state.inFlight.cancel(
    scope.session?.id,
    requestId,
    typeof reason === "string" ? reason : undefined,
  );
}

function initialize(state: ServerState, scope: RequestScope, message: JsonRpcRequest): Response {
  const params = message.params ?? {};
  if (typeof params.protocolVersion !== "string") {
    const error = jsonRpcError(
      message.id,
      JSON_RPC_ERROR.invalidParams,
      "initialize needs a string `protocolVersion`",
    );
    return jsonResponse(error, 200, scope.headers);
  }
  const capabilities = params.capabilities;
  const clientCapabilities = isJsonObject(capabilities) ? capabilities : {};
  const protocolVersion = negotiateProtocolVersion(params.protocolVersion);
  const headers = new Headers(scope.headers);
  if (state.sessions) {
    const session = state.sessions.create(protocolVersion, clientCapabilities);
    if (!session) return httpError(503, "Too many sessions; try again later", scope.headers);
    headers.set("mcp-session-id", session.id);
  }
  const { name, version, title, instructions } = state.options;
  const serverInfo: Record<string, unknown> = { name, version };
  if (title !== undefined) serverInfo.title = title;
  const result: Record<string, unknown> = {
    protocolVersion,
    capabilities: { tools: { listChanged: false }, logging: {} },
    serverInfo,
  };
  if (instructions !== undefined) result.instructions = instructions;
  return jsonResponse(jsonRpcResult(message.id, result), 200, headers);
}
