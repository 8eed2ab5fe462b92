// One MCP client connection over Streamable HTTP, in either era: 2025-06-18/2025-11-25 (a
// session opened by `initialize`, its id and version in headers) or 2026-07-28 (no session:
// the `_meta` envelope and the routing headers on every request). Every JSON-RPC message is
// its own POST, answered with JSON or a server-sent event stream. This file is the client's
// whole HTTP exchange: headers, deadlines, bounded reads, routing of what arrives on a
// request's stream, and the errors (redacted) a failed exchange becomes. The tool and call
// layers above only see `request`, `send`, `cancelRequest` and `close`. See `docs/design.md`,
// "Consuming MCP".

import { cancelledError, raceSignal, watchAbort } from "../../abort.ts";
import {
  errorText,
  isToolError,
  ToolError,
  type ToolErrorInput,
  unreachable,
} from "../../errors.ts";
import type { Observation, Observer } from "../../observer.ts";
import {
  credentialsOf,
  excerpt,
  NO_REDIRECT,
  redactUrl,
  refusedRedirect,
  scrub,
  scrubEchoes,
  scrubValue,
} from "../../redaction.ts";
import { readSseEvents } from "../../sse/sse-parser.ts";
import {
  type ClassifiedMessage,
  classifyJsonRpc,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcRequest,
  jsonRpcNotification,
  jsonRpcRequest,
} from "../json-rpc.ts";
import { MCP_ERROR, META } from "../protocol.ts";
import { type Reopened, resumableEvents } from "./resumable-stream.ts";

/**
 * What `connectMcp` needs to authorize its HTTP requests; `oauth()` from `toolwire/oauth` makes
 * one (the MCP authorization flow), or write your own for another scheme.
 */
export interface McpAuth {
  /**
   * The `Authorization` header value for a request to `resource` (the MCP endpoint URL), or
   * undefined before sign-in. Called before every HTTP request the connection makes.
   */
  authorization(resource: URL, signal: AbortSignal): Promise<string | undefined>;
  /**
   * The server answered 401, or 403 with `insufficient_scope`: obtain new credentials (discover,
   * register, sign in, refresh, step up) and resolve to have the request retried once; reject
   * with a `ToolError` (never carrying a token or code) when it cannot.
   */
  unauthorized(challenge: McpAuthChallenge, signal: AbortSignal): Promise<void>;
}

/** The refusal `McpAuth.unauthorized` is asked to resolve. */
export interface McpAuthChallenge {
  /** The MCP endpoint URL that refused the request. */
  resource: URL;
  /** 401, or 403 (`insufficient_scope`). */
  status: number;
  /** The refusal's `WWW-Authenticate` header, or null when it had none. */
  wwwAuthenticate: string | null;
  /**
   * The `Authorization` value the refused request carried, if any: a refusal of a value that
   * has since been replaced (a concurrent sign-in) needs only the retry.
   */
  authorization?: string | undefined;
}

/** What a server may send on a request's stream besides the response. */
export type ServerMessage =
  | { type: "request"; message: JsonRpcRequest }
  | { type: "notification"; message: JsonRpcNotification };

/** Options of one exchange. */
export interface SessionRequestOptions {
  /** Aborts the exchange; it rejects with the signal's reason when that is a `ToolError`. */
  signal?: AbortSignal;
  /** Receives the server's requests and notifications that arrive before the response. */
  onMessage?(message: ServerMessage): void;
  /** The tool or operation named in errors. */
  label: string;
  /** Extra request headers (2026-07-28 `Mcp-Param-*`), already encoded. */
  headers?: Record<string, string>;
  /** The exchange's deadline, stopped while `McpAuth.unauthorized` signs in. */
  deadline?: Deadline;
  /** 2026-07-28 capabilities this request declares on top of the connection's. */
  capabilities?: Record<string, unknown>;
  /** The operation this request runs inside (a tool call's), for the `observer`. */
  parent?: Observation | undefined;
  /**
   * A JSON answer still on its way when `signal` aborts is read anyway, for up to a second and
   * `maxMessageBytes`, and returned: a 2026 `tools/call` that declared the Tasks extension may
   * have created a task that only its handle names (design.md M16, Cancel). Until such an answer
   * begins to arrive the abort still closes the request, and an event stream is closed at once.
   */
  lateAnswer?: boolean;
}

/** A deadline that can stop while the user signs in, and starts over after. */
export interface Deadline {
  pause(): void;
  resume(): void;
}

/** What a 2026-07-28 request declares and sends in its `_meta` envelope. */
export interface ModernEnvelope {
  version: string;
  capabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string };
}

/** The HTTP status a failed exchange got, and the JSON-RPC error it carried, if any. */
export interface RpcErrorDetail {
  status: number;
  code?: number;
  data?: unknown;
}

// What the server answered behind a `protocol` or `transport` error, for the era probe.
const rpcDetails = new WeakMap<ToolError, RpcErrorDetail>();

/** Returns the HTTP status and JSON-RPC error (code, data) a failed exchange got. */
export function rpcErrorOf(error: unknown): RpcErrorDetail | undefined {
  return error instanceof ToolError ? rpcDetails.get(error) : undefined;
}

// What a request's params already carry in `_meta`, or nothing.
function metaOf(params: JsonRpcParams): Record<string, unknown> {
  const own = params._meta;
  return typeof own === "object" && own !== null ? (own as Record<string, unknown>) : {};
}

/** Default cap of one response body, SSE line or SSE event: 4 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Default cap of replies to the server's own requests waiting to be sent: 256. */
export const DEFAULT_MAX_PENDING_REPLIES = 256;

// Replies to the server's requests (pings, refusals) are POSTs of their own; this many go at
// once, the rest wait in order, so a flood of 10,000 pings neither opens 10,000 requests nor
// keeps a call's or the listing's own requests from going out.
const REPLIES_IN_FLIGHT = 4;

