// The server's core, shared by every protocol revision: what a method is written against (the
// `Scope` of one request), how a request is answered through the method table (`serve`), and
// what one handler remembers between requests, for whom, and how much of it (`Registry`:
// sessions, calls in flight, questions waiting for an answer, open listen streams, with the
// global and per-caller limits), plus the one list cache with its pages. The revisions differ
// only in how a request is read and answered: `codec-2025.ts` and `codec-2026.ts`. See
// `docs/design.md`, "Serving MCP".

import type { ToolInfo } from "../../declaration/tool-info.ts";
import type { CallJournal, JournalEntries } from "../../execution/call-journal.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import type { Observation } from "../../observer.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import type { Toolset } from "../../toolset/toolset.ts";
import {
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcParams,
  type JsonRpcRequest,
  type JsonRpcResponse,
  jsonRpcError,
  jsonRpcNotification,
  jsonRpcResult,
} from "../json-rpc.ts";
import type { McpLoggingLevel } from "../protocol.ts";
import {
  type Answer,
  createResponseChannel,
  type IncomingRequest,
  type JsonAnswer,
  type ResponseChannel,
  type SseWriter,
} from "./http.ts";
import type { ResolvedOptions } from "./options.ts";
import { createStreamLog, type StreamLog } from "./resumable-streams.ts";
import type { ServedSources } from "./sources.ts";

/** Who `authorize` let in: the tool's `ctx.auth` and the identity key it is compared by. */
export interface Caller {
  readonly auth: unknown;
  readonly identity: string | undefined;
}

/**
 * Returns the key two requests must share to count as the same caller: the first string or
 * number among `subject`, `sub`, `id`, `clientId` and `token` of what `authorize` returned, a
 * primitive as itself, else the value's JSON text. `undefined` (no authorizer, or `true`) is the
 * anonymous caller, and every anonymous caller is the same one.
 */
export function identityOf(auth: unknown): string | undefined {
  if (auth === undefined || auth === null) return undefined;
  if (typeof auth !== "object") return `${typeof auth}:${String(auth)}`;
  const record = auth as Record<string, unknown>;
  for (const key of ["subject", "sub", "id", "clientId", "token"]) {
    const value = record[key];
    if (typeof value === "string" || typeof value === "number") return `${key}:${value}`;
  }
  try {
    return `json:${JSON.stringify(auth)}`;
  } catch {
    // A value JSON cannot hold matches nothing, so a session it creates is never reused by
    // someone else; better unusable than shared.
    return `unique:${crypto.randomUUID()}`;
  }
}

/**
 * The client capabilities the server acts on; nothing else the client declares is kept, so a
 * session costs the same whatever the client declared.
 */
export interface ClientCapabilities {
  /** Elicitation in form mode (2025-11-25 lists modes; an empty object means form). */
  readonly elicitation: boolean;
  /** Any `sampling` object. */
  readonly sampling: boolean;
  /** Any `roots` object. */
  readonly roots: boolean;
}

/** Reads the capabilities the server needs from a client's declared `capabilities`. */
export function readClientCapabilities(value: unknown): ClientCapabilities {
  const record = isJsonObject(value) ? value : {};
  const elicitation = record.elicitation;
  return {
    elicitation:
      isJsonObject(elicitation) && (Object.keys(elicitation).length === 0 || "form" in elicitation),
    sampling: isJsonObject(record.sampling),
    roots: isJsonObject(record.roots),
  };
}

/**
 * How a method ended: a result, a JSON-RPC error, `cancelled` (the client cancelled it: a
 * stream ends without a response, a plain answer is `-32800`), or `resource_not_found` (a
 * `resources/read` of a URI no resource has: `-32002` with `data.uri` as 2025 has it, which the
 * 2026 codec answers `-32602`, SEP-2164). `status` is the HTTP status of
 * an error answered as plain JSON (default 200); only a codec sets it.
 */
export type Outcome =
  | { type: "result"; result: Record<string, unknown> }
  | { type: "error"; code: number; message: string; data?: unknown; status?: number }
  | { type: "cancelled" }
  | { type: "resource_not_found"; uri: string };

