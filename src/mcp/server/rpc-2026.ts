// The stateless exchange of revision 2026-07-28 over Streamable HTTP: every request carries its
// revision and the client's capabilities in `params._meta`, repeats the revision, the method and
// the name in headers, and is answered on its own (no `initialize`, no session, no GET stream).
// `handler.ts` picks this exchange per POST (`claimsModern`); `mrtr.ts` turns a tool's questions
// into `input_required`. See `docs/design.md`, "Serving MCP", "2026-07-28".

import { errorText, unreachable } from "../../errors.ts";
import { createCallJournal } from "../../execution/call-journal.ts";
import type { ToolLog } from "../../execution/handler-io.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { CallOptions } from "../../toolset/toolset.ts";
import {
  type ClassifiedMessage,
  JSON_RPC_ERROR,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResponse,
  jsonRpcError,
  jsonRpcNotification,
  jsonRpcResult,
} from "../json-rpc.ts";
import {
  LOGGING_LEVELS,
  MCP_ERROR,
  type McpLoggingLevel,
  META,
  MODERN_PROTOCOL_VERSIONS,
  toMcpCallToolResult,
} from "../protocol.ts";
import {
  type Answer,
  createResponseChannel,
  createSseWriter,
  type HeaderLookup,
  type IncomingRequest,
  jsonAnswer,
  type ResponseChannel,
} from "./http.ts";
import type { MethodScope } from "./method-scope.ts";
import {
  canonicalJson,
  inputResponsesProblem,
  type Round,
  roundAsker,
  type StateBinding,
  type Stop,
} from "./mrtr.ts";
import { type Caller, listToolsPage } from "./rpc-2025.ts";
import { type SourceMethod, sourceMethod } from "./source-methods.ts";
import { MAX_SUBSCRIPTIONS, readClientCapabilities, type ServerState } from "./state.ts";
import {
  cancelled,
  failureAnswer,
  progressSender,
  TOO_MANY_CALLS,
  tooManyCalls,
} from "./tool-call.ts";

/**
 * Whether a POSTed message is 2026-07-28 traffic: a request or notification whose
 * `params._meta` names a protocol version (a claim, whatever it names), or, without a claim, an
 * `MCP-Protocol-Version` header naming a 2026 revision. Everything else (`initialize`, session
 * traffic, responses, batches) is 2025.
 */
