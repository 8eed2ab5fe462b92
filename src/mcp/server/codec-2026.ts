// Revision 2026-07-28 over Streamable HTTP, stateless: every request carries its revision and the
// client's capabilities in `params._meta`, repeats the revision, the method and the name in
// headers, and is answered on its own (no `initialize`, no session, no GET stream). A tool's
// question ends the round as `input_required` with a signed `requestState` (`mrtr.ts`), and
// `subscriptions/listen` is the stream of list changes. This file checks the envelope and the
// headers, builds the request's scope from `_meta`, and decorates the results (`resultType`,
// server info, caching hints); the methods are the core's table (`core.ts`). `handler.ts`
// picks this codec per POST (`claimsModern`). See `docs/design.md`, "Serving MCP", "2026-07-28".

import { errorText } from "../../errors.ts";
import { createCallJournal } from "../../execution/call-journal.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import {
  type ClassifiedMessage,
  JSON_RPC_ERROR,
  type JsonRpcId,
  type JsonRpcRequest,
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
} from "../protocol.ts";
import {
  type Caller,
  type Core,
  type Envelope,
  failure,
  type Listen,
  MAX_SUBSCRIPTIONS,
  type Outcome,
  observed,
  type Round,
  readClientCapabilities,
  result,
  serve,
} from "./core.ts";
import {
  type Answer,
  createSseWriter,
  type HeaderLookup,
  type IncomingRequest,
  jsonAnswer,
} from "./http.ts";
import {
  canonicalJson,
  createStateCodec,
  inputResponsesProblem,
  roundAsker,
  type StateBinding,
  type Stop,
} from "./mrtr.ts";
import type { ServedSources } from "./sources.ts";
import { failureOutcome } from "./tools.ts";

/**
 * Whether a POSTed message is 2026-07-28 traffic: a request or notification whose
 * `params._meta` names a protocol version (a claim, whatever it names), or, without a claim, an
 * `MCP-Protocol-Version` header naming a 2026 revision. Everything else (`initialize`, session
 * traffic, responses, batches) is 2025.
 */
