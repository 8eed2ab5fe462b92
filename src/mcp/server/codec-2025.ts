// Revisions 2025-11-25 and 2025-06-18 over Streamable HTTP: a POST carries one message (a
// request gets a JSON or SSE answer, a notification or a response 202), `initialize` opens a
// session in `memory` mode and `Mcp-Session-Id` names it afterwards, DELETE ends one, and a
// tool's question is a server-to-client request on the call's SSE stream. This file reads the
// envelope, builds the request's scope from the session, and leaves the method to the core's
// table (`core.ts`); `handler.ts` has already checked Host, Origin and `authorize`.

import { raceSignal } from "../../abort.ts";
import { ToolError, unreachable } from "../../errors.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import {
  JSON_RPC_ERROR,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  jsonRpcError,
  jsonRpcResult,
  type ParsedJsonRpc,
} from "../json-rpc.ts";
import {
  isSupportedProtocolVersion,
  LOGGING_LEVELS,
  type McpLoggingLevel,
  negotiateProtocolVersion,
} from "../protocol.ts";
import {
  type Caller,
  type Core,
  type Envelope,
  MAX_SUBSCRIPTIONS,
  observed,
  readClientCapabilities,
  type Session,
  serve,
} from "./core.ts";
import {
  type Answer,
  accepts,
  badMessage,
  createSseWriter,
  httpError,
  type IncomingRequest,
  JsonAnswer,
  jsonAnswer,
} from "./http.ts";
import { answerFrom, capabilityFor, clientDeclares, questionFor } from "./questions.ts";

/**
 * Answers a POST of revision 2025-11-25 or 2025-06-18 whose body `readPost` has read: checks the
 * protocol-version header, finds the message's session (bound to the caller), and dispatches it.
 */
export function handlePost(
  core: Core,
  request: IncomingRequest,
  headers: Headers,
  caller: Caller,
  parsed: ParsedJsonRpc,
): Promise<Answer> | Answer {
  const headerVersion = request.headers.get("mcp-protocol-version");
  if (headerVersion !== null && !isSupportedProtocolVersion(headerVersion)) {
    return httpError(
      400,
      `Bad Request: unsupported MCP-Protocol-Version ${headerVersion}`,
      headers,
    );
  }
  if (parsed.type === "parse_error") return badMessage(parsed.error, headers);
  if (parsed.type === "batch") {
    const error = jsonRpcError(
      null,
      JSON_RPC_ERROR.invalidRequest,
      "Invalid Request: batches are not supported",
    );
    return badMessage(error, headers);
  }
  const message = parsed.message;
  if (message.type === "invalid") return badMessage(message.error, headers);
  const initializing = message.type === "request" && message.message.method === "initialize";
  const session =
    initializing || !core.registry.sessions
      ? undefined
      : findSession(core, request, headers, caller.identity);
  if (session instanceof JsonAnswer) return session;
  // The key running calls and questions are filed under: the session, else the caller's
  // identity, so one caller can neither cancel nor answer for another.
  const owner = session ? session.id : caller.identity;
  switch (message.type) {
    case "request":
      return handleRequest(core, request, headers, caller, session, owner, message.message);
    case "notification":
      handleNotification(core, owner, message.message);
      return new Response(null, { status: 202, headers });
    case "response":
      // An answer to a question that already ended, or someone else's, is accepted and dropped.
      core.registry.pending.settle(message.message, owner);
      return new Response(null, { status: 202, headers });
    default:
      return unreachable(message);
  }
}

// Not `async`: a `tools/call` returns its answer's promise as is, without a wrapper.
function handleRequest(
  core: Core,
  request: IncomingRequest,
  headers: Headers,
  caller: Caller,
  session: Session | undefined,
  owner: string | undefined,
  message: JsonRpcRequest,
): Promise<Answer> | Answer {
  switch (message.method) {
    case "initialize":
      return observed(core, request, message, initialize(core, caller, headers, message));
    case "logging/setLevel":
      return observed(core, request, message, setLevel(session, headers, message));
    case "resources/subscribe":
    case "resources/unsubscribe":
      if (core.sources.resources) {
        return observed(core, request, message, subscribe(session, headers, message));
      }
  }
  const method = core.methods[message.method];
  if (!method) {
    const error = jsonRpcError(
      message.id,
      JSON_RPC_ERROR.methodNotFound,
      `Method not found: ${message.method}`,
    );
    return jsonAnswer(error, 200, headers);
  }
  // The revision in use: the `MCP-Protocol-Version` header, else the session's.
  const version = request.headers.get("mcp-protocol-version") ?? session?.protocolVersion;
  // 2025-11-25 streams are resumable in a session (S29); an older client would take the
  // priming event's empty data for a message.
  const streams = core.registry.streams;
  const resumable = streams && session && version === "2025-11-25" ? streams : undefined;
  const envelope: Envelope = {
    request,
    headers,
    message,
    caller,
    owner,
    inSession: session !== undefined,
    capabilities: session?.capabilities,
    // Without a session, or before it sets one, every message is sent.
    logLevel: () => session?.logLevel ?? "all",
    ask: (question, signal, send) => ask(core, session, owner, version, question, signal, send),
    channel: resumable && session ? () => resumable.channel(session.id, headers) : undefined,
  };
  // These revisions serve no tasks: a tool that runs only as one is refused.
  if (core.tasks && message.method === "tools/call") {
    return core.tasks.legacyCall(envelope, () => serve(core, envelope, method));
  }
  return serve(core, envelope, method);
}

