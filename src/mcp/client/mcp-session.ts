import { ToolError } from "../../errors.ts";
import {
  type JsonRpcMessage,
  type JsonRpcParams,
  jsonRpcNotification,
  jsonRpcRequest,
} from "../json-rpc.ts";
import { type AwaitedResponse, routeMessage, type ServerMessage } from "./route-message.ts";
import {
  describeError,
  httpFailure,
  parseJsonText,
  protocolError,
  rpcFailure,
  sessionError,
} from "./session-error.ts";
import { readSseMessages } from "./sse-reader.ts";
import { untilAborted } from "./until-aborted.ts";

/** Session request options interface. */
export interface SessionRequestOptions {
  /** Aborts the exchange; it rejects with the signal's reason when that is a `ToolError`. */
  signal?: AbortSignal;
  /** Receives the server's requests and notifications that arrive before the response. */
  onMessage?(message: ServerMessage): void;
  /** The tool or operation named in errors. */
  label: string;
}

// Hint: the session DELETE and the cancellation notice are bounded so shutdown cannot hang.
const CLOSE_TIMEOUT_MS = 5000;

/**
 * One MCP client session over Streamable HTTP: every JSON-RPC message is its own POST, answered
 * with JSON or an SSE stream; `MCP-Protocol-Version` and `Mcp-Session-Id` (taken only from the
 * answer to `initialize`) are sent once known, and `close()` ends the session with one DELETE.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */
export class McpSession {
  readonly #url: string;
  readonly #headers: Headers;
  readonly #fetch: typeof fetch | undefined;
  readonly #notices = new Set<Promise<void>>();
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #requestHeaders: Headers | undefined;
  #nextId = 0;
  #closing: Promise<void> | undefined;

  /**
   * Creates a session that has not talked to the server yet.
   *
   * @param url The MCP endpoint.
   * @param headers Caller headers, sent verbatim with every request.
   * @param fetchImpl The `fetch` to use; `globalThis.fetch` at call time when absent.
   */
  constructor(url: string, headers: Headers, fetchImpl: typeof fetch | undefined) {
    this.#url = url;
    this.#headers = headers;
    this.#fetch = fetchImpl;
  }