export function claimsModern(message: ClassifiedMessage, headerVersion: string | null): boolean {
  if (message.type !== "request" && message.type !== "notification") return false;
  const meta = message.message.params?._meta;
  if (isJsonObject(meta) && META.protocolVersion in meta) return true;
  return (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(headerVersion?.trim() ?? "");
}

/** Methods whose `Mcp-Name` header repeats a param, and which param. */
const NAMED: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/** Methods of the table this revision removed: 404 like any unknown one. */
const REMOVED = new Set(["ping"]);

/** The results besides `tools/list` that carry the caching hints (`ttlMs`, `cacheScope`). */
const CACHEABLE = new Set([
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
]);

/**
 * What the signed state of a `prompts/get` or `resources/read` that asks a question is bound
 * to: the method with the prompt's name or the URI (a tool's name cannot hold a space, so
 * neither can pass for a tool), and the prompt's arguments.
 */
function askerOf(message: JsonRpcRequest): { target: string; args: unknown } | undefined {
  const params = message.params ?? {};
  if (message.method === "prompts/get" && typeof params.name === "string") {
    return { target: `prompts/get ${params.name}`, args: params.arguments ?? {} };
  }
  if (message.method === "resources/read" && typeof params.uri === "string") {
    return { target: `resources/read ${params.uri}`, args: {} };
  }
  return undefined;
}

/** Answers one 2026-07-28 POST of a handler. */
export type ModernCodec = (
  request: IncomingRequest,
  headers: Headers,
  caller: Caller,
  message: ClassifiedMessage,
) => Promise<Answer> | Answer;

/**
 * Creates the 2026-07-28 codec of one handler (its `requestState` key and server info are made
 * once). A notification is accepted (202). A request is checked in this order, each failure
 * echoing the request's id: the `_meta` envelope (400 `-32602`), the `MCP-Protocol-Version`
 * header against it (400 `-32020`), the revision (400 `-32022` with `supported` and
 * `requested`), `Mcp-Method` and `Mcp-Name` (400 `-32020`), then the method (404 `-32601` for
 * one this server lacks, the removed ones included).
 */
export function createModernCodec(core: Core): ModernCodec {
  const { options } = core;
  const stateCodec = createStateCodec(options.stateSecret, options.requestStateTtlMs);
  const info: Record<string, unknown> =
    options.title === undefined
      ? { name: options.name, version: options.version }
      : { name: options.name, version: options.version, title: options.title };
  const hints = {
    ttlMs: options.cacheHints?.ttlMs ?? 0,
    cacheScope: options.cacheHints?.cacheScope ?? "private",
  };
  // A 2026 result: `resultType` (default `complete`) and the server's identity in `_meta`.
  const complete = (value: Record<string, unknown>): Record<string, unknown> => {
    const meta = isJsonObject(value._meta) ? { ...value._meta } : {};
    meta[META.serverInfo] = info;
    return { ...value, resultType: value.resultType ?? "complete", _meta: meta };
  };
  function discover(): Record<string, unknown> {
    const capabilities: Record<string, unknown> = { tools: { listChanged: true }, logging: {} };
    const { sources } = core;
    if (sources.resources) capabilities.resources = { subscribe: true, listChanged: true };
    if (sources.prompts) capabilities.prompts = { listChanged: true };
    if (sources.completions) capabilities.completions = {};
    if (core.tasks) capabilities.extensions = core.tasks.extensions;
    const value: Record<string, unknown> = {
      supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
      capabilities,
      ...hints,
    };
    if (core.options.instructions !== undefined) value.instructions = core.options.instructions;
    return value;
  }

  /**
   * The scope of a 2026 request: the capabilities and log level of its `_meta`, questions asked
   * by ending the round (`roundAsker`), a journal replaying the round's `ctx.once` results, and
   * the results decorated: `resultType` and server info on every one, the caching hints and each
   * `outputSchema` as declared on a list (2026 allows any JSON Schema there), `input_required`
   * or `-32021` for a round that stopped.
   */
  function envelopeOf(
    exchange: Exchange,
    round: Round,
    binding: (() => StateBinding) | undefined,
  ): RoundEnvelope {
    const { request, headers, caller, message, meta } = exchange;
    const level = meta[META.logLevel] as McpLoggingLevel | undefined;
    let stopped: Stop | undefined;
    // The retry runs the tool again, so its `ctx.once` effects are recorded into the round.
    const journal = createCallJournal({
      entries: round.steps,
      replays: true,
      maxBytes: core.options.maxJournalBytes,
    });
    const capabilities = readClientCapabilities(meta[META.clientCapabilities]);
    // Made at the first question: a call that asks none never opens `mrtr.ts`.
    let ask: ReturnType<typeof roundAsker> | undefined;
    return {
      round,
      request,
      headers,
      message,
      caller,
      // No owner: a 2026 request is cancelled by closing it, never by a notification.
      owner: undefined,
      inSession: false,
      capabilities,
      // Without `logLevel` the request did not ask for logs at all.
      logLevel: () => level ?? "off",
      ask: (question, signal) => {
        ask ??= roundAsker({
          round,
          inputResponses: message.params?.inputResponses as Record<string, unknown> | undefined,
          capabilities,
          questionKey: core.options.questionKey ?? defaultQuestionKey,
          stop: (stop) => {
            stopped ??= stop;
          },
        });
        return ask(question, signal);
      },
      journal,
      async decorate(outcome) {
        if (stopped && binding) {
          const tool = message.params?.name as string;
          // Every effect that started is recorded before the state is signed; one that ended
          // after the question may have grown the journal past what the state may carry.
          await journal.settled();
          const overflow = stopped.type === "input_required" && journal.askProblem(tool, true);
          if (!overflow) return stoppedOutcome(exchange, stopped, round, binding);
          outcome = failureOutcome(tool, overflow, (hidden) =>
            core.report(hidden, "tool", () => request.toRequest()),
          );
        }
        if (outcome.type === "resource_not_found") {
          // SEP-2164: the 2026 code, with the URI the client asked for.
          return failure(JSON_RPC_ERROR.invalidParams, "Resource not found", { uri: outcome.uri });
        }
        if (outcome.type !== "result") return outcome;
        if (message.method === "tools/list") return result(complete(listed(outcome.result)));
        if (CACHEABLE.has(message.method)) return result(complete({ ...outcome.result, ...hints }));
        return result(complete(outcome.result));
      },
    };
  }

  // A `tools/list` page of this revision: the caching hints, and each `outputSchema` as the tool
  // declared it, from the declarations of the list just made (no second listing).
  function listed(page: Record<string, unknown>): Record<string, unknown> {
    for (const tool of page.tools as { name: string; outputSchema?: unknown }[]) {
      const output = core.tools.known(tool.name)?.outputSchema?.schema;
      if (output !== undefined) tool.outputSchema = output;
    }
    return { ...page, ...hints };
  }

  /**
   * Reads what a 2026 `tools/call` brings for its round, before the tool runs: the `Mcp-Param-*`
   * headers against its declaration (400 `-32020`), `inputResponses` (`-32602`) and the signed
   * `requestState` (`-32602` unless valid for this caller, tool and arguments). A call without a
   * string name or object arguments goes to the method as it is, which refuses it.
   */
  async function callEnvelope(exchange: Exchange): Promise<RoundEnvelope | Answer> {
    const { request, headers, message } = exchange;
    const params = message.params ?? {};
    const { name, arguments: args = {} } = params;
    if (typeof name !== "string" || !isJsonObject(args)) {
      return envelopeOf(exchange, emptyRound(), undefined);
    }
    const fail = (status: number, code: number, why: string) =>
      jsonAnswer(jsonRpcError(message.id, code, why), status, headers);
    // The declaration as last listed: listing the toolset here would make a gateway over a
    // remote toolset list its upstream before every call.
    const tool = await core.tools.find(name);
    if (tool) {
      const problem = paramHeaderProblem(tool.inputSchema.schema, args, request.headers);
      if (problem !== undefined) {
        return fail(400, MCP_ERROR.headerMismatch, `Header mismatch: ${problem}`);
      }
    }
    const inputProblem =
      params.inputResponses === undefined
        ? undefined
        : inputResponsesProblem(params.inputResponses);
    if (inputProblem !== undefined) {
      return fail(200, JSON_RPC_ERROR.invalidParams, `Invalid params: ${inputProblem}`);
    }
    return roundEnvelope(
      exchange,
      name,
      args,
      "call (tampered, expired, or issued for another caller, tool or arguments)",
    );
  }

  /**
   * The envelope of a request whose questions end the round (a call, a prompt, a read): its
   * state bound to the caller, `target` and the arguments as sent (the tool may change the
   * object it is given; the binding itself, sorted-key JSON, is made only for a
   * `requestState`, about 1.5 µs per call), its round read from a valid `requestState`
   * (`-32602`, saying `why` not, otherwise).
   */
  async function roundEnvelope(
    exchange: Exchange,
    target: string,
    args: unknown,
    why: string,
  ): Promise<RoundEnvelope | Answer> {
    const { headers, caller, message } = exchange;
    const params = message.params ?? {};
    const sent = JSON.stringify(args) ?? "null";
    const binding = (): StateBinding => ({
      identity: caller.identity,
      tool: target,
      args: JSON.parse(canonicalJson(JSON.parse(sent))),
    });
    if (params.requestState === undefined) return envelopeOf(exchange, emptyRound(), binding);
    const verified =
      typeof params.requestState === "string"
        ? await stateCodec.verify(params.requestState, binding())
        : undefined;
    if (!verified) {
      const error = jsonRpcError(
        message.id,
        JSON_RPC_ERROR.invalidParams,
        `Invalid params: \`requestState\` is not valid for this ${why}`,
      );
      return jsonAnswer(error, 200, headers);
    }
    return envelopeOf(exchange, verified, binding);
  }

  /**
   * Reads what a 2026 `prompts/get` or `resources/read` brings for its round, as a call's
   * (`callEnvelope`): `inputResponses` (`-32602`) and the signed `requestState` (`-32602`
   * unless valid for this caller, prompt or URI, and arguments). The prompt or read then runs
   * again from the start, its questions answered from the rounds so far.
   */
  async function askingEnvelope(
    exchange: Exchange,
    asker: { target: string; args: unknown },
  ): Promise<RoundEnvelope | Answer> {
    const { headers, message } = exchange;
    const params = message.params ?? {};
    const fail = (why: string) =>
      jsonAnswer(jsonRpcError(message.id, JSON_RPC_ERROR.invalidParams, why), 200, headers);
    const inputProblem =
      params.inputResponses === undefined
        ? undefined
        : inputResponsesProblem(params.inputResponses);
    if (inputProblem !== undefined) return fail(`Invalid params: ${inputProblem}`);
    return roundEnvelope(
      exchange,
      asker.target,
      asker.args,
      "request (tampered, expired, or issued for another caller, prompt, resource or arguments)",
    );
  }

  // The answer to a round that stopped for a question: `input_required` with the signed state,
  // `-32021` (HTTP 400) for a capability the request did not declare, `-32602` for a malformed
  // answer.
  async function stoppedOutcome(
    { request }: Exchange,
    stop: Stop,
    round: Round,
    binding: () => StateBinding,
  ): Promise<Outcome> {
    switch (stop.type) {
      case "missing_capability":
        return {
          type: "error",
          code: MCP_ERROR.missingClientCapability,
          message: stop.why,
          data: { requiredCapabilities: stop.required },
          status: 400,
        };
      case "invalid_answer":
        return failure(JSON_RPC_ERROR.invalidParams, `Invalid params: ${stop.why}`);
      case "input_required":
        try {
          const requestState = await stateCodec.sign(
            { answers: round.answers, pending: stop.pending, steps: round.steps },
            binding(),
          );
          return result(
            complete({
              resultType: "input_required",
              inputRequests: stop.inputRequests,
              requestState,
            }),
          );
        } catch (error) {
          core.report(error, "request", () => request.toRequest());
          return failure(JSON_RPC_ERROR.internalError, `Internal error: ${errorText(error)}`);
        }
    }
  }

  /**
   * Answers `subscriptions/listen`: an SSE stream whose first event acknowledges the subscription
   * (`notifications` is what this server honours: `toolsListChanged`, and with resources or
   * prompts served their list changes and `resourceSubscriptions`), then carries
   * `notifications/<list>/list_changed` whenever `McpHandler.toolsChanged`, `resourcesChanged`
   * or `promptsChanged` is called and `notifications/resources/updated` at `resourceUpdated` of
   * a watched URI, each tagged with the subscription id (the request's id), keep-alive comments
   * in between, and at `McpHandler.close` the request's result. The client ends it by closing
   * the stream.
   */
  async function listen(
    message: JsonRpcRequest,
    headers: Headers,
    caller: Caller,
  ): Promise<Answer> {
    const asked = message.params?.notifications;
    if (asked !== undefined && !isJsonObject(asked)) {
      return jsonAnswer(
        jsonRpcError(message.id, JSON_RPC_ERROR.invalidParams, "`notifications` must be an object"),
        200,
        headers,
      );
    }
    const honoured = honouredSubscriptions(core.sources, asked);
    const tag = { [META.subscriptionId]: message.id as JsonRpcId };
    // Task status (the Tasks extension): snapshots of the named tasks as they change.
    const tasks =
      core.tasks && asked?.taskIds !== undefined
        ? await core.tasks.listen(message, headers, caller, (snapshot) =>
            writer.write(jsonRpcNotification("notifications/tasks", { ...snapshot, _meta: tag })),
          )
        : undefined;
    if (tasks && !("taskIds" in tasks)) return tasks;
    if (tasks) honoured.taskIds = tasks.taskIds;
    const watched = new Set(honoured.resourceSubscriptions ?? []);
    let timer: ReturnType<typeof setInterval> | undefined;
    let release: (() => void) | undefined;
    const entry: Listen = {
      identity: caller.identity,
      notify(change, uri) {
        if (change === "resource") {
          if (uri !== undefined && watched.has(uri)) {
            writer.write(
              jsonRpcNotification("notifications/resources/updated", { uri, _meta: tag }),
            );
          }
          return;
        }
        if (honoured[LISTEN_FLAGS[change]] === true) {
          writer.write(jsonRpcNotification(`notifications/${change}/list_changed`, { _meta: tag }));
        }
      },
      close() {
        writer.write(jsonRpcResult(message.id, complete({ _meta: tag })));
        end();
      },
    };
    const end = () => {
      tasks?.stop();
      clearInterval(timer);
      release?.();
      writer.close();
    };
    const admitted = core.registry.admitListen(entry);
    if (typeof admitted === "string") {
      return jsonAnswer(
        jsonRpcError(
          message.id,
          JSON_RPC_ERROR.internalError,
          `Subscription limit reached (${admitted})`,
        ),
        200,
        headers,
      );
    }
    release = admitted;
    const writer = createSseWriter(undefined, end);
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

  return (request, headers, caller, message) => {
    if (message.type === "notification") return new Response(null, { status: 202, headers });
    if (message.type !== "request") {
      return jsonAnswer(jsonRpcError(null, -32600, "Invalid Request"), 400, headers);
    }
    const rpc = message.message;
    const fail = (status: number, code: number, why: string, data?: unknown) =>
      jsonAnswer(jsonRpcError(rpc.id, code, why, data), status, headers);
    const meta = rpc.params?._meta;
    const envelope = envelopeProblem(meta);
    if (envelope !== undefined) {
      return fail(400, JSON_RPC_ERROR.invalidParams, `Invalid params: ${envelope}`);
    }
    const record = meta as Record<string, unknown>;
    const version = record[META.protocolVersion] as string;
    const headerVersion = request.headers.get("mcp-protocol-version")?.trim();
    if (headerVersion === undefined) {
      return fail(
        400,
        MCP_ERROR.headerMismatch,
        "Header mismatch: MCP-Protocol-Version is required",
      );
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
        { supported: [...MODERN_PROTOCOL_VERSIONS], requested: version },
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
    const exchange: Exchange = { request, headers, caller, message: rpc, meta: record };
    if (core.tasks && rpc.method.startsWith("tasks/")) {
      const name = headerValue(request.headers, "mcp-name");
      return core.tasks.request(envelopeOf(exchange, emptyRound(), undefined), name);
    }
    switch (rpc.method) {
      case "server/discover":
        return observed(
          core,
          request,
          rpc,
          jsonAnswer(jsonRpcResult(rpc.id, complete(discover())), 200, headers),
        );
      case "subscriptions/listen":
        return listen(rpc, headers, caller);
    }
    const method = REMOVED.has(rpc.method) ? undefined : core.methods[rpc.method];
    if (!method) {
      return fail(404, JSON_RPC_ERROR.methodNotFound, `Method not found: ${rpc.method}`);
    }
    const asker = rpc.method === "tools/call" ? undefined : askerOf(rpc);
    if (rpc.method !== "tools/call" && asker === undefined) {
      return serve(core, envelopeOf(exchange, emptyRound(), undefined), method);
    }
    const ready = asker ? askingEnvelope(exchange, asker) : callEnvelope(exchange);
    return ready.then((envelope) => {
      if (!("request" in envelope)) return envelope;
      if (core.tasks && asker === undefined) {
        const responses = rpc.params?.inputResponses as Record<string, unknown> | undefined;
        return core.tasks.call(envelope, envelope.round, responses, () =>
          serve(core, envelope, method),
        );
      }
      return serve(core, envelope, method);
    });
  };
}

/** An envelope with the round it was read from (a task continues from it). */
interface RoundEnvelope extends Envelope {
  readonly round: Round;
}

/** The listen flag of each kind of list change. */
const LISTEN_FLAGS = {
  tools: "toolsListChanged",
  resources: "resourcesListChanged",
  prompts: "promptsListChanged",
} as const;

/**
 * What of a listen request this server honours: `toolsListChanged`, with resources
 * `resourcesListChanged` and `resourceSubscriptions` (the strings, at most
 * `MAX_SUBSCRIPTIONS`), with prompts `promptsListChanged`.
 */
function honouredSubscriptions(
  sources: ServedSources,
  asked: Record<string, unknown> | undefined,
): { [flag: string]: boolean | string[] | undefined; resourceSubscriptions?: string[] } {
  const honoured: { [flag: string]: boolean | string[] } = {};
  if (asked?.toolsListChanged === true) honoured.toolsListChanged = true;
  if (sources.prompts && asked?.promptsListChanged === true) honoured.promptsListChanged = true;
  if (sources.resources) {
    if (asked?.resourcesListChanged === true) honoured.resourcesListChanged = true;
    const uris = asked?.resourceSubscriptions;
    if (Array.isArray(uris)) {
      const kept = uris.filter((uri): uri is string => typeof uri === "string");
      if (kept.length > 0) honoured.resourceSubscriptions = kept.slice(0, MAX_SUBSCRIPTIONS);
    }
  }
  return honoured;
}

/** One 2026 request, its envelope checked. */
interface Exchange {
  readonly request: IncomingRequest;
  readonly headers: Headers;
  readonly caller: Caller;
  readonly message: JsonRpcRequest;
  readonly meta: Record<string, unknown>;
}

function envelopeProblem(meta: unknown): string | undefined {
  if (!isJsonObject(meta)) return "a 2026-07-28 request needs `params._meta`";
  if (typeof meta[META.protocolVersion] !== "string") {
    return `\`_meta["${META.protocolVersion}"]\` must be a string`;
  }
  if (!isJsonObject(meta[META.clientCapabilities])) {
    return `\`_meta["${META.clientCapabilities}"]\` must be an object`;
  }
  const info = meta[META.clientInfo];
  if (
    info !== undefined &&
    !(isJsonObject(info) && typeof info.name === "string" && typeof info.version === "string")
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

function emptyRound(): Round {
  return { answers: new Map(), pending: new Map(), steps: new Map() };
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
  const properties =
    isJsonObject(schema) && isJsonObject(schema.properties) ? schema.properties : {};
  for (const [property, definition] of Object.entries(properties)) {
    if (!isJsonObject(definition) || typeof definition["x-mcp-header"] !== "string") continue;
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

function defaultQuestionKey(_question: ToolInteractionRequest, index: number): string {
  return `q${index}`;
}

/** How often an idle listen stream gets a keep-alive comment, in ms. */
const KEEP_ALIVE_MS = 15_000;