/** Returns a result outcome. */
export function result(value: Record<string, unknown>): Outcome {
  return { type: "result", result: value };
}

/** Returns an error outcome (`data` left out when `undefined`). */
export function failure(code: number, message: string, data?: unknown): Outcome {
  return { type: "error", code, message, data };
}

/** The error code answering a request the client cancelled (LSP's `RequestCancelled`). */
export const REQUEST_CANCELLED = -32800;

/** The 2025 error code of a `resources/read` of a URI no resource has. */
export const RESOURCE_NOT_FOUND = -32002;

/** The error code answering a `tools/call` beyond the in-flight caps. */
export const TOO_MANY_CALLS = -32000;

/** One method: its params and the request's scope in, its outcome out. It never sees the wire. */
export type Method = (params: JsonRpcParams, scope: Scope) => Promise<Outcome> | Outcome;

/** The methods every revision serves, by name (see `METHODS` in `handler.ts`). */
export type MethodTable = Readonly<Record<string, Method>>;

/** Answers `ping`: an empty result. */
export const ping: Method = () => result({});

/** What one handler keeps between requests; every method reaches it as `scope.core`. */
export interface Core {
  /** The served toolset (never shut down by the server). */
  readonly toolset: Toolset;
  readonly options: ResolvedOptions;
  /** Sessions, calls in flight, questions waiting, listen streams, and their limits. */
  readonly registry: Registry;
  /** The served tools' declarations as last listed. */
  readonly tools: ListCache<ToolInfo>;
  /** The resources, templates and prompts served beside the tools (`sources.ts`). */
  readonly sources: ServedSources;
  /** The methods both revisions serve. */
  readonly methods: MethodTable;
  /** The MCP Tasks extension (2026-07-28 only), when the handler serves it (`mcpTasks`). */
  tasks: TaskEngine | undefined;
  /** Reports a failure the client only sees as a generic answer; never throws. */
  report(error: unknown, phase: "authorize" | "request" | "tool", request: () => Request): void;
}

/**
 * What a method is written against: one request, whichever revision carried it. A codec fills
 * in what its revision says (who may cancel, what the client can answer, the log level, how a
 * question is asked); the method never knows which revision it serves.
 */
export interface Scope {
  readonly core: Core;
  /** The request's JSON-RPC id. */
  readonly id: JsonRpcId;
  readonly caller: Caller;
  /**
   * Who may cancel the request and answer its questions: the 2025 session, else the caller's
   * identity; `undefined` when no one can be told apart (an anonymous caller without a session,
   * every 2026 request), and then the client leaving cancels it.
   */
  readonly owner: string | undefined;
  /** What the client can answer; `undefined` when unknown (a stateless 2025 server assumes it). */
  readonly capabilities: ClientCapabilities | undefined;
  /** Aborts when the request is cancelled, its session ends, or its unowned client leaves. */
  readonly signal: AbortSignal;
  /** `params._meta.progressToken` when the request asked for progress. */
  readonly progressToken: string | number | undefined;
  /**
   * The least severe log level to send, read per message (a 2025 `logging/setLevel` during a
   * call applies at once): `all` sends every message, `off` none (no listener is attached).
   */
  logLevel(): McpLoggingLevel | "all" | "off";
  /** Sends a notification ahead of the answer (the answer becomes an SSE stream). */
  notify(method: string, params: JsonRpcParams): void;
  /** Asks the client a tool's question, as the revision does it. */
  ask(question: ToolInteractionRequest, signal: AbortSignal): Promise<ToolInteractionResponse>;
  /** The journal a tool's `ctx.once` records into, when the revision runs a tool again. */
  readonly journal: CallJournal | undefined;
  /**
   * Takes a slot among the calls in flight (S6), for a method that runs a tool: returns the
   * function that frees it, or why the caps refuse it.
   */
  admit(): (() => void) | string;
  /** Reports a failure the client only sees as a generic answer (`onError`). */
  report(error: unknown, phase: "request" | "tool"): void;
  /**
   * Keeps the runtime alive for work that outlives the answer (a task's run): a Worker's
   * `ctx.waitUntil`, when the handler's `fetch` was given the Worker's context.
   */
  readonly waitUntil: ((work: Promise<unknown>) => void) | undefined;
}