/**
 * Asks a tool's question as a server-to-client request on the call's stream and waits for the
 * client's POSTed answer, under `interactionPolicy` and `interactionTimeoutMs` (S11).
 */
async function ask(
  core: Core,
  session: Session | undefined,
  owner: string | undefined,
  version: string | undefined,
  question: ToolInteractionRequest,
  signal: AbortSignal,
  send: (message: JsonRpcMessage) => void,
): Promise<ToolInteractionResponse> {
  const capability = capabilityFor(question.kind);
  const policy = core.options.interactionPolicy;
  if (policy === "reject" || !clientDeclares(session?.capabilities, capability)) {
    const why =
      policy === "reject"
        ? "this MCP server does not forward questions (interactionPolicy `reject`)"
        : `the MCP client did not declare the ${capability} capability`;
    throw new ToolError({
      type: "unsupported",
      operation: `tool \`${question.toolName}\` asked for input, but ${why}`,
    });
  }
  const timeout = AbortSignal.timeout(core.options.interactionTimeoutMs);
  const pending = core.registry.pending.open(owner);
  send(questionFor(question, pending.id, version));
  try {
    return answerFrom(
      question,
      await raceSignal(pending.response, AbortSignal.any([signal, timeout])),
    );
  } catch (error) {
    if (signal.aborted) throw error;
    return { type: "cancel", id: question.id, reason: "the client did not answer in time" };
  } finally {
    pending.withdraw();
  }
}

// A session keeps its level; without one there is nothing to keep it in, and one server-wide
// level would let any client silence every other client's logs.
function setLevel(
  session: Session | undefined,
  headers: Headers,
  message: JsonRpcRequest,
): JsonAnswer {
  const level = message.params?.level;
  if (!(LOGGING_LEVELS as readonly unknown[]).includes(level)) {
    const error = jsonRpcError(
      message.id,
      JSON_RPC_ERROR.invalidParams,
      `level must be one of ${LOGGING_LEVELS.join(", ")}`,
    );
    return jsonAnswer(error, 200, headers);
  }
  if (session) session.logLevel = level as McpLoggingLevel;
  return jsonAnswer(jsonRpcResult(message.id, {}), 200, headers);
}

// `notifications/cancelled` stops the sender's in-flight call; every other notification
// (`notifications/initialized` included) needs nothing and is ignored.
function handleNotification(
  core: Core,
  owner: string | undefined,
  message: JsonRpcNotification,
): void {
  if (message.method !== "notifications/cancelled") return;
  const { requestId, reason } = message.params ?? {};
  if (typeof requestId !== "string" && typeof requestId !== "number") return;
  core.registry.calls.cancel(owner, requestId, typeof reason === "string" ? reason : undefined);
}

function initialize(
  core: Core,
  caller: Caller,
  headers: Headers,
  message: JsonRpcRequest,
): JsonAnswer {
  const params = message.params ?? {};
  if (typeof params.protocolVersion !== "string") {
    const error = jsonRpcError(
      message.id,
      JSON_RPC_ERROR.invalidParams,
      "initialize needs a string `protocolVersion`",
    );
    return jsonAnswer(error, 200, headers);
  }
  const protocolVersion = negotiateProtocolVersion(params.protocolVersion);
  const answerHeaders = new Headers(headers);
  const sessions = core.registry.sessions;
  if (sessions) {
    const capabilities = readClientCapabilities(params.capabilities);
    const session = sessions.create(protocolVersion, capabilities, caller.identity);
    if (!session) return httpError(503, "Too many sessions; try again later", headers);
    answerHeaders.set("mcp-session-id", session.id);
  }
  const { name, version, title, instructions } = core.options;
  const serverInfo: Record<string, unknown> = { name, version };
  if (title !== undefined) serverInfo.title = title;
  const capabilities: Record<string, unknown> = { tools: { listChanged: false }, logging: {} };
  const { sources } = core;
  // Subscriptions need a session's standalone stream to be told of a change; list changes are
  // not announced on 2025.
  if (sources.resources) {
    capabilities.resources = { subscribe: sessions !== undefined, listChanged: false };
  }
  if (sources.prompts) capabilities.prompts = { listChanged: false };
  if (sources.completions) capabilities.completions = {};
  const result: Record<string, unknown> = { protocolVersion, capabilities, serverInfo };
  if (instructions !== undefined) result.instructions = instructions;
  return jsonAnswer(jsonRpcResult(message.id, result), 200, answerHeaders);
}