// The session DELETE is bounded so shutdown cannot hang; a cancellation notice gets a second.
const CLOSE_TIMEOUT_MS = 5000;
const CANCEL_TIMEOUT_MS = 1000;
// The most of an error body that is read: enough for the 200-character excerpt shown.
const ERROR_BODY_BYTES = 1024;

/**
 * One MCP client session: `MCP-Protocol-Version` and `Mcp-Session-Id` (taken only from the
 * answer to `initialize`) are sent once known, and `close()` ends the session with one DELETE.
 * Every failure is a `ToolError` whose text has been scrubbed of the URL's query and
 * credentials and of every header value the caller passed (design.md M4).
 */
export class McpSession {
  readonly #url: string;
  readonly #headers: Headers;
  readonly #fetch: typeof fetch | undefined;
  readonly #maxBytes: number;
  readonly #auth: McpAuth | undefined;
  #secrets: readonly string[];
  readonly #notices = new Set<Promise<void>>();
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #modern: ModernEnvelope | undefined;
  #requestHeaders: Headers | undefined;
  #nextId = 0;
  #closing: Promise<void> | undefined;
  // The `onMessage` of each request in flight, oldest first: the standalone stream's messages
  // go to the oldest call that can take them.
  readonly #listening = new Set<(message: ServerMessage) => void>();
  #standalone: AbortController | undefined;
  #listen: AbortController | undefined;
  readonly #replies: Array<() => Promise<void>> = [];
  #repliesInFlight = 0;

  /**
   * Most replies to the server's own requests that wait to be sent (`maxPendingReplies`);
   * past it a request gets no answer, as from a busy client.
   */
  maxPendingReplies = DEFAULT_MAX_PENDING_REPLIES;

  /**
   * @param url The MCP endpoint; its query and user info count as credentials.
   * @param headers Caller headers, sent verbatim with every request; their values count as
   * credentials.
   * @param fetchImpl The `fetch` to use; `globalThis.fetch` at call time when absent.
   * @param maxMessageBytes Cap of one response body, SSE line or SSE event (default 4 MiB).
   * @param auth Gives each request its `Authorization` header and signs in again on a refusal.
   */
  constructor(
    url: string,
    headers: Headers,
    fetchImpl: typeof fetch | undefined,
    maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
    auth?: McpAuth,
  ) {
    this.#url = url;
    this.#auth = auth;
    this.#headers = headers;
    this.#fetch = fetchImpl;
    this.#maxBytes = maxMessageBytes;
    this.#secrets = credentialsOf({ url, headers });
  }