/**
 * What the codecs call of the MCP Tasks extension (`tasks.ts`, made by `mcpTasks`). Declared
 * here so the codecs name it without loading it: a handler without tasks ships none of it.
 */
export interface TaskEngine {
  /** What `server/discover` lists under `capabilities.extensions`. */
  readonly extensions: Record<string, unknown>;
  /**
   * Answers a 2026 `tools/call` whose envelope is read: as a task when the tool and the request
   * call for one, `-32021` for a tool that runs only as one and a request without the extension,
   * else `plain()` (the ordinary call). `round` is what the call's earlier rounds gathered.
   */
  call(
    envelope: Envelope,
    round: Round,
    inputResponses: Record<string, unknown> | undefined,
    plain: () => Promise<Answer>,
  ): Promise<Answer> | Answer;
  /**
   * Answers a 2026 request for a `tasks/` method (`tasks/get`, `tasks/update`, `tasks/cancel`;
   * any other is not found); `name` is the `Mcp-Name` header.
   */
  request(envelope: Envelope, name: string | null | undefined): Promise<Answer> | Answer;
  /**
   * Starts watching the tasks a 2026 `subscriptions/listen` names in `notifications.taskIds`:
   * `send` gets each one's snapshot for `notifications/tasks`. Returns the ids agreed to and
   * the stop, or the answer to give instead (`-32021` without the extension); `headers` are
   * the answer's.
   */
  listen(
    message: JsonRpcRequest,
    headers: Headers,
    caller: Caller,
    send: (snapshot: Record<string, unknown>) => void,
  ): Promise<{ taskIds: string[]; stop(): void } | Answer>;
  /** Answers a 2025 `tools/call`: a tool that runs only as a task is refused, else `plain()`. */
  legacyCall(envelope: Envelope, plain: () => Promise<Answer>): Promise<Answer>;
}

/** What one round of a 2026 call knows: the answers gathered so far, by question key. */
export interface Round {
  /** Answers of earlier rounds and of this retry, each with the fingerprint of its question. */
  readonly answers: Map<string, { fingerprint: string; response: Record<string, unknown> }>;
  /** The questions the previous round asked, by key: a retry's answer must be for one of them. */
  readonly pending: Map<string, string>;
  /** The tool's `ctx.once` results recorded by earlier rounds, replayed instead of re-run. */
  readonly steps: JournalEntries;
}

/** What a codec says about one request, for the core to build its scope from. */
export interface Envelope {
  readonly request: IncomingRequest;
  /** Headers every answer to it carries (CORS, a session id). */
  readonly headers: Headers;
  readonly message: JsonRpcRequest;
  readonly caller: Caller;
  readonly owner: string | undefined;
  /** Whether a session holds the request: its calls then count against the session's cap. */
  readonly inSession: boolean;
  readonly capabilities: ClientCapabilities | undefined;
  logLevel(): McpLoggingLevel | "all" | "off";
  /** Asks a question; `send` puts a message on the request's answer stream. */
  ask(
    question: ToolInteractionRequest,
    signal: AbortSignal,
    send: (message: JsonRpcMessage) => void,
  ): Promise<ToolInteractionResponse>;
  readonly journal?: CallJournal;
  /** The revision's last word on the outcome (2026: `resultType`, `input_required`). */
  decorate?(outcome: Outcome): Outcome | Promise<Outcome>;
  /** The answer's channel when the revision records it (a 2025-11-25 resumable stream). */
  readonly channel?: (() => ResponseChannel) | undefined;
}

/**
 * Answers one request with a method: as plain JSON when the method just returns, as an SSE
 * stream from the first notification or question it sends. A request with an owner is
 * cancelled through the registry (`notifications/cancelled`, its session's end); one without is
 * cancelled when its client leaves. A method that throws is a 500, or, once it has streamed, a
 * stream that ends without a response; `onError` sees the failure either way.
 */
