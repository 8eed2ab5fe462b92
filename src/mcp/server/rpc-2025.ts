// The JSON-RPC exchange of revisions 2025-11-25 and 2025-06-18 over Streamable HTTP: a POST
// carries one message (a request gets a JSON or SSE answer, a notification or a response 202),
// `Mcp-Session-Id` names a session in `memory` mode, DELETE ends one. `handler.ts` has already
// checked Host, Origin and `authorize`; `tool-call.ts` runs a `tools/call`. A later protocol era
// gets a sibling of this file, chosen per request by `handler.ts`.

import { byName } from "../../declaration/tool-name.ts";
import { unreachable } from "../../errors.ts";
import {
  JSON_RPC_ERROR,
  type JsonRpcFailure,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  jsonRpcError,
  jsonRpcResult,
  nestsDeeperThan,
  type ParsedJsonRpc,
  parseJsonRpc,
} from "../json-rpc.ts";
import {
  isSupportedProtocolVersion,
  LOGGING_LEVELS,
  type McpLoggingLevel,
  type McpTool,
  negotiateProtocolVersion,
  toMcpTool,
} from "../protocol.ts";
import {
  type Answer,
  accepts,
  createResponseChannel,
  createSseWriter,
  httpError,
  type IncomingRequest,
  JsonAnswer,
  jsonAnswer,
  readBody,
} from "./http.ts";
import type { MethodOutcome } from "./method-scope.ts";
import { type SourceMethod, sourceMethod } from "./source-methods.ts";
import {
  MAX_SUBSCRIPTIONS,
  type RequestScope,
  readClientCapabilities,
  type ServerState,
  type Session,
} from "./state.ts";
import { ask, serveToolCall } from "./tool-call.ts";

/** Who `authorize` let in: the tool's `ctx.auth` and the identity key it is compared by. */
export interface Caller {
  readonly auth: unknown;
  readonly identity: string | undefined;
}

/**
 * Answers a POST of revision 2025-11-25 or 2025-06-18 whose body `readPost` has read: checks the
 * protocol-version header, finds the message's session (bound to the caller), and dispatches it.
 */
export function handlePost(
  state: ServerState,
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
    initializing || !state.sessions ? undefined : findSession(state, request, headers, caller);
  if (found instanceof JsonAnswer) return found;
  const scope: RequestScope = {
    session: found,
    protocolVersion: headerVersion ?? found?.protocolVersion,
    headers,
    auth: caller.auth,
    identity: caller.identity,
    request: () => request.toRequest(),
    onAbort: (listener) => request.onAbort(listener),
  };
  switch (message.type) {
    case "request":
      return handleRequest(state, scope, message.message);
    case "notification":
      handleNotification(state, scope, message.message);
      return new Response(null, { status: 202, headers });
    case "response":
      // An answer to a question that already ended, or someone else's, is accepted and dropped.
      state.pending.settle(message.message, ownerOf(scope));
      return new Response(null, { status: 202, headers });
    default:
      return unreachable(message);
  }
}

/**
 * Reads a POST's body as one JSON-RPC message, whichever revision it is: checks the media types,
 * the body size and its nesting, and parses it. Returns the parsed body, or the answer to a POST
 * that is not one (415, 406, 413, a parse error, 400 for nesting deeper than `maxJsonDepth`).
 */
export async function readPost(
  request: IncomingRequest,
  headers: Headers,
  limits: { maxBodyBytes: number; maxJsonDepth: number },
): Promise<ParsedJsonRpc | JsonAnswer> {
  const { maxBodyBytes, maxJsonDepth } = limits;
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
  const body = await readBody(request, maxBodyBytes);
  switch (body.type) {
    case "too_large":
      return httpError(413, `Payload Too Large: the limit is ${maxBodyBytes} bytes`, headers);
    case "not_utf8":
      return failure(
        jsonRpcError(null, JSON_RPC_ERROR.parseError, "Parse error: the body is not UTF-8"),
        headers,
      );
    case "failed":
      return httpError(400, "Bad Request: the body could not be read", headers);
    case "text": {
      const parsed = parseJsonRpc(body.text);
      if (parsed.type !== "parse_error" && nestsDeeperThan(body.text, maxJsonDepth)) {
        return tooDeep(parsed, maxJsonDepth, headers);
      }
      return parsed;
    }
    default:
      return unreachable(body);
  }
}