  /** The server-issued session id, once the server gave one. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /**
   * Sets the negotiated protocol version, sent as `MCP-Protocol-Version` from now on.
   *
   * @param version The version the server answered `initialize` with.
   */
  useProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#requestHeaders = undefined;
  }

  /**
   * Returns a fresh request id.
   *
   * @returns An id no other request of this session uses.
   */
  newRequestId(): number {
    this.#nextId += 1;
    return this.#nextId;
  }

  /**
   * Sends a request and returns its result, routing other messages of its stream to `onMessage`.
   *
   * @param id The id from `newRequestId`.
   * @param method The method.
   * @param params Its params.
   * @param options Signal, message listener and label.
   * @returns The result object.
   * @throws ToolError `protocol` for a JSON-RPC error or a malformed answer, `transport` for a
   * network or HTTP failure, or the signal's reason.
   */
  async request(
    id: number,
    method: string,
    params: JsonRpcParams,
    options: SessionRequestOptions,
  ): Promise<Record<string, unknown>> {
    const { signal, label } = options;
    signal?.throwIfAborted();
    const response = await this.#post(jsonRpcRequest(id, method, params), options);
    const type = (response.headers.get("content-type") ?? "").toLowerCase();
    // Hint: `id: null` is the spec's answer to a request the server could not read; when the
    // awaited response never comes, that error says why better than its absence does.
    const awaited: AwaitedResponse = { id, method, onMessage: options.onMessage };
    const stream = type.startsWith("text/event-stream") ? response.body : null;
    try {
      if (stream) {
        for await (const event of readSseMessages(stream, signal ? { signal } : {})) {
          if (event.data === "") continue;
          const outcome = routeMessage(parseJsonText(event.data), awaited);
          if (outcome) return outcome;
        }
      } else if (type.startsWith("application/json")) {
        const body = parseJsonText(await untilAborted(response.text(), options));
        for (const value of Array.isArray(body) ? body : [body]) {
          const outcome = routeMessage(value, awaited);
          if (outcome) return outcome;
        }
      }
      if (awaited.stray) throw rpcFailure(method, awaited.stray, " with id null");
      if (!stream) {
        throw protocolError(
          `${method} got no JSON-RPC response (HTTP ${response.status}, ${type})`,
        );
      }
      throw new ToolError({
        type: "transport",
        tool: label,
        message: `the ${method} stream ended before its response`,
      });
    } catch (error) {
      throw sessionError(error, options);
    } finally {
      // Hint: cancelling a body already read fails with a costly TypeError; skip it then.
      if (!response.bodyUsed) response.body?.cancel().catch(() => {});
    }
  }

  /**
   * Sends a notification or a response to a server request; the server answers 202.
   *
   * @param message The message.
   * @param options Signal and label.
   * @throws ToolError `transport` for a network or HTTP failure, or the signal's reason.
   */
  async send(
    message: JsonRpcMessage,
    options: { signal?: AbortSignal; label: string },
  ): Promise<void> {
    options.signal?.throwIfAborted();
    const response = await this.#post(message, options);
    response.body?.cancel().catch(() => {});
  }

  /**
   * Sends `notifications/cancelled` for a request, bounded to one second; `close()` waits for it.
   *
   * @param requestId The request to cancel.
   * @param reason Why, when known.
   * @param label The tool named in errors.
   */
  cancelRequest(requestId: number, reason: string | undefined, label: string): Promise<void> {
    const params: JsonRpcParams = reason === undefined ? { requestId } : { requestId, reason };
    const notice = this.send(jsonRpcNotification("notifications/cancelled", params), {
      signal: AbortSignal.timeout(1000),
      label,
    }).catch(() => {
      // Hint: the call has already failed locally; a lost notice only leaves server work running.
    });
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
      await Promise.all(this.#notices);
      if (this.#sessionId === undefined) return;
      const signal = AbortSignal.timeout(CLOSE_TIMEOUT_MS);
      const fetchImpl = this.#fetch ?? globalThis.fetch;
      let response: Response;
      try {
        response = await untilAborted(
          fetchImpl(this.#url, {
            method: "DELETE",
            headers: this.#headersFor(),
            redirect: "manual",
            signal,
          }),
          { signal },
        );
      } catch (error) {
        const why = signal.aborted
          ? `timed out after ${CLOSE_TIMEOUT_MS / 1000} s`
          : describeError(error);
        throw new ToolError(
          { type: "transport", message: `closing the MCP session failed: ${why}` },
          { cause: error },
        );
      }
      response.body?.cancel().catch(() => {});
      if (!response.ok && response.status !== 404 && response.status !== 405) {
        throw new ToolError({
          type: "transport",
          message: `closing the MCP session failed: HTTP ${response.status}`,
        });
      }
    })();
    return this.#closing;
  }

  async #post(
    message: JsonRpcMessage,
    options: { signal?: AbortSignal; label: string },
  ): Promise<Response> {
    const fetchImpl = this.#fetch ?? globalThis.fetch;
    const init: RequestInit = {
      method: "POST",
      headers: this.#headersFor(),
      body: JSON.stringify(message),
      // Hint: a redirect would resend the body and the caller's headers to a host they did not
      // name (SSRF, leaked keys); "manual" rather than "error", which Workers do not support.
      redirect: "manual",
    };
    if (options.signal) init.signal = options.signal;
    let response: Response;
    try {
      response = await untilAborted(fetchImpl(this.#url, init), options);
    } catch (error) {
      throw sessionError(error, options);
    }
    if (!response.ok) {
      throw await httpFailure(response, { ...options, expired: this.#sessionId !== undefined });
    }
    const issued = response.headers.get("mcp-session-id");
    // Hint: only initialize's answer (no version yet) names the session; a later id is ignored.
    if (issued !== null && this.#sessionId === undefined && this.#protocolVersion === undefined) {
      this.#sessionId = issued;
      this.#requestHeaders = undefined;
    }
    return response;
  }

  // Hint: one immutable snapshot per session state; a new one replaces it when the id or the
  // version is learned, so a request in flight never sees its headers change.
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
}