export function serve(core: Core, envelope: Envelope, method: Method): Promise<Answer> {
  const { request, message, caller } = envelope;
  const controller = new AbortController();
  // Without an owner no notification can be told from another caller's, so the request itself
  // is the only link to the client: its leaving cancels. A stream is never resumed, so nothing
  // else could take the answer.
  const disconnect =
    envelope.owner === undefined
      ? () => controller.abort("the client closed the request")
      : undefined;
  const channel = envelope.channel?.() ?? createResponseChannel(envelope.headers, disconnect);
  const stopListening = disconnect ? request.onAbort(disconnect) : undefined;
  const params = message.params ?? {};
  const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const observed = observe(core, request, message);
  const scope: Scope = {
    core,
    id: message.id,
    caller,
    owner: envelope.owner,
    capabilities: envelope.capabilities,
    signal: controller.signal,
    progressToken: typeof token === "string" || typeof token === "number" ? token : undefined,
    logLevel: envelope.logLevel,
    notify: (name, body) => channel.send(jsonRpcNotification(name, body)),
    ask: (question, signal) => envelope.ask(question, signal, channel.send),
    journal: envelope.journal,
    admit: () =>
      core.registry.admitCall(
        envelope.owner,
        message.id,
        controller,
        caller.identity,
        envelope.inSession,
      ),
    report: (error, phase) => core.report(error, phase, () => request.toRequest()),
    waitUntil: request.waitUntil,
  };
  const run = async () => {
    try {
      // The request's span is the runtime's current context while its method runs (Node's
      // AsyncLocalStorage), so what the tool starts (its own spans, its fetches) nests under it.
      const invoke = () => method(params, scope);
      let outcome = await (observed?.run ? observed.run(invoke) : invoke());
      if (envelope.decorate) outcome = await envelope.decorate(outcome);
      observed?.end(
        outcome.type === "result"
          ? { type: "done", result: outcome.result }
          : { type: "failed", error: outcome, code: (outcome as { code?: number }).code },
      );
      const response = responseOf(message.id, outcome);
      channel.finish(
        response,
        response ?? jsonRpcError(message.id, REQUEST_CANCELLED, "Request cancelled"),
        outcome.type === "error" ? outcome.status : undefined,
      );
    } catch (error) {
      observed?.end({ type: "failed", error });
      if (!channel.fail(error)) scope.report(error, "request");
    } finally {
      stopListening?.();
    }
  };
  void run();
  return channel.response;
}

// Tells the handler's observer that a request is being handled, with its params as they came
// (a traced client's context rides in `_meta`) and the headers (the transport's own context,
// the protocol version and session): nothing at all without an observer.
function observe(
  core: Core,
  request: IncomingRequest,
  message: JsonRpcRequest,
): Observation | undefined {
  return core.options.observer?.start({
    type: "mcp_request",
    side: "server",
    method: message.method,
    id: message.id,
    params: message.params ?? {},
    headers: request.headers,
  });
}

/**
 * Tells the handler's observer of a request the codec answers itself (2025 `initialize`,
 * `logging/setLevel`, `resources/subscribe`; 2026 `server/discover`), as `serve` tells it of
 * the others, and returns the answer as it is.
 */
export function observed(
  core: Core,
  request: IncomingRequest,
  message: JsonRpcRequest,
  answer: JsonAnswer,
): JsonAnswer {
  const observation = observe(core, request, message);
  if (observation) {
    const { result, error } = JSON.parse(answer.text) as {
      result?: unknown;
      error?: { code: number };
    };
    observation.end(
      result !== undefined
        ? { type: "done", result }
        : { type: "failed", error, code: error?.code },
    );
  }
  return answer;
}

/** The JSON-RPC response an outcome is answered with; none for `cancelled`. */
function responseOf(id: JsonRpcId, outcome: Outcome): JsonRpcResponse | undefined {
  switch (outcome.type) {
    case "result":
      return jsonRpcResult(id, outcome.result);
    case "error":
      return jsonRpcError(id, outcome.code, outcome.message, outcome.data);
    case "resource_not_found":
      return jsonRpcError(id, RESOURCE_NOT_FOUND, "Resource not found", { uri: outcome.uri });
    default:
      return undefined;
  }
}