export function claimsModern(message: ClassifiedMessage, headerVersion: string | null): boolean {
  if (message.type !== "request" && message.type !== "notification") return false;
  const meta = message.message.params?._meta;
  if (isRecord(meta) && META.protocolVersion in meta) return true;
  return (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(headerVersion?.trim() ?? "");
}

/** Methods whose `Mcp-Name` header repeats a param, and which param. */
const NAMED: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/** What one 2026 request is served with. */
interface Scope {
  readonly state: ServerState;
  readonly request: IncomingRequest;
  readonly headers: Headers;
  readonly caller: Caller;
  readonly message: JsonRpcRequest;
  readonly meta: Record<string, unknown>;
}

/**
 * Answers a 2026-07-28 POST. A notification is accepted (202). A request is checked in this
 * order, each failure echoing the request's id: the `_meta` envelope (400 `-32602`), the
 * `MCP-Protocol-Version` header against it (400 `-32020`), the revision (400 `-32022` with
 * `supported` and `requested`), `Mcp-Method` and `Mcp-Name` (400 `-32020`), then the method
 * (404 `-32601` for one this server lacks, the removed ones included).
 */
export function handleModernPost(
  state: ServerState,
  request: IncomingRequest,
  headers: Headers,
  caller: Caller,
  message: ClassifiedMessage,
): Promise<Answer> | Answer {
  if (message.type === "notification") return new Response(null, { status: 202, headers });
  if (message.type !== "request")
    return jsonAnswer(jsonRpcError(null, -32600, "Invalid Request"), 400, headers);
  const rpc = message.message;
  const fail = (status: number, code: number, why: string, data?: unknown) =>
    jsonAnswer(jsonRpcError(rpc.id, code, why, data), status, headers);
  const meta = rpc.params?._meta;
  const envelope = envelopeProblem(meta);
  if (envelope !== undefined)
    return fail(400, JSON_RPC_ERROR.invalidParams, `Invalid params: ${envelope}`);
  const record = meta as Record<string, unknown>;
  const version = record[META.protocolVersion] as string;
  const headerVersion = request.headers.get("mcp-protocol-version")?.trim();
  if (headerVersion === undefined) {
    return fail(400, MCP_ERROR.headerMismatch, "Header mismatch: MCP-Protocol-Version is required");
  }
  if (headerVersion !== version) {
    return fail(
      400,
      MCP_ERROR.headerMismatch,
      `Header mismatch: MCP-Protocol-Version ${headerVersion} differs from _meta's ${version}`,
    );
  }
  if (!(MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    return fail(
      400,
      MCP_ERROR.unsupportedProtocolVersion,
      `Unsupported protocol version ${version}`,
      {
        supported: [...MODERN_PROTOCOL_VERSIONS],
        requested: version,
      },
    );
  }
  const methodHeader = headerValue(request.headers, "mcp-method");
  if (methodHeader !== rpc.method) {
    return fail(
      400,
      MCP_ERROR.headerMismatch,
      methodHeader === undefined
        ? "Header mismatch: Mcp-Method is required"
        : "Header mismatch: Mcp-Method differs from the body's method",
    );
  }
  const named = NAMED[rpc.method];
  if (named !== undefined) {
    const name = headerValue(request.headers, "mcp-name");
    if (name === undefined || name !== rpc.params?.[named]) {
      return fail(
        400,
        MCP_ERROR.headerMismatch,
        name === undefined
          ? "Header mismatch: Mcp-Name is required"
          : `Header mismatch: Mcp-Name differs from the body's ${named}`,
      );
    }
  }
  const scope: Scope = { state, request, headers, caller, message: rpc, meta: record };
  switch (rpc.method) {
    case "server/discover":
      return jsonAnswer(jsonRpcResult(rpc.id, complete(state, discover(state))), 200, headers);
    case "tools/list":
      return listTools(scope);
    case "tools/call":
      return callTool(scope);
    case "subscriptions/listen":
      return listen(scope);
  }
  const method = sourceMethod(rpc.method, state.sources);
  if (method) return serveMethod(scope, method);
  return fail(404, JSON_RPC_ERROR.methodNotFound, `Method not found: ${rpc.method}`);
}

function envelopeProblem(meta: unknown): string | undefined {
  if (!isRecord(meta)) return "a 2026-07-28 request needs `params._meta`";
  if (typeof meta[META.protocolVersion] !== "string") {
    return `\`_meta["${META.protocolVersion}"]\` must be a string`;
  }
  if (!isRecord(meta[META.clientCapabilities])) {
    return `\`_meta["${META.clientCapabilities}"]\` must be an object`;
  }
  const info = meta[META.clientInfo];
  if (
    info !== undefined &&
    !(isRecord(info) && typeof info.name === "string" && typeof info.version === "string")
  ) {
    return `\`_meta["${META.clientInfo}"]\` needs a string \`name\` and \`version\``;
  }
  const level = meta[META.logLevel];
  if (level !== undefined && !(LOGGING_LEVELS as readonly unknown[]).includes(level)) {
    return `\`_meta["${META.logLevel}"]\` must be one of ${LOGGING_LEVELS.join(", ")}`;
  }
  return undefined;
}

const SENTINEL = /^=\?base64\?(.*)\?=$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * A standard header's value: trimmed, a `=?base64?…?=` value decoded from UTF-8. `undefined`
 * when absent; `null` when it holds characters a header value may not (not visible ASCII) or a
 * sentinel that does not decode, which never equals a body value.
 */
function headerValue(headers: HeaderLookup, name: string): string | null | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  const value = raw.trim();
  if (/[^\x20-\x7e\t]/.test(value)) return null;
  const sentinel = SENTINEL.exec(value);
  if (!sentinel) return value;
  if (!BASE64.test(sentinel[1] ?? "")) return null;
  try {
    return utf8.decode(Uint8Array.from(atob(sentinel[1] ?? ""), (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

// One per handler: it is only serialised, never changed.
const serverInfos = new WeakMap<ServerState, Record<string, unknown>>();

function serverInfo(state: ServerState): Record<string, unknown> {
  let info = serverInfos.get(state);
  if (!info) {
    const { name, version, title } = state.options;
    info = title === undefined ? { name, version } : { name, version, title };
    serverInfos.set(state, info);
  }
  return info;
}

/** A 2026 result: `resultType` (default `complete`) and the server's identity in `_meta`. */
function complete(state: ServerState, result: Record<string, unknown>): Record<string, unknown> {
  const meta = isRecord(result._meta) ? { ...result._meta } : {};
  meta[META.serverInfo] = serverInfo(state);
  return { ...result, resultType: result.resultType ?? "complete", _meta: meta };
}

function cacheHints(state: ServerState): { ttlMs: number; cacheScope: "public" | "private" } {
  const hints = state.options.cacheHints;
  return { ttlMs: hints?.ttlMs ?? 0, cacheScope: hints?.cacheScope ?? "private" };
}

function discover(state: ServerState): Record<string, unknown> {
  const capabilities: Record<string, unknown> = { tools: { listChanged: true }, logging: {} };
  const { sources } = state;
  if (sources.resources) capabilities.resources = { subscribe: true, listChanged: true };
  if (sources.prompts) capabilities.prompts = { listChanged: true };
  if (sources.completions) capabilities.completions = {};
  const result: Record<string, unknown> = {
    supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
    capabilities,
    ...cacheHints(state),
  };
  if (state.options.instructions !== undefined) result.instructions = state.options.instructions;
  return result;
}

/**
 * Answers `tools/list`: the 2025 pages with the caching hints, and each `outputSchema` as the
 * tool declared it (2026 allows any JSON Schema there, so it is not made an object schema).
 */
async function listTools({ state, message, headers }: Scope): Promise<Answer> {
  const page = await listToolsPage(state, message.params?.cursor);
  if (page) {
    // The declarations of the list just made: no second listing.
    for (const tool of page.tools) {
      const output = state.declarations.known(tool.name)?.outputSchema?.schema;
      if (output !== undefined) tool.outputSchema = output as Record<string, unknown>;
    }
  }
  if (!page) {
    return jsonAnswer(
      jsonRpcError(message.id, JSON_RPC_ERROR.invalidParams, "Invalid cursor"),
      200,
      headers,
    );
  }
  return jsonAnswer(
    jsonRpcResult(message.id, complete(state, { ...page, ...cacheHints(state) })),
    200,
    headers,
  );
}

/**
 * A number in an `Mcp-Param-*` header: decimal, as the revision has clients write integers
 * (`42`, and `42.0` compares equal). `Number()` also reads `0x10`, `0b10000`, `0o20`, `1e1`,
 * `Infinity` and blank text, which a gateway routing on the header would not read as 16 or 10.
 */
const DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

/**
 * Checks the `Mcp-Param-*` headers of a call against the arguments their tool's schema marks
 * with `x-mcp-header` (top-level properties): a value present needs its header, equal after
 * decoding (numbers compare as numbers, written in decimal); a value absent or `null` must have
 * none.
 */
function paramHeaderProblem(
  schema: unknown,
  args: Record<string, unknown>,
  headers: HeaderLookup,
): string | undefined {
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  for (const [property, definition] of Object.entries(properties)) {
    if (!isRecord(definition) || typeof definition["x-mcp-header"] !== "string") continue;
    const header = `Mcp-Param-${definition["x-mcp-header"]}`;
    const sent = headerValue(headers, header);
    const value = args[property];
    if (value === undefined || value === null) {
      if (sent !== undefined) return `${header} is sent for an argument that is absent`;
      continue;
    }
    if (sent === undefined) return `${header} is required`;
    const equal =
      typeof value === "number"
        ? sent !== null && DECIMAL.test(sent) && Number(sent) === value
        : typeof value === "boolean"
          ? sent === String(value)
          : sent === value;
    if (!equal) return `${header} differs from the argument \`${property}\``;
  }
  return undefined;
}

/**
 * Answers a 2026 `tools/call`. The tool runs with the caller's `auth`; progress (with a
 * `progressToken`) and log messages (at or above the request's `logLevel`; none without one)
 * stream before the result; closing the response stream, or aborting the request, cancels the
 * tool. A question becomes `input_required` (see `mrtr.ts`), or `-32021` when the request did not
 * declare the capability it needs.
 */
async function callTool(scope: Scope): Promise<Answer> {
  const { state, message, headers, caller, request, meta } = scope;
  const params = message.params ?? {};
  const { name, arguments: args = {} } = params;
  const fail = (status: number, code: number, why: string, data?: unknown) =>
    jsonAnswer(jsonRpcError(message.id, code, why, data), status, headers);
  if (typeof name !== "string") {
    return fail(200, JSON_RPC_ERROR.invalidParams, "tools/call needs a string `name`");
  }
  if (!isRecord(args)) {
    return fail(200, JSON_RPC_ERROR.invalidParams, "tools/call `arguments` must be an object");
  }
  // The declaration as last listed: listing the toolset here would make a gateway over a
  // remote toolset list its upstream before every call.
  const tool = await state.declarations.find(name);
  if (tool) {
    const schema = tool.inputSchema.schema;
    const problem = paramHeaderProblem(schema, args, request.headers);
    if (problem !== undefined)
      return fail(400, MCP_ERROR.headerMismatch, `Header mismatch: ${problem}`);
  }
  const inputResponses = params.inputResponses;
  const inputProblem = inputResponsesProblem(inputResponses);
  if (inputProblem !== undefined) {
    return fail(200, JSON_RPC_ERROR.invalidParams, `Invalid params: ${inputProblem}`);
  }
  // The arguments as sent, as text: the tool may change the object it is given. The binding
  // itself is only needed for a `requestState` (sorting the keys cost about 1.5 µs per call).
  const sent = JSON.stringify(args);
  const binding = (): StateBinding => ({
    identity: caller.identity,
    tool: name,
    args: JSON.parse(canonicalJson(JSON.parse(sent))),
  });
  let round: Round = { answers: new Map(), pending: new Map(), steps: new Map() };
  if (params.requestState !== undefined) {
    const verified =
      typeof params.requestState === "string"
        ? await state.stateCodec.verify(params.requestState, binding())
        : undefined;
    if (!verified) {
      return fail(
        200,
        JSON_RPC_ERROR.invalidParams,
        "Invalid params: `requestState` is not valid for this call (tampered, expired, or issued for another caller, tool or arguments)",
      );
    }
    round = verified;
  }
  const controller = new AbortController();
  // No owner: a 2026 call is cancelled by closing its request, never by a notification, so no
  // 2025 `notifications/cancelled` (anyone's) reaches it.
  const unregister = state.inFlight.add(
    undefined,
    message.id,
    controller,
    {
      max: state.options.maxInFlightCalls,
      perOwner: false,
      perCaller: state.options.maxInFlightCallsPerCaller,
    },
    caller.identity,
  );
  if (typeof unregister === "string") {
    return fail(200, TOO_MANY_CALLS, tooManyCalls(state, unregister));
  }
  const disconnect = () => controller.abort("the client closed the response stream");
  const channel = createResponseChannel(headers, disconnect);
  const stopListening = request.onAbort(disconnect);
  let stopped: Stop | undefined;
  // The retry runs the tool again, so its `ctx.once` effects are recorded into the round.
  const journal = createCallJournal({
    entries: round.steps,
    replays: true,
    maxBytes: state.options.maxJournalBytes,
  });
  const options: CallOptions = {
    signal: controller.signal,
    auth: caller.auth,
    "~journal": journal,
    onInteraction: roundAsker({
      round,
      inputResponses: inputResponses as Record<string, unknown> | undefined,
      capabilities: readClientCapabilities(meta[META.clientCapabilities]),
      questionKey: state.options.questionKey ?? defaultQuestionKey,
      stop: (stop) => {
        stopped ??= stop;
      },
    }),
  };
  const onProgress = progressSender(channel, meta);
  if (onProgress) options.onProgress = onProgress;
  const onLog = logSender(meta[META.logLevel] as McpLoggingLevel | undefined, channel);
  if (onLog) options.onLog = onLog;
  const run = async () => {
    try {
      const result = await state.toolset.call(name, args, options);
      channel.finish(
        jsonRpcResult(message.id, complete(state, toMcpCallToolResult(result))),
        cancelled(message),
      );
    } catch (error) {
      let failure = error;
      if (stopped) {
        // Every effect that started is recorded before the state is signed; one that ended
        // after the question may have grown the journal past what the state may carry.
        await journal.settled();
        const overflow = stopped.type === "input_required" && journal.askProblem(name, true);
        if (!overflow) return finishStopped(scope, channel, stopped, round, binding);
        failure = overflow;
      } else if (controller.signal.aborted) return channel.finish(undefined, cancelled(message));
      const answer = decorate(
        state,
        failureAnswer(message, name, failure, (hidden) =>
          state.report(hidden, "tool", () => request.toRequest()),
        ),
      );
      channel.finish(answer, answer);
    } finally {
      stopListening();
      unregister();
    }
  };
  void run();
  return channel.response;
}

/**
 * What a question of a `prompts/get` or `resources/read` is bound to in the signed state (the
 * method and the prompt's name or the URI, never a tool's name: those cannot hold a space),
 * and the arguments; `undefined` for the methods that never ask.
 */
function askingTarget(
  method: string,
  params: Record<string, unknown>,
): { target: string; args: unknown } | undefined {
  if (method === "prompts/get" && typeof params.name === "string") {
    return { target: `prompts/get ${params.name}`, args: params.arguments ?? {} };
  }
  if (method === "resources/read" && typeof params.uri === "string") {
    return { target: `resources/read ${params.uri}`, args: {} };
  }
  return undefined;
}

/**
 * Answers a 2026 resources, prompts or completion request: the method's outcome with
 * `resultType`, the server's identity and, for the cacheable ones, the caching hints; a missing
 * resource as `-32602` with `data.uri`. A prompt or read that asks a question ends the round
 * with `input_required`, as a tool does (`mrtr.ts`), and runs again from the start on the
 * retry. Closing the request aborts the context's signal.
 */
async function serveMethod(scope: Scope, method: SourceMethod): Promise<Answer> {
  const { state, message, headers, caller, request, meta } = scope;
  const params = message.params ?? {};
  const fail = (code: number, why: string, data?: unknown) =>
    jsonAnswer(jsonRpcError(message.id, code, why, data), 200, headers);
  const asking = askingTarget(message.method, params);
  let round: Round = { answers: new Map(), pending: new Map(), steps: new Map() };
  let stopped: Stop | undefined;
  let binding: (() => StateBinding) | undefined;
  let ask: MethodScope["ask"];
  if (asking) {
    const inputProblem = inputResponsesProblem(params.inputResponses);
    if (inputProblem !== undefined) {
      return fail(JSON_RPC_ERROR.invalidParams, `Invalid params: ${inputProblem}`);
    }
    const sent = JSON.stringify(asking.args) ?? "null";
    binding = () => ({
      identity: caller.identity,
      tool: asking.target,
      args: JSON.parse(canonicalJson(JSON.parse(sent))),
    });
    if (params.requestState !== undefined) {
      const verified =
        typeof params.requestState === "string"
          ? await state.stateCodec.verify(params.requestState, binding())
          : undefined;
      if (!verified) {
        return fail(
          JSON_RPC_ERROR.invalidParams,
          "Invalid params: `requestState` is not valid for this request (tampered, expired, or issued for another caller, prompt, resource or arguments)",
        );
      }
      round = verified;
    }
    ask = roundAsker({
      round,
      inputResponses: params.inputResponses as Record<string, unknown> | undefined,
      capabilities: readClientCapabilities(meta[META.clientCapabilities]),
      questionKey: state.options.questionKey ?? defaultQuestionKey,
      stop: (stop) => {
        stopped ??= stop;
      },
    });
  }
  const controller = new AbortController();
  const stopListening = request.onAbort(() => controller.abort("the client closed the request"));
  try {
    const outcome = await method(
      {
        sources: state.sources,
        auth: caller.auth,
        signal: controller.signal,
        pageSize: state.options.pageSize,
        ask,
        report: (error) => state.report(error, "tool", () => request.toRequest()),
      },
      params,
    );
    if (stopped && binding) {
      const { response, status } = await stoppedAnswer(scope, stopped, round, binding);
      return jsonAnswer(response, status, headers);
    }
    switch (outcome.type) {
      case "result": {
        const result = outcome.cacheable
          ? { ...outcome.result, ...cacheHints(state) }
          : outcome.result;
        return jsonAnswer(jsonRpcResult(message.id, complete(state, result)), 200, headers);
      }
      case "error":
        return fail(outcome.code, outcome.message, outcome.data);
      case "resource_not_found":
        return fail(JSON_RPC_ERROR.invalidParams, "Resource not found", { uri: outcome.uri });
      default:
        return unreachable(outcome);
    }
  } finally {
    stopListening();
  }
}

function defaultQuestionKey(_question: ToolInteractionRequest, index: number): string {
  return `q${index}`;
}

async function finishStopped(
  scope: Scope,
  channel: ResponseChannel,
  stop: Stop,
  round: Round,
  binding: () => StateBinding,
): Promise<void> {
  const { response, status } = await stoppedAnswer(scope, stop, round, binding);
  channel.finish(response, response, status);
}

/**
 * The answer to a round that stopped for input (a tool's, a prompt's or a read's question):
 * `input_required` with the question and the signed state, `-32021` for a capability the
 * request did not declare, `-32602` for a malformed answer.
 */
async function stoppedAnswer(
  scope: Scope,
  stop: Stop,
  round: Round,
  binding: () => StateBinding,
): Promise<{ response: JsonRpcResponse; status: number }> {
  const { state, message } = scope;
  switch (stop.type) {
    case "missing_capability": {
      const error = jsonRpcError(message.id, MCP_ERROR.missingClientCapability, stop.why, {
        requiredCapabilities: stop.required,
      });
      return { response: error, status: 400 };
    }
    case "invalid_answer": {
      const error = jsonRpcError(
        message.id,
        JSON_RPC_ERROR.invalidParams,
        `Invalid params: ${stop.why}`,
      );
      return { response: error, status: 200 };
    }
    case "input_required": {
      try {
        const requestState = await state.stateCodec.sign(
          { answers: round.answers, pending: stop.pending, steps: round.steps },
          binding(),
        );
        const result = complete(state, {
          resultType: "input_required",
          inputRequests: stop.inputRequests,
          requestState,
        });
        return { response: jsonRpcResult(message.id, result), status: 200 };
      } catch (error) {
        state.report(error, "request", () => scope.request.toRequest());
        const failure = jsonRpcError(
          message.id,
          JSON_RPC_ERROR.internalError,
          `Internal error: ${errorText(error)}`,
        );
        return { response: failure, status: 200 };
      }
    }
  }
}

function decorate(state: ServerState, response: JsonRpcResponse): JsonRpcResponse {
  return "result" in response
    ? jsonRpcResult(response.id, complete(state, response.result))
    : response;
}

// Without `logLevel` the request did not ask for logs at all: no listener, and the tool's log
// messages go nowhere.
function logSender(
  level: McpLoggingLevel | undefined,
  channel: ResponseChannel,
): ((log: ToolLog) => void) | undefined {
  const threshold = level === undefined ? -1 : LOGGING_LEVELS.indexOf(level);
  if (threshold < 0) return undefined;
  return ({ level: severity, data, logger }) => {
    const rank = LOGGING_LEVELS.indexOf(severity as McpLoggingLevel);
    if (rank < threshold) return;
    const params: Record<string, unknown> = { level: severity, data };
    if (typeof logger === "string") params.logger = logger;
    channel.send(jsonRpcNotification("notifications/message", params));
  };
}

/** How often an idle listen stream gets a keep-alive comment, in ms. */
const KEEP_ALIVE_MS = 15_000;

/** One open `subscriptions/listen` stream. */
export interface Listen {
  /** The identity of the caller that opened it (`undefined` for an anonymous one). */
  readonly identity: string | undefined;
  /**
   * Sends `notifications/<change>/list_changed`, or for `resource` the
   * `notifications/resources/updated` of `uri`, if this stream asked for it.
   */
  notify(change: "tools" | "resources" | "prompts" | "resource", uri?: string): void;
  /** Ends the stream gracefully: the listen request's result, then close. */
  close(): void;
}

/**
 * Answers `subscriptions/listen`: an SSE stream whose first event acknowledges the subscription
 * (`notifications` is what this server honours: `toolsListChanged`, and with resources or
 * prompts served their list changes and `resourceSubscriptions`), then carries
 * `notifications/<list>/list_changed` whenever `McpHandler.toolsChanged`, `resourcesChanged` or
 * `promptsChanged` is called and `notifications/resources/updated` for `resourceUpdated` of a
 * watched URI, each tagged with the subscription id (the request's id), keep-alive comments in
 * between, and at `McpHandler.close` the request's result. The client ends it by closing the
 * stream.
 */
function listen({ state, message, headers, caller }: Scope): Answer {
  const asked = message.params?.notifications;
  if (asked !== undefined && !isRecord(asked)) {
    return jsonAnswer(
      jsonRpcError(message.id, JSON_RPC_ERROR.invalidParams, "`notifications` must be an object"),
      200,
      headers,
    );
  }
  const limit = listenLimit(state, caller.identity);
  if (limit !== undefined) {
    return jsonAnswer(
      jsonRpcError(
        message.id,
        JSON_RPC_ERROR.internalError,
        `Subscription limit reached (${limit})`,
      ),
      200,
      headers,
    );
  }
  const honoured = honouredSubscriptions(state, asked);
  const tag = { [META.subscriptionId]: message.id as JsonRpcId };
  const watched = new Set(honoured.resourceSubscriptions ?? []);
  let timer: ReturnType<typeof setInterval> | undefined;
  const entry: Listen = {
    identity: caller.identity,
    notify(change, uri) {
      if (change === "resource") {
        if (uri !== undefined && watched.has(uri)) {
          writer.write(jsonRpcNotification("notifications/resources/updated", { uri, _meta: tag }));
        }
        return;
      }
      if (honoured[LISTEN_FLAGS[change]] === true) {
        writer.write(jsonRpcNotification(`notifications/${change}/list_changed`, { _meta: tag }));
      }
    },
    close() {
      writer.write(jsonRpcResult(message.id, complete(state, { _meta: tag })));
      end();
    },
  };
  const end = () => {
    clearInterval(timer);
    state.listens.delete(entry);
    writer.close();
  };
  const writer = createSseWriter(undefined, end);
  state.listens.add(entry);
  writer.write(
    jsonRpcNotification("notifications/subscriptions/acknowledged", {
      notifications: honoured,
      _meta: tag,
    }),
  );
  timer = setInterval(() => writer.comment("keep-alive"), KEEP_ALIVE_MS);
  (timer as { unref?: () => void }).unref?.();
  const sseHeaders = new Headers(headers);
  sseHeaders.set("content-type", "text/event-stream");
  sseHeaders.set("cache-control", "no-cache, no-transform");
  sseHeaders.set("x-accel-buffering", "no");
  return new Response(writer.body, { status: 200, headers: sseHeaders });
}

/** The listen flag of each kind of list change. */
const LISTEN_FLAGS = {
  tools: "toolsListChanged",
  resources: "resourcesListChanged",
  prompts: "promptsListChanged",
} as const;

/**
 * What of a listen request this server honours: `toolsListChanged`, and with resources
 * `resourcesListChanged` and `resourceSubscriptions` (the strings, at most
 * `MAX_SUBSCRIPTIONS`), with prompts `promptsListChanged`.
 */
function honouredSubscriptions(
  state: ServerState,
  asked: Record<string, unknown> | undefined,
): { [flag: string]: boolean | string[] | undefined; resourceSubscriptions?: string[] } {
  const honoured: { [flag: string]: boolean | string[] } = {};
  if (asked?.toolsListChanged === true) honoured.toolsListChanged = true;
  if (state.sources.prompts && asked?.promptsListChanged === true) {
    honoured.promptsListChanged = true;
  }
  if (state.sources.resources) {
    if (asked?.resourcesListChanged === true) honoured.resourcesListChanged = true;
    const uris = asked?.resourceSubscriptions;
    if (Array.isArray(uris)) {
      const kept = uris.filter((uri): uri is string => typeof uri === "string");
      if (kept.length > 0) honoured.resourceSubscriptions = kept.slice(0, MAX_SUBSCRIPTIONS);
    }
  }
  return honoured;
}

// Which listen limit one more stream would pass, named for the error; `undefined` when none.
function listenLimit(state: ServerState, identity: string | undefined): string | undefined {
  const { maxListens, maxListensPerCaller } = state.options;
  if (state.listens.size >= maxListens) return `the limit is ${maxListens}`;
  if (identity === undefined) return undefined;
  let held = 0;
  for (const listen of state.listens) if (listen.identity === identity) held++;
  return held >= maxListensPerCaller ? `the limit is ${maxListensPerCaller} per caller` : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