  /** The server-issued session id, once the server gave one. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** The URL fit to show: no user info, query or fragment. */
  get origin(): string {
    return redactUrl(this.#url);
  }

  /** Returns `text` with every credential the client sends scrubbed out. */
  scrub(text: string): string {
    return scrub(text, this.#secrets);
  }

  /**
   * Returns what a server sent, to be shown to the caller (a log line, a question), with every
   * string and key scrubbed of the credentials: a hostile server may echo them. Unchanged when
   * the client sends none.
   */
  scrubValue<T>(value: T): T {
    return this.#secrets.length === 0 ? value : scrubValue(value, this.#secrets);
  }

  /**
   * Returns data a server sent that reaches the model and the run's events (a listed tool, a
   * result) as it is, unless it echoes a credential: then scrubbed like `scrubValue`.
   */
  scrubEchoes<T>(value: T): T {
    return scrubEchoes(value, this.#secrets);
  }

  /** The credentials the client sends, longest first: scrub with them before cutting a text. */
  get secrets(): readonly string[] {
    return this.#secrets;
  }

  /**
   * Returns the error the client reports for `error`: a `ToolError` with every text scrubbed
   * of the credentials, anything else as a scrubbed `transport` error.
   */
  scrubError(error: unknown): ToolError {
    if (isToolError(error)) return scrubError(error, this.#secrets);
    return new ToolError({ type: "transport", message: this.scrub(errorText(error)) });
  }

  /** Sets the negotiated protocol version, sent as `MCP-Protocol-Version` from now on. */
  useProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#requestHeaders = undefined;
  }

  /**
   * Speaks 2026-07-28 from now on: every request carries the envelope in `params._meta` and
   * the headers `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`; there is no session, so
   * no session id is taken, no cancellation notice is sent (aborting the request is the
   * cancel) and `close()` sends nothing.
   */
  useModernProtocol(envelope: ModernEnvelope | undefined): void {
    this.#modern = envelope;
    this.#protocolVersion = envelope?.version;
    this.#requestHeaders = undefined;
  }

  /** Whether the 2026 server said it announces tool list changes (`tools.listChanged`). */
  announcesToolChanges = false;

  /** Told of every request this session sends (`connectMcp`'s `observer`). */
  observer: Observer | undefined;

  /** Whether requests use the 2026-07-28 envelope. */
  get modern(): boolean {
    return this.#modern !== undefined;
  }

  /** Returns a request id no other request of this session uses. */
  newRequestId(): number {
    this.#nextId += 1;
    return this.#nextId;
  }

  /**
   * Sends a request with a fresh id under a total deadline (initialize, one tools/list page).
   *
   * @throws ToolError `timeout` (`timeoutMs` in milliseconds) or `cancelled` through the
   * deadline, or what `request` throws.
   */
  requestWithin(
    method: string,
    params: JsonRpcParams,
    options: { timeoutMs: number; signal?: AbortSignal | undefined },
  ): Promise<Record<string, unknown>> {
    return withDeadline(
      method,
      options.timeoutMs,
      (signal, deadline) =>
        this.request(this.newRequestId(), method, params, { signal, label: method, deadline }),
      options.signal,
    );
  }

  /**
   * Sends a request and returns its result, routing other messages of its stream to
   * `onMessage` (their text scrubbed of the client's credentials).
   *
   * @throws ToolError `protocol` for a JSON-RPC error or a malformed answer, `transport` for a
   * network or HTTP failure or a body, SSE line or SSE event over `maxMessageBytes`, or the
   * signal's reason.
   */
  async request(
    id: number,
    method: string,
    params: JsonRpcParams,
    options: SessionRequestOptions,
  ): Promise<Record<string, unknown>> {
    const { signal } = options;
    let response: Response | undefined;
    const late = options.lateAnswer && signal ? lateAnswer(signal) : undefined;
    const listener = options.onMessage;
    if (listener) this.#listening.add(listener);
    const observed = this.observer?.start(
      {
        type: "mcp_request",
        side: "client",
        method,
        id,
        params: this.scrubValue(params),
        protocolVersion: this.#protocolVersion,
        sessionId: this.#sessionId,
        endpoint: this.origin,
      },
      options.parent,
    );
    try {
      signal?.throwIfAborted();
      const envelope = this.#modern && {
        ...this.#modern,
        capabilities: { ...options.capabilities, ...this.#modern.capabilities },
      };
      let sent = envelope ? this.#enveloped(params, envelope) : params;
      // The trace context rides in `_meta` (SEP-414), beside the envelope and `progressToken`.
      if (observed?.meta) sent = { ...sent, _meta: { ...metaOf(sent), ...observed.meta } };
      const transport = late ? { signal: late.grace, fetchSignal: late.transport } : {};
      response = await this.#post(jsonRpcRequest(id, method, sent), {
        ...options,
        method,
        params,
        ...transport,
      });
      let reading = options;
      if (late) {
        const type = (response.headers.get("content-type") ?? "").toLowerCase();
        if (type.startsWith("application/json")) {
          late.keep();
          reading = { ...options, signal: late.grace };
        } else {
          signal?.throwIfAborted();
        }
      }
      const result = await this.#awaitResponse(
        response,
        { id, method, onMessage: options.onMessage },
        reading,
      );
      if (this.#modern) checkResultType(method, result, this.#secrets);
      observed?.end({ type: "done", result: this.scrubValue(result) });
      return result;
    } catch (error) {
      const failure = this.#failure(error, options);
      observed?.end({ type: "failed", error: failure, code: rpcDetails.get(failure)?.code });
      throw failure;
    } finally {
      late?.dispose();
      if (listener) this.#listening.delete(listener);
      // Cancelling a body already read fails with a costly TypeError; skip it then.
      if (response && !response.bodyUsed) response.body?.cancel().catch(() => {});
    }
  }

  /**
   * Sends a notification or a response to a server request; the server answers 202.
   *
   * @throws ToolError `transport` for a network or HTTP failure, or the signal's reason.
   */
  async send(
    message: JsonRpcMessage,
    options: { signal?: AbortSignal; label: string },
  ): Promise<void> {
    try {
      options.signal?.throwIfAborted();
      const response = await this.#post(message, options);
      response.body?.cancel().catch(() => {});
    } catch (error) {
      throw this.#failure(error, options);
    }
  }

  /**
   * Sends a reply to a request the server sent (a ping's answer, a refusal), four at a time
   * per session, in order. A reply whose signal has aborted by its turn is not sent; past
   * `maxPendingReplies` waiting, a reply is dropped (the server's request goes unanswered, as
   * from a busy client), so a flood costs bounded memory and requests.
   *
   * @throws ToolError what `send` throws for a reply that was sent and failed.
   */
  reply(message: JsonRpcMessage, options: { signal?: AbortSignal; label: string }): Promise<void> {
    return this.#queueReply(() =>
      options.signal?.aborted ? Promise.resolve() : this.send(message, options),
    );
  }