/**
 * Answers DELETE: ends the caller's session named by `Mcp-Session-Id` and cancels its running
 * calls (204); 405 in stateless mode, 400/404 for a missing/unknown (or someone else's) session.
 */
export const handleDelete = forOwnSession((core, session, _request, headers) => {
  core.registry.endSession(session.id);
  return new Response(null, { status: 204, headers });
});

/**
 * Answers `resources/subscribe` and `resources/unsubscribe`: the session remembers the URIs it
 * subscribed to (at most `MAX_SUBSCRIPTIONS`), and `McpHandler.resourceUpdated` sends
 * `notifications/resources/updated` on its standalone stream. Without a session (stateless
 * mode, whose `initialize` declares `subscribe: false`) there is no stream to send on: the
 * request is acknowledged and nothing is kept.
 */
function subscribe(
  session: Session | undefined,
  headers: Headers,
  message: JsonRpcRequest,
): JsonAnswer {
  const uri = message.params?.uri;
  const reply = (response: JsonRpcResponse) => jsonAnswer(response, 200, headers);
  if (typeof uri !== "string") {
    const why = `${message.method} needs a string \`uri\``;
    return reply(jsonRpcError(message.id, JSON_RPC_ERROR.invalidParams, why));
  }
  const subscriptions = session?.subscriptions;
  if (subscriptions && message.method === "resources/subscribe") {
    if (!subscriptions.has(uri) && subscriptions.size >= MAX_SUBSCRIPTIONS) {
      const why = `Too many subscriptions (the limit is ${MAX_SUBSCRIPTIONS} per session)`;
      return reply(jsonRpcError(message.id, JSON_RPC_ERROR.invalidParams, why));
    }
    subscriptions.add(uri);
  } else subscriptions?.delete(uri);
  return reply(jsonRpcResult(message.id, {}));
}

/** How often an idle standalone stream gets a keep-alive comment, in ms. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Answers GET in `memory` mode. With `Last-Event-ID` it resumes one of the caller's session's
 * response streams (S29), 404 for an id that names none of them. Without it, the session's
 * standalone SSE stream, where `notifications/resources/updated` of its subscriptions go (a new
 * GET replaces the session's earlier stream, which ends; DELETE and expiry end it too). 405 in
 * stateless mode, 400/404 for a missing/unknown session as for POST, then 406 without
 * `text/event-stream` in `Accept`.
 */
export const handleGet = forOwnSession((core, found, request, headers) => {
  if (!accepts(request.headers.get("accept"), "text/event-stream")) {
    return httpError(406, "Not Acceptable: Accept must list text/event-stream", headers);
  }
  const lastEventId = request.headers.get("last-event-id");
  if (lastEventId !== null) {
    return (
      core.registry.streams?.resume(lastEventId, found.id, headers) ??
      httpError(404, "Not Found: no stream of this session has that Last-Event-ID", headers)
    );
  }
  found.stream?.close();
  // The timer ends at the first tick after the stream closed, whoever closed it.
  const timer = setInterval(() => {
    if (writer.open) writer.comment("keep-alive");
    else clearInterval(timer);
  }, KEEP_ALIVE_MS);
  (timer as { unref?: () => void }).unref?.();
  const writer = createSseWriter(undefined, () => {
    clearInterval(timer);
    if (found.stream === writer) found.stream = undefined;
  });
  found.stream = writer;
  const sseHeaders = new Headers(headers);
  sseHeaders.set("content-type", "text/event-stream");
  sseHeaders.set("cache-control", "no-cache, no-transform");
  return new Response(writer.body, { status: 200, headers: sseHeaders });
});

/** A 405 answer whose `Allow` header lists the methods the endpoint does accept. */
export function methodNotAllowed(headers: Headers, allow: string): JsonAnswer {
  const merged = new Headers(headers);
  merged.set("allow", allow);
  return httpError(405, "Method Not Allowed", merged);
}

// A GET or DELETE answered for the caller's session it names: 405 when the handler keeps none
// (stateless), else 400/404 as `findSession` answers, else what `answer` makes of the session.
function forOwnSession(
  answer: (core: Core, session: Session, request: IncomingRequest, headers: Headers) => Answer,
): (
  core: Core,
  request: IncomingRequest,
  headers: Headers,
  identity: string | undefined,
) => Answer {
  return (core, request, headers, identity) => {
    if (!core.registry.sessions) return methodNotAllowed(headers, "POST, OPTIONS");
    const found = findSession(core, request, headers, identity);
    return found instanceof JsonAnswer ? found : answer(core, found, request, headers);
  };
}

// Another identity's session answers exactly like an unknown one, so a session id learnt from
// elsewhere tells its holder nothing.
function findSession(
  core: Core,
  request: IncomingRequest,
  headers: Headers,
  identity: string | undefined,
): Session | JsonAnswer {
  const id = request.headers.get("mcp-session-id");
  if (id === null) return httpError(400, "Bad Request: Mcp-Session-Id header is required", headers);
  const session = core.registry.sessions?.get(id);
  if (!session || session.identity !== identity) {
    return httpError(404, "Session not found", headers);
  }
  return session;
}