/** What the server remembers about one initialized 2025 client. */
export interface Session {
  /** The `Mcp-Session-Id`. */
  readonly id: string;
  /** Who created it; any other identity gets 404 for it. */
  readonly identity: string | undefined;
  /** The negotiated protocol revision. */
  readonly protocolVersion: string;
  readonly capabilities: ClientCapabilities;
  /** The level set by `logging/setLevel` on this session. */
  logLevel: McpLoggingLevel | undefined;
  /** The resource URIs it subscribed to (`resources/subscribe`), at most `MAX_SUBSCRIPTIONS`. */
  readonly subscriptions: Set<string>;
  /** Its standalone stream (GET), where notifications unrelated to a request go. */
  stream: SseWriter | undefined;
}

/** The most resource URIs one session (or one listen stream) may subscribe to. */
export const MAX_SUBSCRIPTIONS = 1024;

/** One open 2026 `subscriptions/listen` stream. */
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
 * What one handler remembers between requests, for whom, and how much: the limits of
 * `McpHandlerOptions` (calls in flight, sessions, listen streams; each in total and per caller)
 * are all applied here. Everything lives in the process or isolate that created the handler.
 */
export interface Registry {
  /** Live sessions, in `memory` mode. */
  readonly sessions: SessionStore | undefined;
  /** Questions waiting for the client's answer. */
  readonly pending: PendingRequests;
  /** Running calls, for `notifications/cancelled`. */
  readonly calls: InFlightCalls;
  /** Open `subscriptions/listen` streams. */
  readonly listens: ReadonlySet<Listen>;
  /** The 2025-11-25 response streams kept for resumption, in `memory` mode (S29). */
  readonly streams: StreamLog | undefined;
  /**
   * Registers a running call under the caps (S6): per session when a session holds it, else
   * for the whole handler, and per caller identity. Returns the unregister function, or why it
   * is refused.
   */
  admitCall(
    owner: string | undefined,
    id: JsonRpcId,
    controller: AbortController,
    identity: string | undefined,
    inSession: boolean,
  ): (() => void) | string;
  /** Registers a listen stream under its caps (S22); returns the release, or why it is refused. */
  admitListen(listen: Listen): (() => void) | string;
  /** Ends a session and cancels its running calls. */
  endSession(id: string): void;
}

/** Creates the registry of one handler, with its limits. */
export function createRegistry(options: ResolvedOptions): Registry {
  const calls = createInFlightCalls();
  const memory = options.sessions === "memory";
  const streams = memory
    ? createStreamLog({ retryMs: options.sseRetryMs, pollMs: options.ssePollMs })
    : undefined;
  const sessions = memory
    ? createSessionStore({
        capacity: options.maxSessions,
        perCaller: options.maxSessionsPerCaller,
        idleMs: options.sessionIdleTimeoutMs,
        busy: (id) => calls.running(id),
        onExpire: (id) => {
          calls.cancelAll(id);
          streams?.endSession(id);
        },
      })
    : undefined;
  const listens = new Set<Listen>();
  const { maxInFlightCalls, maxInFlightCallsPerCaller, maxListens, maxListensPerCaller } = options;
  return {
    sessions,
    pending: createPendingRequests(),
    calls,
    listens,
    streams,
    admitCall(owner, id, controller, identity, inSession) {
      const limit = {
        max: maxInFlightCalls,
        perOwner: inSession,
        perCaller: maxInFlightCallsPerCaller,
      };
      const admitted = calls.add(owner, id, controller, limit, identity);
      if (admitted === "max") {
        return `Too many calls in flight (the limit is ${maxInFlightCalls}); retry when one has finished`;
      }
      if (admitted === "per_caller") {
        return `Too many calls in flight for this caller (the limit is ${maxInFlightCallsPerCaller}); retry when one has finished`;
      }
      return admitted;
    },
    admitListen(listen) {
      if (listens.size >= maxListens) return `the limit is ${maxListens}`;
      if (listen.identity !== undefined) {
        let held = 0;
        for (const open of listens) if (open.identity === listen.identity) held++;
        if (held >= maxListensPerCaller) return `the limit is ${maxListensPerCaller} per caller`;
      }
      listens.add(listen);
      return () => listens.delete(listen);
    },
    endSession(id) {
      sessions?.delete(id);
      calls.cancelAll(id);
      streams?.endSession(id);
    },
  };
}

