import { unreachable } from "../../errors.ts";
import { JSON_RPC_ERROR, type JsonRpcFailure, jsonRpcError, parseJsonRpc } from "../json-rpc.ts";
import { isSupportedProtocolVersion } from "../protocol.ts";
import { accepts } from "./accepts.ts";
import { handleNotification, handleRequest } from "./handle-request.ts";
import type { IncomingRequest } from "./incoming-request.ts";
import { httpError, jsonResponse } from "./json-response.ts";
import type { AuthInfo } from "./mcp-handler-options.ts";
import { readBody } from "./read-body.ts";
import type { RequestScope, ServerState } from "./server-state.ts";
import type { Session, SessionStore } from "./sessions.ts";

/**
 * Answers a POST to the endpoint: checks media types, the protocol-version header and the
 * body size, parses one JSON-RPC message, finds its session, and dispatches it. A request gets
 * a JSON-RPC response (JSON or SSE); a notification or a response gets 202.
 *
 * Batches (JSON arrays) are refused with `-32600`: revision 2025-06-18 removed them and
 * 2025-11-25 did not bring them back.
 *
 * @param state The server.
 * @param request The HTTP request.
 * @param headers CORS headers for every answer.
 * @param authInfo What `authorize` returned.
 * @returns The HTTP response.
 */
export async function handlePost(
  state: ServerState,
  request: IncomingRequest,
  headers: Headers,
  authInfo: AuthInfo | undefined,
): Promise<Response> {
  const contentType = request.headers.get("content-type") ?? "";
  if (contentType.split(";")[0]?.trim().toLowerCase() !== "application/json") {
    return httpError(415, "Unsupported Media Type: Content-Type must be application/json", headers);
  }
  if (!acceptsBoth(request.headers.get("accept"))) {
    return httpError(
      406,
      "Not Acceptable: Accept must list application/json and text/event-stream",
      headers,
    );
  }
  const headerVersion = request.headers.get("mcp-protocol-version");
  if (headerVersion !== null && !isSupportedProtocolVersion(headerVersion)) {
    return httpError(
      400,
      `Bad Request: unsupported MCP-Protocol-Version ${headerVersion}`,
      headers,
    );
  }
  const body = await readBody(request, state.options.maxBodyBytes);
  switch (body.type) {
    case "too_large":
      return httpError(
        413,
        `Payload Too Large: the limit is ${state.options.maxBodyBytes} bytes`,
        headers,
      );
    case "not_utf8":
      return failure(
        jsonRpcError(null, JSON_RPC_ERROR.parseError, "Parse error: the body is not UTF-8"),
        headers,
      );
    case "failed":
      return httpError(400, "Bad Request: the body could not be read", headers);
    case "text":
      break;
    default:
      return unreachable(body);
  }
  const parsed = parseJsonRpc(body.text);
  if (parsed.type === "parse_error") return failure(parsed.error, headers);
  if (parsed.type === "batch") {
    const error = jsonRpcError(
      null,
      JSON_RPC_ERROR.invalidRequest,
      "Invalid Request: batches are not supported",
    );
    return failure(error, headers);
  }
  const message = parsed.message;
  if (message.type === "invalid") return failure(message.error, headers);
  const initializing = message.type === "request" && message.message.method === "initialize";
  const found =
    initializing || !state.sessions ? undefined : findSession(state.sessions, request, headers);
  if (found instanceof Response) return found;
  const scope: RequestScope = {
    session: found,
    protocolVersion: headerVersion ?? found?.protocolVersion,
    headers,
    authInfo,
  };
  switch (message.type) {
    case "request":
      return handleRequest(state, scope, message.message);
    case "notification":
      handleNotification(state, scope, message.message);
      return new Response(null, { status: 202, headers });
    case "response":
      // Hint: an answer to an elicitation that already ended is accepted and dropped.
      state.pending.settle(message.message, found?.id);
      return new Response(null, { status: 202, headers });
    default:
      return unreachable(message);
  }
}

/**
 * Handles DELETE: ends the session named by `Mcp-Session-Id` and cancels its running calls.
 *
 * @param state The server.
 * @param request The HTTP request.
 * @param headers CORS headers.
 * @returns 204, or 405 in stateless mode, 400/404 for a missing/unknown session.
 */
export function handleDelete(
  state: ServerState,
  request: IncomingRequest,
  headers: Headers,
): Response {
  if (!state.sessions) return methodNotAllowed(headers, "POST, OPTIONS");
  const found = findSession(state.sessions, request, headers);
  if (found instanceof Response) return found;
  state.sessions.delete(found.id);
  state.inFlight.cancelAll(found.id);
  return new Response(null, { status: 204, headers });
}

/**
 * Creates a 405 answer with its `Allow` header.
 *
 * @param headers CORS headers.
 * @param allow The methods the endpoint does accept.
 * @returns The response.
 */
export function methodNotAllowed(headers: Headers, allow: string): Response {
  const merged = new Headers(headers);
  merged.set("allow", allow);
  return httpError(405, "Method Not Allowed", merged);
}

function findSession(
  sessions: SessionStore,
  request: IncomingRequest,
  headers: Headers,
): Session | Response {
  const id = request.headers.get("mcp-session-id");
  if (id === null) return httpError(400, "Bad Request: Mcp-Session-Id header is required", headers);
  const session = sessions.get(id);
  return session ?? httpError(404, "Session not found", headers);
}

// Hint: clients send the same Accept header every time; it is parsed once per distinct value.
let lastAccept: string | null = null;
let lastVerdict = false;
function acceptsBoth(accept: string | null): boolean {
  if (accept !== lastAccept) {
    lastVerdict = accepts(accept, "application/json") && accepts(accept, "text/event-stream");
    lastAccept = accept;
  }
  return lastVerdict;
}

function failure(error: JsonRpcFailure, headers: Headers): Response {
  return jsonResponse(error, 400, headers);
}