// A message nested deeper than the limit is refused before anything walks it, with its own id
// when it has one (the id is read at the top level, so reading it is safe).
function tooDeep(parsed: ParsedJsonRpc, max: number, headers: Headers): JsonAnswer {
  const why = `nested deeper than ${max} levels (maxJsonDepth)`;
  const message = parsed.type === "single" ? parsed.message : undefined;
  switch (message?.type) {
    case "request":
      return failure(
        jsonRpcError(message.message.id, JSON_RPC_ERROR.invalidParams, `Invalid params: ${why}`),
        headers,
      );
    case "response":
    case "invalid": {
      const id = message.type === "response" ? message.message.id : message.error.id;
      return failure(
        jsonRpcError(id, JSON_RPC_ERROR.invalidRequest, `Invalid Request: ${why}`),
        headers,
      );
    }
    default:
      return failure(
        jsonRpcError(null, JSON_RPC_ERROR.invalidRequest, `Invalid Request: ${why}`),
        headers,
      );
  }
}

/**
 * The key running calls and questions are filed under: the session in `memory` mode, else the
 * caller's identity, so one caller can neither cancel nor answer for another.
 */
export function ownerOf(scope: RequestScope): string | undefined {
  return scope.session ? scope.session.id : scope.identity;
}

/**
 * Answers DELETE: ends the caller's session named by `Mcp-Session-Id` and cancels its running
 * calls (204); 405 in stateless mode, 400/404 for a missing/unknown (or someone else's) session.
 */
export function handleDelete(
  state: ServerState,
  request: IncomingRequest,
  headers: Headers,
  identity: string | undefined,
): Answer {
  if (!state.sessions) return methodNotAllowed(headers, "POST, OPTIONS");
  const found = findSession(state, request, headers, { auth: undefined, identity });
  if (found instanceof JsonAnswer) return found;
  state.sessions.delete(found.id);
  state.inFlight.cancelAll(found.id);
  return new Response(null, { status: 204, headers });
}

/** How often an idle standalone stream gets a keep-alive comment, in ms. */
const KEEP_ALIVE_MS = 15_000;

/**
 * Answers GET in `memory` mode: the session's standalone SSE stream, where
 * `notifications/resources/updated` of its subscriptions go (a new GET replaces the session's
 * earlier stream, which ends). 406 without `text/event-stream` in `Accept`, 400/404 for a
 * missing/unknown session as for POST; 405 in stateless mode.
 */
export function handleGet(
  state: ServerState,
  request: IncomingRequest,
  headers: Headers,
  identity: string | undefined,
): Answer {
  if (!state.sessions) return methodNotAllowed(headers, "POST, OPTIONS");
  if (!accepts(request.headers.get("accept"), "text/event-stream")) {
    return httpError(406, "Not Acceptable: Accept must list text/event-stream", headers);
  }
  const found = findSession(state, request, headers, { auth: undefined, identity });
  if (found instanceof JsonAnswer) return found;
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
}

/** A 405 answer whose `Allow` header lists the methods the endpoint does accept. */
export function methodNotAllowed(headers: Headers, allow: string): JsonAnswer {
  const merged = new Headers(headers);
  merged.set("allow", allow);
  return httpError(405, "Method Not Allowed", merged);
}

// Another identity's session answers exactly like an unknown one, so a session id learnt from
// elsewhere tells its holder nothing.
function findSession(
  state: ServerState,
  request: IncomingRequest,
  headers: Headers,
  caller: Caller,
): Session | JsonAnswer {
  const id = request.headers.get("mcp-session-id");
  if (id === null) return httpError(400, "Bad Request: Mcp-Session-Id header is required", headers);
  const session = state.sessions?.get(id);
  if (!session || session.identity !== caller.identity) {
    return httpError(404, "Session not found", headers);
  }
  return session;
}

// Clients send the same Accept header every time; it is parsed once per distinct value.
let lastAccept: string | null = null;
let lastVerdict = false;
function acceptsBoth(accept: string | null): boolean {
  if (accept !== lastAccept) {
    lastVerdict = accepts(accept, "application/json") && accepts(accept, "text/event-stream");
    lastAccept = accept;
  }
  return lastVerdict;
}

function failure(error: JsonRpcFailure, headers: Headers): JsonAnswer {
  return jsonAnswer(error, 400, headers);
}