/** Sessions by id. */
export interface SessionStore {
  /**
   * Creates a session with a fresh unguessable id, first ending idle ones when the store (or
   * the identity's share of it) is full. Returns `undefined` when the store is full of live
   * sessions, or the identity holds `perCaller` of them.
   */
  create(
    protocolVersion: string,
    capabilities: ClientCapabilities,
    identity: string | undefined,
  ): Session | undefined;
  /** Returns the session with this id if it is live, and counts this as activity. */
  get(id: string): Session | undefined;
  /** Ends a session (and its standalone stream); returns whether it existed. */
  delete(id: string): boolean;
  /**
   * Sends `notifications/resources/updated` for `uri` on the standalone stream of every live
   * session that subscribed to it.
   */
  notifySubscribers(uri: string): void;
}

/** How many sessions a store holds and how long an idle one lives. */
export interface SessionStoreOptions {
  /** The most live sessions; creating one more fails until one ends or expires. */
  capacity: number;
  /**
   * The most live sessions of one identity (anonymous sessions are bounded by `capacity`
   * only); default no limit beyond `capacity`.
   */
  perCaller?: number;
  /** A session without a request for this long (ms), and with no call running, has expired. */
  idleMs: number;
  /** Whether a session still has work running (it is then never idle). */
  busy(id: string): boolean;
  /** Called for every session that expires, to stop whatever it left behind. */
  onExpire(id: string): void;
  /** The clock, in milliseconds; `Date.now` by default. */
  now?: () => number;
}

/**
 * Creates an in-memory session store (Node, Deno, a single Durable Object: one process holds
 * every session). Ids are random UUIDs (122 random bits), so one cannot be guessed, and a client
 * cannot choose its own: an unknown id gets 404, never a new session. Expiry needs no timer: a
 * session is checked when it is used, and idle ones are swept when the store is full, so an idle
 * server holds no timers and a Worker is never kept alive.
 */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const { capacity, idleMs, busy, onExpire, now = Date.now } = options;
  const perCaller = options.perCaller ?? capacity;
  const sessions = new Map<string, { session: Session; seen: number }>();
  const held = new Map<string, number>();
  const expired = (id: string, seen: number, at: number) => at - seen >= idleMs && !busy(id);
  const remove = (id: string): boolean => {
    const entry = sessions.get(id);
    if (!entry) return false;
    sessions.delete(id);
    entry.session.stream?.close();
    const identity = entry.session.identity;
    if (identity !== undefined) release(held, identity);
    return true;
  };
  const end = (id: string) => {
    remove(id);
    onExpire(id);
  };
  const full = (identity: string | undefined) =>
    sessions.size >= capacity || (identity !== undefined && (held.get(identity) ?? 0) >= perCaller);
  return {
    create(protocolVersion, capabilities, identity) {
      const at = now();
      if (full(identity)) {
        for (const [id, entry] of sessions) if (expired(id, entry.seen, at)) end(id);
      }
      if (full(identity)) return undefined;
      const session: Session = {
        id: crypto.randomUUID(),
        identity,
        protocolVersion,
        capabilities,
        logLevel: undefined,
        subscriptions: new Set(),
        stream: undefined,
      };
      sessions.set(session.id, { session, seen: at });
      if (identity !== undefined) held.set(identity, (held.get(identity) ?? 0) + 1);
      return session;
    },
    get(id) {
      const entry = sessions.get(id);
      if (!entry) return undefined;
      const at = now();
      if (expired(id, entry.seen, at)) {
        end(id);
        return undefined;
      }
      entry.seen = at;
      return entry.session;
    },
    delete: remove,
    notifySubscribers(uri) {
      const at = now();
      for (const [id, entry] of sessions) {
        if (expired(id, entry.seen, at)) {
          end(id);
          continue;
        }
        const { session } = entry;
        if (session.stream && session.subscriptions.has(uri)) {
          session.stream.write(jsonRpcNotification("notifications/resources/updated", { uri }));
        }
      }
    },
  };
}