  #queueReply(send: () => Promise<void>): Promise<void> {
    if (this.#closing || this.#replies.length >= this.maxPendingReplies) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#replies.push(() => send().then(resolve, reject));
      this.#sendReplies();
    });
  }

  #sendReplies(): void {
    while (this.#repliesInFlight < REPLIES_IN_FLIGHT && this.#replies.length > 0) {
      const next = this.#replies.shift() as () => Promise<void>;
      this.#repliesInFlight += 1;
      void next().finally(() => {
        this.#repliesInFlight -= 1;
        this.#sendReplies();
      });
    }
  }

  /**
   * Sends `notifications/cancelled` for a request, bounded to one second; `close()` waits for
   * it. A lost notice only leaves server work running: the call has already failed locally.
   */
  cancelRequest(requestId: number, reason: string | undefined, label: string): Promise<void> {
    // In 2026-07-28 the aborted request itself is the cancel; there is nothing to send.
    if (this.#modern) return Promise.resolve();
    const params: JsonRpcParams = reason === undefined ? { requestId } : { requestId, reason };
    const message = jsonRpcNotification("notifications/cancelled", params);
    const notice = withTimer(CANCEL_TIMEOUT_MS, (signal) =>
      this.send(message, { signal, label }),
    ).catch(() => {});
    this.#notices.add(notice);
    void notice.finally(() => this.#notices.delete(notice));
    return notice;
  }

  /**
   * Sends `tasks/cancel` for a task this client started, bounded to one second; `close()` waits
   * for it. Fire and forget: a task is cancelled cooperatively, and nothing waits for its
   * `cancelled` status. `capabilities` are the request's own (the Tasks extension in 2026).
   */
  cancelTask(taskId: string, label: string, capabilities?: Record<string, unknown>): Promise<void> {
    const params = { taskId };
    const notice = withTimer(CANCEL_TIMEOUT_MS, (signal) =>
      this.request(this.newRequestId(), "tasks/cancel", params, {
        signal,
        label,
        ...(capabilities ? { capabilities } : {}),
      }),
    ).then(
      () => {},
      () => {},
    );
    this.#notices.add(notice);
    void notice.finally(() => this.#notices.delete(notice));
    return notice;
  }

  /**
   * Ends the session: waits for pending cancellation notices, then sends DELETE once (when the
   * server issued a session id), bounded to five seconds. 404 and 405 count as success.
   *
   * @returns The same promise for every call.
   * @throws ToolError `transport` when the DELETE fails or times out.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#standalone?.abort();
      this.#listen?.abort();
      await Promise.all(this.#notices);
      if (this.#sessionId === undefined) return;
      const fail = (why: string) =>
        new ToolError({
          type: "transport",
          message: this.scrub(`closing the MCP session failed: ${why}`),
        });
      const headers = this.#headersFor();
      const response = await withTimer(CLOSE_TIMEOUT_MS, async (signal) => {
        try {
          // No sign-in to close: a user should not be sent to an authorization page by a
          // shutdown, and the five seconds would cut it short anyway.
          return await this.#fetchAuthorized({ method: "DELETE", headers }, signal, undefined, {
            signIn: false,
          });
        } catch (error) {
          throw fail(signal.aborted ? `timed out after ${CLOSE_TIMEOUT_MS} ms` : describe(error));
        }
      });
      response.body?.cancel().catch(() => {});
      if (!response.ok && response.status !== 404 && response.status !== 405) {
        throw fail(`HTTP ${response.status}`);
      }
    })();
    return this.#closing;
  }

  /**
   * Opens the 2025 standalone GET stream, where a server may send requests and notifications
   * that belong to no request's stream (a question asked outside a call's stream, a log line).
   * It is opened with or without a session id: a server that issued none may still have the
   * stream (`@hono/mcp`'s default transport sends a tool's unrelated elicitation there). Each one goes to the oldest call in flight, as if it had come on that
   * call's stream; with no call in flight a `ping` is answered and any other request refused
   * (method not found). A server without the stream (405, or no event stream) is fine; the
   * stream is not reopened once it ends, and `close()` ends it. Each event is capped at
   * `maxMessageBytes`.
   */
  openStandaloneStream(): void {
    if (this.#modern || this.#standalone) return;
    const controller = new AbortController();
    this.#standalone = controller;
    const { signal } = controller;
    void (async () => {
      const headers = new Headers(this.#headersFor());
      headers.set("accept", "text/event-stream");
      headers.delete("content-type");
      const response = await this.#fetchAuthorized({ method: "GET", headers }, signal);
      const type = (response.headers.get("content-type") ?? "").toLowerCase();
      if (!response.ok || !type.startsWith("text/event-stream") || !response.body) {
        response.body?.cancel().catch(() => {});
        return;
      }
      for await (const classified of this.#streamedMessages(response.body, signal)) {
        if (classified.type !== "request" && classified.type !== "notification") continue;
        const message = this.scrubValue(classified);
        const [oldest] = this.#listening;
        if (oldest) oldest(message);
        else if (message.type === "request") this.#refuseUnasked(message.message);
      }
    })().catch(() => {
      // A lost standalone stream only loses what the server would have sent unasked.
    });
  }

  // The JSON-RPC messages of a server-opened SSE stream (the standalone GET, a listen stream),
  // each event bounded like every read; events that are not JSON are skipped.
  async *#streamedMessages(
    body: ReadableStream<Uint8Array>,
    signal: AbortSignal,
  ): AsyncGenerator<ClassifiedMessage> {
    const limits = { maxLineLength: this.#maxBytes, maxDataLength: this.#maxBytes, signal };
    for await (const event of readSseEvents(body, limits)) {
      if (event.data === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(event.data);
      } catch {
        continue;
      }
      yield classifyJsonRpc(value);
    }
  }

  /**
   * Opens one 2026-07-28 `subscriptions/listen` stream for the tool list and calls `onChange`
   * for each `notifications/tools/list_changed` on it. Once it ends or fails it is not
   * reopened (the caller's freshness deadline still applies); `close()` ends it.
   */
  listenForToolChanges(onChange: () => void): void {
    if (!this.#modern || this.#listen || this.#closing) return;
    const controller = new AbortController();
    this.#listen = controller;
    const { signal } = controller;
    const method = "subscriptions/listen";
    const params = { notifications: { toolsListChanged: true } };
    const message = jsonRpcRequest(
      this.newRequestId(),
      method,
      this.#enveloped(params, this.#modern),
    );
    void (async () => {
      const response = await this.#post(message, { signal, label: method, method, params });
      const type = (response.headers.get("content-type") ?? "").toLowerCase();
      if (!type.startsWith("text/event-stream") || !response.body) {
        response.body?.cancel().catch(() => {});
        return;
      }
      for await (const classified of this.#streamedMessages(response.body, signal)) {
        if (classified.type === "response") return;
        if (classified.type !== "notification") continue;
        if (classified.message.method === "notifications/tools/list_changed") onChange();
      }
    })().catch(() => {
      // A lost listen stream only loses the early notice; the list's ttlMs still applies.
    });
  }

  // A request on the standalone stream while no call runs: there is no caller to ask.
  #refuseUnasked(request: JsonRpcRequest): void {
    const reply =
      request.method === "ping"
        ? { jsonrpc: "2.0" as const, id: request.id, result: {} }
        : {
            jsonrpc: "2.0" as const,
            id: request.id,
            error: { code: -32601, message: `${request.method}: no call is waiting for it` },
          };
    const label = "standalone stream";
    void this.#queueReply(() =>
      withTimer(CANCEL_TIMEOUT_MS, (signal) => this.send(reply, { signal, label })),
    ).catch(() => {});
  }

  // Params with the 2026-07-28 envelope in `_meta` (beside what the caller put there, such as
  // `progressToken`). Logs are asked for at `debug`, as a legacy server sends them unasked.
  #enveloped(params: JsonRpcParams, envelope: ModernEnvelope): JsonRpcParams {
    return {
      ...params,
      _meta: {
        ...metaOf(params),
        [META.protocolVersion]: envelope.version,
        [META.clientCapabilities]: envelope.capabilities,
        [META.clientInfo]: envelope.clientInfo,
        [META.logLevel]: "debug",
      },
    };
  }

  async #post(
    message: JsonRpcMessage,
    options: {
      signal?: AbortSignal;
      label: string;
      method?: string;
      params?: JsonRpcParams;
      headers?: Record<string, string>;
      deadline?: Deadline;
      fetchSignal?: AbortSignal;
    },
  ): Promise<Response> {
    const response = await this.#fetchAuthorized(
      {
        method: "POST",
        headers: this.#modern ? this.#modernHeaders(options) : this.#headersFor(),
        body: JSON.stringify(message),
      },
      options.signal,
      options.deadline,
      options.fetchSignal ? { fetchSignal: options.fetchSignal } : {},
    );
    if (!response.ok) {
      throw await this.#httpFailure(response, options, this.#sessionId !== undefined);
    }
    if (this.#modern) return response;
    const issued = response.headers.get("mcp-session-id");
    // Only initialize's answer (no version yet) names the session; a later id is ignored.
    if (issued !== null && this.#sessionId === undefined && this.#protocolVersion === undefined) {
      this.#sessionId = issued;
      this.#requestHeaders = undefined;
    }
    return response;
  }

  // One HTTP request to the endpoint. A redirect is never followed (`NO_REDIRECT`). With `auth`, the request carries its
  // `Authorization`; a 401, or a 403 with `insufficient_scope`, has `auth.unauthorized()` get
  // new credentials (the deadline stopped meanwhile) and the request goes once more; a refusal
  // after that is returned as is, to fail as HTTP 401/403 (design.md OA1, OA2). `signIn: false`
  // returns the first refusal as is. `fetchSignal`, when given, is the one `fetch` gets, and
  // `signal` only bounds the wait (`lateAnswer`).
  async #fetchAuthorized(
    init: RequestInit & { headers: Headers },
    signal: AbortSignal | undefined,
    deadline?: Deadline,
    { signIn = true, fetchSignal = signal }: { signIn?: boolean; fetchSignal?: AbortSignal } = {},
  ): Promise<Response> {
    const fetchImpl = this.#fetch ?? globalThis.fetch;
    const request: RequestInit = { ...init, redirect: NO_REDIRECT };
    if (fetchSignal) request.signal = fetchSignal;
    const auth = this.#auth;
    // A custom `fetch` may ignore the signal; the caller must not hang on it.
    if (!auth) return raceSignal(fetchImpl(this.#url, request), signal);
    const resource = new URL(this.#url);
    const authSignal = signal ?? new AbortController().signal;
    for (let attempt = 0; ; attempt++) {
      const value = await raceSignal(auth.authorization(resource, authSignal), signal);
      const headers = new Headers(init.headers);
      if (value) {
        this.#learnSecret(value);
        headers.set("authorization", value);
      }
      const response = await raceSignal(fetchImpl(this.#url, { ...request, headers }), signal);
      const challenge = response.headers.get("www-authenticate");
      const refused =
        response.status === 401 ||
        (response.status === 403 && /\binsufficient_scope\b/.test(challenge ?? ""));
      if (!refused || attempt > 0 || !signIn) return response;
      response.body?.cancel().catch(() => {});
      const status = response.status;
      deadline?.pause();
      try {
        await raceSignal(
          auth.unauthorized(
            { resource, status, wwwAuthenticate: challenge, authorization: value || undefined },
            authSignal,
          ),
          signal,
        );
      } finally {
        deadline?.resume();
      }
    }
  }

  // An `Authorization` value `auth` gave counts as a credential from now on, like a header's.
  #learnSecret(value: string): void {
    if (this.#secrets.includes(value)) return;
    this.#secrets = credentialsOf({ headers: { authorization: value }, secrets: this.#secrets });
  }

  async #awaitResponse(
    response: Response,
    awaited: AwaitedResponse,
    options: SessionRequestOptions,
  ): Promise<Record<string, unknown>> {
    const { signal } = options;
    const { method } = awaited;
    const type = (response.headers.get("content-type") ?? "").toLowerCase();
    const stream = type.startsWith("text/event-stream") ? response.body : null;
    if (stream) {
      // 2025-11-25: a stream the server closes before the response (polling) or that drops
      // resumes with a GET after its last event id; 2026-07-28 has no such GET.
      const resume = {
        signal,
        label: options.label,
        method,
        maxMessageBytes: this.#maxBytes,
        reconnect: this.#modern
          ? undefined
          : (lastEventId: string) => this.#reopen(lastEventId, { ...options, method }),
      };
      try {
        for await (const event of resumableEvents(stream, resume)) {
          if (event.data === "") continue;
          const outcome = this.#route(parseJsonText(event.data, this.#secrets), awaited);
          if (outcome) return outcome;
        }
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        throw new ToolError({
          type: "transport",
          tool: options.label,
          message: `${method}: ${error.message} (maxMessageBytes); the stream was dropped`,
        });
      }
    } else if (!type.startsWith("application/json") && !type.startsWith("text/event-stream")) {
      // A web page or any other answer that is neither JSON nor an event stream: most likely
      // the URL is not an MCP endpoint (a site's home page, a sign-in page, a web UI).
      const body = await readBody(response, ERROR_BODY_BYTES, signal).catch(() => "");
      const text = excerpt(body.replace(/\s+/g, " ").trim(), this.#secrets, 160);
      if (text !== "") {
        const media = type.split(";")[0]?.trim() || "no content type";
        throw protocolError(
          `${method}: the server answered ${media} (HTTP ${response.status}), not JSON or an event stream; check that ${this.origin} is an MCP endpoint: ${text}`,
        );
      }
    } else if (type.startsWith("application/json")) {
      const text = await readBody(
        response,
        this.#maxBytes,
        signal,
        () =>
          new ToolError({
            type: "transport",
            tool: options.label,
            message: `the ${method} response body is larger than maxMessageBytes (${this.#maxBytes} bytes)`,
          }),
      );
      const body = parseJsonText(text, this.#secrets);
      for (const value of Array.isArray(body) ? body : [body]) {
        const outcome = this.#route(value, awaited);
        if (outcome) return outcome;
      }
    }
    // `id: null` is the spec's answer to a request the server could not read; when the
    // awaited response never comes, that error says why better than its absence does.
    if (awaited.stray) throw rpcFailure(method, awaited.stray, " with id null", this.#secrets);
    if (!stream) {
      throw protocolError(`${method} got no JSON-RPC response (HTTP ${response.status}, ${type})`);
    }
    throw new ToolError({
      type: "transport",
      tool: options.label,
      message: `the ${method} stream ended before its response${this.#modern ? "" : " and gave no event id to resume it from"}`,
    });
  }

  // The GET that resumes a request's stream after `lastEventId` (2025-11-25). A network
  // failure, 429 or 5xx is worth another attempt; any other refusal, or an answer that is not
  // an event stream, ends the request with a `transport` error saying why.
  async #reopen(
    lastEventId: string,
    options: { signal?: AbortSignal; label: string; method: string; deadline?: Deadline },
  ): Promise<Reopened> {
    const { method, signal } = options;
    const fail = (why: string) =>
      new ToolError({
        type: "transport",
        tool: options.label,
        message: `the ${method} stream ended before its response and could not be resumed: ${why}`,
      });
    // An id a header cannot carry (outside visible ASCII) cannot be sent back.
    if (!/^[\x20-\x7e]*$/.test(lastEventId)) throw fail("its event id is not a valid header value");
    const headers = new Headers(this.#headersFor());
    headers.set("accept", "text/event-stream");
    headers.delete("content-type");
    headers.set("last-event-id", lastEventId);
    let response: Response;
    try {
      response = await this.#fetchAuthorized({ method: "GET", headers }, signal, options.deadline);
    } catch (error) {
      if (signal?.aborted || isToolError(error)) throw error;
      return { type: "unavailable", why: `the GET failed: ${describe(error)}` };
    }
    const type = (response.headers.get("content-type") ?? "").toLowerCase();
    if (response.ok && type.startsWith("text/event-stream") && response.body) {
      return { type: "stream", body: response.body };
    }
    const { status } = response;
    if (status === 429 || status >= 500) {
      response.body?.cancel().catch(() => {});
      return { type: "unavailable", why: `the GET got HTTP ${status}` };
    }
    if (response.ok) {
      response.body?.cancel().catch(() => {});
      throw fail(`the GET got ${type.split(";")[0] || "no content type"}, not an event stream`);
    }
    if (status === 405) {
      response.body?.cancel().catch(() => {});
      throw fail("the server offers no GET stream (HTTP 405)");
    }
    const refusal = await this.#httpFailure(response, options, this.#sessionId !== undefined);
    throw fail(refusal.data.type === "transport" ? refusal.data.message : refusal.message);
  }

  // Returns the result when a message is the awaited response; routes the server's requests
  // and notifications to `onMessage` and notes an `id: null` error in `stray`.
  #route(value: unknown, awaited: AwaitedResponse): Record<string, unknown> | undefined {
    const classified = classifyJsonRpc(value);
    switch (classified.type) {
      case "response": {
        const { message } = classified;
        if (message.id === null && "error" in message) awaited.stray ??= message.error;
        if (message.id !== awaited.id) return undefined;
        if ("error" in message) {
          const failure = rpcFailure(awaited.method, message.error, "", this.#secrets);
          rpcDetails.set(failure, {
            code: message.error.code,
            data: message.error.data,
            status: 200,
          });
          throw failure;
        }
        return message.result;
      }
      case "request":
      case "notification":
        // What the server shows the caller (a log line, a question) is scrubbed too: a hostile
        // server may echo the credentials it was sent.
        awaited.onMessage?.(this.scrubValue(classified));
        return undefined;
      case "invalid":
        throw protocolError(`${awaited.method}: the server sent ${classified.error.error.message}`);
      default:
        return unreachable(classified);
    }
  }

  // A redirect is never followed (a body and headers must not reach a host the caller did not
  // name); a 404 once the server issued a session means it expired (the client does not start
  // a new one by itself); any other status shows a short excerpt of the body and, for 401, 403
  // and 404, what to check.
  async #httpFailure(
    response: Response,
    options: { signal?: AbortSignal; label: string; method?: string },
    expired: boolean,
  ): Promise<ToolError> {
    const { status } = response;
    const fail = (message: string) => {
      const error = new ToolError({ type: "transport", tool: options.label, message });
      rpcDetails.set(error, { status });
      return error;
    };
    const redirect = refusedRedirect(response, this.#url, this.#secrets);
    if (redirect) return fail(`${redirect}, so connect to the final URL`);
    if (this.#modern && (status === 400 || status === 404)) {
      const failure = await this.#rpcErrorBody(response, options);
      if (failure) return failure;
    }
    if (status === 404 && expired) {
      response.body?.cancel().catch(() => {});
      return fail("the MCP session expired (HTTP 404); connect again for a new session");
    }
    const detail = await readBody(response, ERROR_BODY_BYTES, options.signal).catch(() => "");
    const shown = detail.trim() === "" ? "" : `: ${excerpt(detail.trim(), this.#secrets)}`;
    const challenged = response.headers.has("www-authenticate");
    return fail(`HTTP ${status}${shown}${advice(status, this.#auth !== undefined, challenged)}`);
  }

  // The 2026-07-28 headers of one request: the version, `Mcp-Method`, `Mcp-Name` for the
  // methods that name a target, and the caller's `Mcp-Param-*`.
  #modernHeaders(options: {
    method?: string;
    params?: JsonRpcParams;
    headers?: Record<string, string>;
  }): Headers {
    const headers = new Headers(this.#headersFor());
    const { method, params = {} } = options;
    if (method !== undefined) {
      headers.set("mcp-method", method);
      const task = method.startsWith("tasks/");
      const target = task ? params.taskId : method === "resources/read" ? params.uri : params.name;
      // `tasks/*` name their task, so a load balancer can route to the instance holding it.
      const named =
        task || method === "tools/call" || method === "prompts/get" || method === "resources/read";
      if (named && typeof target === "string") headers.set("mcp-name", encodeHeaderValue(target));
    }
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    return headers;
  }

  // A 2026-07-28 server answers a refused request with a JSON-RPC error and 400 or 404; that is
  // the server's verdict (a `protocol` error), not a missing endpoint or an expired session.
  async #rpcErrorBody(
    response: Response,
    options: { signal?: AbortSignal; label: string; method?: string },
  ): Promise<ToolError | undefined> {
    const type = (response.headers.get("content-type") ?? "").toLowerCase();
    if (!type.startsWith("application/json")) return undefined;
    const text = await readBody(response, ERROR_BODY_BYTES * 8, options.signal).catch(() => "");
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return undefined;
    }
    const classified = classifyJsonRpc(body);
    if (classified.type !== "response" || !("error" in classified.message)) return undefined;
    const { error } = classified.message;
    const failure = rpcFailure(options.method ?? options.label, error, "", this.#secrets);
    rpcDetails.set(failure, { code: error.code, data: error.data, status: response.status });
    return failure;
  }

  // One immutable snapshot per session state; a new one replaces it when the id or the version
  // is learned, so a request in flight never sees its headers change.
  #headersFor(): Headers {
    if (this.#requestHeaders) return this.#requestHeaders;
    const headers = new Headers(this.#headers);
    headers.set("content-type", "application/json");
    headers.set("accept", "application/json, text/event-stream");
    if (this.#sessionId !== undefined) headers.set("mcp-session-id", this.#sessionId);
    if (this.#protocolVersion !== undefined) {
      headers.set("mcp-protocol-version", this.#protocolVersion);
    }
    this.#requestHeaders = headers;
    return headers;
  }

  // The error a failed exchange becomes: the signal's reason when it aborted (a `ToolError` as
  // is, anything else as `cancelled`), a `ToolError` as is, else `transport`; every text in
  // it scrubbed. The runtime's own error is not kept as `cause`: in Deno its message holds the
  // full URL, query token included.
  #failure(error: unknown, options: { signal?: AbortSignal; label: string }): ToolError {
    const { signal, label } = options;
    let found: ToolError;
    if (signal?.aborted) {
      found = isToolError(signal.reason) ? signal.reason : cancelledError(label, signal);
    } else if (isToolError(error)) {
      found = error;
    } else {
      found = new ToolError({ type: "transport", tool: label, message: describe(error) });
    }
    const clean = scrubError(found, this.#secrets);
    const detail = rpcDetails.get(found);
    if (detail && clean !== found) rpcDetails.set(clean, detail);
    return clean;
  }
}

/** The request one stream answers, and what its stream has shown. */
interface AwaitedResponse {
  id: number;
  method: string;
  onMessage?: ((message: ServerMessage) => void) | undefined;
  // The first error response with `id: null` seen so far.
  stray?: JsonRpcErrorObject;
}

/**
 * Returns the outcome of `run`, given a signal that aborts with `timeout` after `timeoutMs`
 * (reported as `timeoutMs`, in milliseconds) or with `cancelled` when the caller's signal
 * aborts. The timer and listener are removed either way.
 */
export async function withDeadline<T>(
  label: string,
  timeoutMs: number,
  run: (signal: AbortSignal, deadline: Deadline) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  if (signal?.aborted) throw cancelledError(label, signal);
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline: Deadline = {
    pause: () => clearTimeout(timer),
    resume: () => {
      clearTimeout(timer);
      if (controller.signal.aborted) return;
      timer = setTimeout(() => {
        controller.abort(new ToolError({ type: "timeout", tool: label, timeoutMs }));
      }, timeoutMs);
    },
  };
  deadline.resume();
  const onAbort = () => controller.abort(cancelledError(label, signal as AbortSignal));
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await run(controller.signal, deadline);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

// The signals of a `lateAnswer` request. `transport` is the one `fetch` gets: it aborts with
// the caller's signal until `keep()` says a JSON answer is arriving, so the abort still closes
// the request (the 2026 cancel) and any event stream, while a JSON body already on its way is
// not cut off (a fetch cancels the body of a response whose signal aborts). `grace` aborts a
// second after the caller's signal: the waits and reads go on until then, so an in-process
// `fetch` that answers after the abort, or a body still arriving, is read and returned.
function lateAnswer(signal: AbortSignal) {
  const transport = new AbortController();
  const grace = new AbortController();
  let kept = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    if (!kept) transport.abort(signal.reason);
    timer = setTimeout(() => {
      grace.abort(signal.reason);
      transport.abort(signal.reason);
    }, CANCEL_TIMEOUT_MS);
  };
  const stop = signal.aborted ? () => {} : watchAbort(signal, onAbort);
  if (signal.aborted) onAbort();
  return {
    transport: transport.signal,
    grace: grace.signal,
    keep: () => {
      kept = true;
    },
    dispose: () => {
      stop();
      clearTimeout(timer);
    },
  };
}

// Runs `run` with a signal that aborts after `ms`, then clears the timer: a plain timer rather
// than `AbortSignal.timeout`, so it never outlives the work and a test's fake clock drives it.
async function withTimer<T>(ms: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    return await run(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

// A 2026-07-28 result says what it is: `complete` (or no `resultType`, as an older server
// sends), or `input_required` or `task`, which only a call may get. Anything else is not
// understood.
function checkResultType(
  method: string,
  result: Record<string, unknown>,
  secrets: readonly string[],
): void {
  const kind = result.resultType;
  if (kind === undefined || kind === "complete") return;
  // A task handle (the Tasks extension, declared on every `tools/call`) only answers a call.
  if ((kind === "input_required" || kind === "task") && method === "tools/call") return;
  const shown = JSON.stringify(excerpt(String(kind), secrets, 40));
  throw protocolError(`${method} returned resultType ${shown}, which this client does not take`);
}

/**
 * Returns a header value for `Mcp-Name` or `Mcp-Param-*`: a string as is, an integer in
 * decimal, a boolean as `true`/`false`; a value that is not plain visible ASCII (or looks like
 * the encoded form) travels as `=?base64?…?=` of its UTF-8 bytes.
 */
export function encodeHeaderValue(value: string | number | boolean): string {
  const text = String(value);
  if (/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(text) && !text.startsWith("=?base64?")) {
    return text;
  }
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/** Creates a `protocol` error: the server answered, but not as MCP says it must. */
export function protocolError(message: string): ToolError {
  return new ToolError({ type: "protocol", message });
}

/**
 * Returns a `ToolError` whose texts (message, reason, nested errors) are scrubbed of the
 * secrets; the same error when nothing changed, so an abort reason keeps its identity.
 */
export function scrubError(error: ToolError, secrets: readonly string[]): ToolError {
  const data = error.toJSON();
  const clean = scrubValue(data, secrets);
  return JSON.stringify(clean) === JSON.stringify(data)
    ? error
    : new ToolError(clean as ToolErrorInput);
}

/**
 * Returns the `protocol` error for a JSON-RPC error the server reported inside a result (a
 * failed task's `error`), its code and data kept for `rpcErrorOf`.
 */
export function reportedRpcError(
  method: string,
  error: JsonRpcErrorObject,
  secrets: readonly string[],
): ToolError {
  const failure = rpcFailure(method, error, "", secrets);
  rpcDetails.set(failure, { code: error.code, data: error.data, status: 200 });
  return failure;
}

function rpcFailure(
  method: string,
  error: JsonRpcErrorObject,
  note: string,
  secrets: readonly string[],
): ToolError {
  const text = excerpt(String(error.message), secrets);
  const hint = error.code === MCP_ERROR.missingClientCapability ? CAPABILITY_HINT : "";
  return protocolError(`${method} failed: ${text} (JSON-RPC error ${error.code}${note})${hint}`);
}

// A 2026 server refuses a call whose tool asks for what the request did not declare; the
// declaration comes from the call's `onInteraction` or a `connectMcp` option.
const CAPABILITY_HINT =
  "; connectMcp declares form questions on the requests of a call that passes `onInteraction` (2026-07-28) or on every request with `formInteractions: true`, and sampling with `samplingInteractions: true`; the call's `onInteraction` answers them";

function parseJsonText(text: string, secrets: readonly string[]): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const shown = text.trim() === "" ? "" : `: ${excerpt(text.trim(), secrets)}`;
    throw protocolError(`the server sent invalid JSON${shown}`);
  }
}

// A thrown value's message, with its cause's when that adds something: `fetch failed` alone
// hides why (refused, DNS, TLS).
function describe(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  const message = errorText(error);
  const extra = cause instanceof Error ? cause.message : undefined;
  return extra && !message.includes(extra) ? `${message} (${extra})` : message;
}

/**
 * Reads a body as text, at most `maxBytes` of it. Past the cap the body is cancelled and the
 * read fails with `tooLarge()`, or, without it, ends with what was read (an error body, of
 * which only an excerpt is shown).
 */
export async function readBody(
  response: Response,
  maxBytes: number,
  signal: AbortSignal | undefined,
  tooLarge?: () => ToolError,
): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (tooLarge && declared > maxBytes) {
    response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const body = response.body;
  if (!body) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    for (;;) {
      const { value, done } = await raceSignal(reader.read(), signal);
      if (done) return text + decoder.decode();
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        if (tooLarge) throw tooLarge();
        return text + decoder.decode(value.subarray(0, value.byteLength - (bytes - maxBytes)));
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

// A 403 is about credentials only when it says so with a `WWW-Authenticate` challenge (RFC
// 6750's insufficient_scope); otherwise the server refused the request itself, e.g. a Host or
// Origin it does not serve, and its own words (shown before this) say why.
function advice(status: number, withAuth: boolean, challenged: boolean): string {
  const aboutCredentials = status === 401 || (status === 403 && challenged);
  if (aboutCredentials && withAuth) {
    return " (the server refused the credentials `auth` gave, signing in again did not help)";
  }
  if (aboutCredentials) {
    return " (the server refused the credentials; pass `auth` (see toolwire/oauth) or an Authorization header)";
  }
  if (status === 403) {
    return " (the server refused this request, not its credentials: a toolwire server answers this way to a Host or Origin outside `allowedHosts`/`allowedOrigins`)";
  }
  if (status === 404) return " (check the endpoint path in `url`)";
  return "";
}