// Not `async`: a `tools/call` returns its channel's promise as is, without a wrapper.
function handleRequest(
  state: ServerState,
  scope: RequestScope,
  message: JsonRpcRequest,
): Promise<Answer> | Answer {
  const params = message.params ?? {};
  const answer = (result: Record<string, unknown>) =>
    jsonAnswer(jsonRpcResult(message.id, result), 200, scope.headers);
  const fail = (code: number, why: string) =>
    jsonAnswer(jsonRpcError(message.id, code, why), 200, scope.headers);
  switch (message.method) {
    case "initialize":
      return initialize(state, scope, message);
    case "ping":
      return answer({});
    case "tools/list":
      return listToolsPage(state, params.cursor).then((page) =>
        page ? answer(page) : fail(JSON_RPC_ERROR.invalidParams, "Invalid cursor"),
      );
    case "tools/call":
      return serveToolCall(state, scope, message, ownerOf(scope));
    case "resources/subscribe":
    case "resources/unsubscribe":
      if (!state.sources.resources) break;
      return subscribe(scope, message);
    case "logging/setLevel": {
      const level = params.level;
      if (!(LOGGING_LEVELS as readonly unknown[]).includes(level)) {
        return fail(
          JSON_RPC_ERROR.invalidParams,
          `level must be one of ${LOGGING_LEVELS.join(", ")}`,
        );
      }
      // A session keeps its level; without one there is nothing to keep it in, and one
      // server-wide level would let any client silence every other client's logs.
      if (scope.session) scope.session.logLevel = level as McpLoggingLevel;
      return answer({});
    }
  }
  const method = sourceMethod(message.method, state.sources);
  if (method) return serveMethod(state, scope, message, method);
  return fail(JSON_RPC_ERROR.methodNotFound, `Method not found: ${message.method}`);
}

/**
 * Answers a resources, prompts or completion request of the 2025 revisions: the method's
 * outcome as is, a missing resource as `-32002` with `data.uri` (the code of these revisions).
 * A prompt or read that asks a question sends it on the request's stream as a tool does
 * (`ask`), so the answer turns into an SSE stream then. A request without an owner (an
 * anonymous caller without a session) is cancelled when its client goes away.
 */
function serveMethod(
  state: ServerState,
  scope: RequestScope,
  message: JsonRpcRequest,
  method: SourceMethod,
): Promise<Answer> {
  const owner = ownerOf(scope);
  const controller = new AbortController();
  const disconnect =
    owner === undefined ? () => controller.abort("the client closed the request") : undefined;
  const channel = createResponseChannel(scope.headers, disconnect);
  const stopListening = disconnect ? scope.onAbort(disconnect) : undefined;
  const run = async () => {
    try {
      const outcome = await method(
        {
          sources: state.sources,
          auth: scope.auth,
          signal: controller.signal,
          pageSize: state.options.pageSize,
          ask: (request, signal) => ask(state, scope, owner, channel, signal, request),
          report: (error) => state.report(error, "tool", scope.request),
        },
        message.params ?? {},
      );
      const response = responseOf(message, outcome);
      channel.finish(response, response);
    } finally {
      stopListening?.();
    }
  };
  run().catch((error: unknown) => {
    state.report(error, "request", scope.request);
    const failure = jsonRpcError(message.id, JSON_RPC_ERROR.internalError, "Internal error");
    channel.finish(failure, failure);
  });
  return channel.response;
}

/** The 2025 error code of a resource no resource has ("Resource not found"). */
const RESOURCE_NOT_FOUND = -32002;

function responseOf(message: JsonRpcRequest, outcome: MethodOutcome): JsonRpcResponse {
  switch (outcome.type) {
    case "result":
      return jsonRpcResult(message.id, outcome.result);
    case "error":
      return jsonRpcError(message.id, outcome.code, outcome.message, outcome.data);
    case "resource_not_found":
      return jsonRpcError(message.id, RESOURCE_NOT_FOUND, "Resource not found", {
        uri: outcome.uri,
      });
    default:
      return unreachable(outcome);
  }
}

/**
 * Answers `resources/subscribe` and `resources/unsubscribe`: the session remembers the URIs it
 * subscribed to (at most `MAX_SUBSCRIPTIONS`), and `McpHandler.resourceUpdated` sends
 * `notifications/resources/updated` on its standalone stream. Without a session (stateless
 * mode, whose `initialize` declares `subscribe: false`) there is no stream to send on: the
 * request is acknowledged and nothing is kept.
 */