// One fewer of `key`, forgetting it at zero.
function release(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/**
 * Running calls, by owner and JSON-RPC id. The owner is the session id with sessions, else the
 * caller's identity, so a cancellation only ever reaches the caller's own calls. A call without
 * an owner (an anonymous caller without a session, whom nothing tells apart from another, or
 * any 2026 call, which is cancelled by closing its request) is counted but no `cancel` reaches
 * it.
 */
export interface InFlightCalls {
  /**
   * Registers a running request, or refuses it: `max` when `limit.max` calls are already
   * running for the owner (`perOwner`) or in the whole table, `per_caller` when
   * `limit.perCaller` are running for `identity` (an identified caller; anonymous ones are
   * counted only in the table). Returns the unregister function.
   */
  add(
    owner: string | undefined,
    id: JsonRpcId,
    controller: AbortController,
    limit: { max: number; perOwner: boolean; perCaller?: number },
    identity?: string,
  ): (() => void) | "max" | "per_caller";
  /**
   * Cancels the owner's running request with this id, unless the owner has two with the same
   * id (then which one is meant is unknown, and nothing is cancelled). Returns whether one was;
   * never for an `undefined` owner.
   */
  cancel(owner: string | undefined, id: JsonRpcId, reason: string | undefined): boolean;
  /** Cancels every request of an owner (its session ended). */
  cancelAll(owner: string): void;
  /** Whether an owner has a call running. */
  running(owner: string): boolean;
}

/** Creates the table of running calls. */
export function createInFlightCalls(): InFlightCalls {
  const calls = new Map<string, Set<AbortController>>();
  const perOwner = new Map<string, number>();
  const perCaller = new Map<string, number>();
  let total = 0;
  const keyOf = (owner: string, id: JsonRpcId) => `${owner}\u0000${typeof id}\u0000${id}`;
  return {
    add(owner, id, controller, limit, identity) {
      const ownerCount = owner === undefined ? 0 : (perOwner.get(owner) ?? 0);
      if ((limit.perOwner ? ownerCount : total) >= limit.max) return "max";
      const callerCount = identity === undefined ? 0 : (perCaller.get(identity) ?? 0);
      if (
        identity !== undefined &&
        limit.perCaller !== undefined &&
        callerCount >= limit.perCaller
      ) {
        return "per_caller";
      }
      total++;
      if (identity !== undefined) perCaller.set(identity, callerCount + 1);
      const key = owner === undefined ? undefined : keyOf(owner, id);
      let set: Set<AbortController> | undefined;
      if (owner !== undefined && key !== undefined) {
        set = calls.get(key) ?? new Set();
        set.add(controller);
        calls.set(key, set);
        perOwner.set(owner, ownerCount + 1);
      }
      let registered = true;
      return () => {
        if (!registered) return;
        registered = false;
        total--;
        if (identity !== undefined) release(perCaller, identity);
        if (owner === undefined || key === undefined || set === undefined) return;
        set.delete(controller);
        if (set.size === 0 && calls.get(key) === set) calls.delete(key);
        release(perOwner, owner);
      };
    },
    cancel(owner, id, reason) {
      if (owner === undefined) return false;
      const set = calls.get(keyOf(owner, id));
      if (set?.size !== 1) return false;
      for (const controller of set) controller.abort(reason ?? "cancelled by the client");
      return true;
    },
    cancelAll(owner) {
      const prefix = `${owner}\u0000`;
      for (const [key, set] of calls) {
        if (!key.startsWith(prefix)) continue;
        for (const controller of set) controller.abort("the session ended");
      }
    },
    running: (owner) => perOwner.has(owner),
  };
}

/** Server-to-client requests (questions) waiting for the client's answer. */
export interface PendingRequests {
  /**
   * Returns a fresh request id, a promise of the response that will carry it, and `withdraw`,
   * which forgets the request (the asker stopped waiting: cancelled or timed out), so a late
   * answer is dropped and the table never keeps it.
   */
  open(owner: string | undefined): {
    id: string;
    response: Promise<JsonRpcResponse>;
    withdraw(): void;
  };
  /**
   * Delivers a response from the client; only the owner that was asked can answer. Returns
   * whether a pending request took it (an answer to a question that already ended is dropped).
   */
  settle(response: JsonRpcResponse, owner: string | undefined): boolean;
}

/**
 * Creates the table of questions, keyed by their JSON-RPC id. Ids are random UUIDs, so an answer
 * is matched by an unguessable id as well as by its owner; the table lives in one process or
 * isolate, so the answer must reach the same one.
 */
export function createPendingRequests(): PendingRequests {
  const entries = new Map<
    string,
    { owner: string | undefined; resolve(response: JsonRpcResponse): void }
  >();
  return {
    open(owner) {
      const id = crypto.randomUUID();
      const response = new Promise<JsonRpcResponse>((resolve) => {
        entries.set(id, { owner, resolve });
      });
      return { id, response, withdraw: () => entries.delete(id) };
    },
    settle(response, owner) {
      const key = response.id;
      if (typeof key !== "string") return false;
      const entry = entries.get(key);
      if (!entry || entry.owner !== owner) return false;
      entries.delete(key);
      entry.resolve(response);
      return true;
    },
  };
}

/**
 * A listing the server serves (tools; resources and prompts go the same way), as last listed.
 * A method that needs one entry (a 2026 `tools/call` reads its tool's `x-mcp-header`
 * arguments) reads it from here instead of listing for every call: a toolset over a remote
 * server lists its upstream each time its list is stale (at once, for a server whose `ttlMs` is
 * 0), so a gateway would send `tools/list` upstream before each call. Every list request a
 * client sends lists afresh; `McpHandler.toolsChanged` forgets.
 */
export interface ListCache<T> {
  /** Lists afresh and keeps what it listed. */
  list(): Promise<T[]>;
  /** Returns an entry from the last list; lists first when it names none such. */
  find(key: string): Promise<T | undefined>;
  /** Returns an entry from the last list, without listing. */
  known(key: string): T | undefined;
  /** Forgets the last list: it changed. */
  forget(): void;
}

/** Creates a list cache over `list`, whose entries are found by `keyOf`. */
export function createListCache<T>(
  list: () => Promise<T[]>,
  keyOf: (entry: T) => string,
): ListCache<T> {
  let known: Map<string, T> | undefined;
  // One listing at a time serves every request that waits for it.
  let listing: Promise<T[]> | undefined;
  const fresh = () => {
    listing ??= list()
      .then((entries) => {
        known = new Map(entries.map((entry) => [keyOf(entry), entry]));
        return entries;
      })
      .finally(() => {
        listing = undefined;
      });
    return listing;
  };
  return {
    list: fresh,
    async find(key) {
      const found = known?.get(key);
      if (found) return found;
      await fresh();
      return known?.get(key);
    },
    known: (key) => known?.get(key),
    forget() {
      known = undefined;
    },
  };
}

const CURSOR_PREFIX = "toolwire:after:";

/**
 * One page of a list sorted by `keyOf`, or `undefined` for a cursor this server did not issue.
 * The cursor names the last entry already listed, so a page never repeats or skips an entry
 * that survived a change to the list in between.
 */
export function pageOf<T>(
  entries: readonly T[],
  cursor: unknown,
  pageSize: number,
  keyOf: (entry: T) => string,
): { page: T[]; nextCursor?: string } | undefined {
  let rest = entries;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    if (after === undefined) return undefined;
    rest = entries.filter((entry) => keyOf(entry) > after);
  }
  const page = rest.slice(0, pageSize);
  const last = page.at(-1);
  if (rest.length <= pageSize || last === undefined) return { page };
  return { page, nextCursor: btoa(CURSOR_PREFIX + encodeURIComponent(keyOf(last))) };
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
