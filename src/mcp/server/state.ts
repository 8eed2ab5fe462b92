// What one handler remembers between requests, and for whom: sessions (bound to the identity
// that created them), the running calls `notifications/cancelled` can stop (with the cap on how
// many may run), and the questions waiting for a client's answer. Everything lives in the
// process or isolate that created the handler (see `docs/design.md`, "Serving MCP").

import type { ToolInfo } from "../../declaration/tool-info.ts";
import type { Toolset } from "../../toolset/toolset.ts";
import { type JsonRpcId, type JsonRpcResponse, jsonRpcNotification } from "../json-rpc.ts";
import type { McpLoggingLevel } from "../protocol.ts";
import type { OriginPolicy, ResolvedOptions } from "./handler.ts";
import type { SseWriter } from "./http.ts";
import type { StateCodec } from "./mrtr.ts";
import type { ProtectedResource } from "./protected-resource.ts";
import type { Listen } from "./rpc-2026.ts";
import type { ServedSources } from "./sources.ts";

/** What one handler keeps between requests. */
export interface ServerState {
  /** The served toolset (never shut down by the server). */
  readonly toolset: Toolset;
  readonly options: ResolvedOptions;
  /** Host/Origin checks and CORS. */
  readonly policy: OriginPolicy;
  /** Live sessions, in `memory` mode. */
  readonly sessions: SessionStore | undefined;
  /** Questions waiting for the client's answer. */
  readonly pending: PendingRequests;
  /** Running `tools/call` requests. */
  readonly inFlight: InFlightCalls;
  /** Signs and verifies the 2026 `requestState`. */
  readonly stateCodec: StateCodec;
  /** Open 2026 `subscriptions/listen` streams. */
  readonly listens: Set<Listen>;
  /** The served tools' declarations as last listed. */
  readonly declarations: Declarations;
  /** The resources, templates and prompts served beside the tools. */
  readonly sources: ServedSources;
  /** The protected-resource metadata and challenges, with `resourceMetadata`. */
  readonly protectedResource: ProtectedResource | undefined;
  /** Reports a failure the client only sees as a generic answer; never throws. */
  report(error: unknown, phase: "authorize" | "request" | "tool", request: () => Request): void;
}

/** What one POST is answered with and on behalf of. */
export interface RequestScope {
  /** The session, in `memory` mode after `initialize`. */
  readonly session: Session | undefined;
  /** The revision in use: the `MCP-Protocol-Version` header, else the session's. */
  readonly protocolVersion: string | undefined;
  /** Headers every response to this POST carries (CORS). */
  readonly headers: Headers;
  /** What `authorize` returned (`undefined` without an authorizer); the tool's `ctx.auth`. */
  readonly auth: unknown;
  /** The caller's identity key (see `identityOf`); `undefined` for an anonymous caller. */
  readonly identity: string | undefined;
  /** The HTTP request, built on demand for `onError`. */
  readonly request: () => Request;
  /** Calls `listener` once when the client goes away; returns the function that stops it. */
  readonly onAbort: (listener: () => void) => () => void;
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
 * The client capabilities the server acts on; nothing else of `initialize`'s `capabilities`
 * is kept, so a session costs the same whatever the client declared.
 */
export interface ClientCapabilities {
  /** Elicitation in form mode (2025-11-25 lists modes; an empty object means form). */
  readonly elicitation: boolean;
  /** Any `sampling` object. */
  readonly sampling: boolean;
}

/** Reads the capabilities the server needs from `initialize`'s `capabilities`. */
export function readClientCapabilities(value: unknown): ClientCapabilities {
  const record = isObject(value) ? value : {};
  const elicitation = record.elicitation;
  return {
    elicitation:
      isObject(elicitation) && (Object.keys(elicitation).length === 0 || "form" in elicitation),
    sampling: isObject(record.sampling),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the server remembers about one initialized client. */
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

/** The most resource URIs one session may subscribe to. */
export const MAX_SUBSCRIPTIONS = 1024;

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
  /** Ends a session; returns whether it existed. */
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
    if (identity !== undefined) {
      const left = (held.get(identity) ?? 1) - 1;
      if (left > 0) held.set(identity, left);
      else held.delete(identity);
    }
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

/**
 * Running `tools/call` requests, by owner and JSON-RPC id. The owner is the session id with
 * sessions, else the caller's identity, so a cancellation only ever reaches the caller's own
 * calls. A call without an owner (an anonymous caller without a session, whom nothing tells
 * apart from another, or any 2026 call, which is cancelled by closing its request) is counted
 * but no `cancel` reaches it.
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
  const release = (counts: Map<string, number>, key: string) => {
    const left = (counts.get(key) ?? 1) - 1;
    if (left > 0) counts.set(key, left);
    else counts.delete(key);
  };
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
      if (owner === undefined) {
        let registered = true;
        return () => {
          if (!registered) return;
          registered = false;
          total--;
          if (identity !== undefined) release(perCaller, identity);
        };
      }
      const key = keyOf(owner, id);
      const set = calls.get(key) ?? new Set();
      set.add(controller);
      calls.set(key, set);
      perOwner.set(owner, ownerCount + 1);
      let registered = true;
      return () => {
        if (!registered) return;
        registered = false;
        total--;
        if (identity !== undefined) release(perCaller, identity);
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
 * The served toolset's declarations as last listed. A 2026 `tools/call` reads the called tool's
 * schema (its `x-mcp-header` arguments) from here instead of listing the toolset for every call:
 * a toolset over a remote server lists its upstream each time its list is stale (at once, for a
 * server whose `ttlMs` is 0), so a gateway would send `tools/list` upstream before each call.
 * Every `tools/list` a client sends lists the toolset afresh; `McpHandler.toolsChanged` forgets.
 */
export interface Declarations {
  /** Lists the toolset and keeps what it listed. */
  list(): Promise<ToolInfo[]>;
  /** Returns a tool's declaration from the last list; lists first when it names none such. */
  find(name: string): Promise<ToolInfo | undefined>;
  /** Returns a tool's declaration from the last list, without listing. */
  known(name: string): ToolInfo | undefined;
  /** Forgets the last list: the toolset changed. */
  forget(): void;
}

/** Creates the declaration memory of one handler's toolset. */
export function createDeclarations(toolset: Toolset): Declarations {
  let known: Map<string, ToolInfo> | undefined;
  // One listing at a time serves every call that waits for it.
  let listing: Promise<ToolInfo[]> | undefined;
  const list = () => {
    listing ??= toolset
      .listTools()
      .then((tools) => {
        known = new Map(tools.map((info) => [info.name, info]));
        return tools;
      })
      .finally(() => {
        listing = undefined;
      });
    return listing;
  };
  return {
    list,
    async find(name) {
      const found = known?.get(name);
      if (found) return found;
      await list();
      return known?.get(name);
    },
    known: (name) => known?.get(name),
    forget() {
      known = undefined;
    },
  };
}