function subscribe(scope: RequestScope, message: JsonRpcRequest): JsonAnswer {
  const uri = message.params?.uri;
  const reply = (response: JsonRpcResponse) => jsonAnswer(response, 200, scope.headers);
  if (typeof uri !== "string") {
    return reply(
      jsonRpcError(
        message.id,
        JSON_RPC_ERROR.invalidParams,
        `${message.method} needs a string \`uri\``,
      ),
    );
  }
  const subscriptions = scope.session?.subscriptions;
  if (subscriptions && message.method === "resources/subscribe") {
    if (!subscriptions.has(uri) && subscriptions.size >= MAX_SUBSCRIPTIONS) {
      return reply(
        jsonRpcError(
          message.id,
          JSON_RPC_ERROR.invalidParams,
          `Too many subscriptions (the limit is ${MAX_SUBSCRIPTIONS} per session)`,
        ),
      );
    }
    subscriptions.add(uri);
  } else subscriptions?.delete(uri);
  return reply(jsonRpcResult(message.id, {}));
}

// `notifications/cancelled` stops the sender's in-flight call; every other notification
// (`notifications/initialized` included) needs nothing and is ignored.
function handleNotification(
  state: ServerState,
  scope: RequestScope,
  message: JsonRpcNotification,
): void {
  if (message.method !== "notifications/cancelled") return;
  const { requestId, reason } = message.params ?? {};
  if (typeof requestId !== "string" && typeof requestId !== "number") return;
  state.inFlight.cancel(ownerOf(scope), requestId, typeof reason === "string" ? reason : undefined);
}

function initialize(state: ServerState, scope: RequestScope, message: JsonRpcRequest): JsonAnswer {
  const params = message.params ?? {};
  if (typeof params.protocolVersion !== "string") {
    const error = jsonRpcError(
      message.id,
      JSON_RPC_ERROR.invalidParams,
      "initialize needs a string `protocolVersion`",
    );
    return jsonAnswer(error, 200, scope.headers);
  }
  const protocolVersion = negotiateProtocolVersion(params.protocolVersion);
  const headers = new Headers(scope.headers);
  if (state.sessions) {
    const capabilities = readClientCapabilities(params.capabilities);
    const session = state.sessions.create(protocolVersion, capabilities, scope.identity);
    if (!session) return httpError(503, "Too many sessions; try again later", scope.headers);
    headers.set("mcp-session-id", session.id);
  }
  const { name, version, title, instructions } = state.options;
  const serverInfo: Record<string, unknown> = { name, version };
  if (title !== undefined) serverInfo.title = title;
  const capabilities: Record<string, unknown> = { tools: { listChanged: false }, logging: {} };
  const { sources } = state;
  // Subscriptions need a session's standalone stream to be told of a change; list changes are
  // not announced on 2025.
  if (sources.resources) {
    capabilities.resources = { subscribe: state.sessions !== undefined, listChanged: false };
  }
  if (sources.prompts) capabilities.prompts = { listChanged: false };
  if (sources.completions) capabilities.completions = {};
  const result: Record<string, unknown> = { protocolVersion, capabilities, serverInfo };
  if (instructions !== undefined) result.instructions = instructions;
  return jsonAnswer(jsonRpcResult(message.id, result), 200, headers);
}

const CURSOR_PREFIX = "toolwire:after:";

// One `tools/list` page, or `undefined` for a cursor this server did not issue. The cursor names
// the last tool already listed (`listTools` is sorted by name), so a page never repeats or skips
// a tool that survived a change to the list in between.
// The toolset is listed afresh, and the declarations kept (`ServerState.declarations`).
export async function listToolsPage(
  state: ServerState,
  cursor: unknown,
): Promise<{ tools: McpTool[]; nextCursor?: string } | undefined> {
  const pageSize = state.options.pageSize;
  let after: string | undefined;
  if (cursor !== undefined) {
    after = decodeCursor(cursor);
    if (after === undefined) return undefined;
  }
  const all = await state.declarations.list();
  const rest =
    after === undefined ? all : all.filter((tool) => byName(tool, { name: after as string }) > 0);
  const page = rest.slice(0, pageSize);
  const last = page.at(-1);
  if (rest.length <= pageSize || !last) return { tools: page.map(toMcpTool) };
  return {
    tools: page.map(toMcpTool),
    nextCursor: btoa(CURSOR_PREFIX + encodeURIComponent(last.name)),
  };
}

function decodeCursor(cursor: unknown): string | undefined {
  if (typeof cursor !== "string") return undefined;
  try {
    const text = atob(cursor);
    return text.startsWith(CURSOR_PREFIX)
      ? decodeURIComponent(text.slice(CURSOR_PREFIX.length))
      : undefined;
  } catch {
    return undefined;
  }
}
