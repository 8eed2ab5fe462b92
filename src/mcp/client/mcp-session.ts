import { ToolError, unreachable } from "../../errors.ts";
import {
  classifyJsonRpc,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcRequest,
  jsonRpcNotification,
  jsonRpcRequest,
} from "../json-rpc.ts";
import {
  describeError,
  httpFailure,
  parseJsonText,
  protocolError,
  sessionError,
} from "./session-error.ts";
import { readSseMessages } from "./sse-reader.ts";
import { untilAborted } from "./until-aborted.ts";

/** Server message type: what a server may send on a request's stream besides the response. */
export type ServerMessage =
  | { type: "request"; message: JsonRpcRequest }
  | { type: "notification"; message: JsonRpcNotification };

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
    try {
      if (type.startsWith("text/event-stream") && response.body) {
        for await (const event of readSseMessages(response.body, signal ? { signal } : {})) {
          if (event.data === "") continue;
          const outcome = this.#route(parseJsonText(event.data), id, method, options);
          if (outcome) return outcome;
        }
        throw new ToolError({
          type: "transport",
          tool: label,
          message: `the ${method} stream ended before its response`,
        });
      }
      if (type.startsWith("application/json")) {
        const body = parseJsonText(await untilAborted(response.text(), options));
        for (const value of Array.isArray(body) ? body : [body]) {
          const outcome = this.#route(value, id, method, options);
          if (outcome) return outcome;
        }
      }
      throw protocolError(`${method} got no JSON-RPC response (HTTP ${response.status}, ${type})`);
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

  #route(
    value: unknown,
    id: number,
    method: string,
    options: SessionRequestOptions,
  ): Record<string, unknown> | undefined {
    const classified = classifyJsonRpc(value);
    switch (classified.type) {
      case "response": {
        const { message } = classified;
        if (message.id !== id) return undefined;
        if ("error" in message) {
          const { code, message: text } = message.error;
          throw protocolError(`${method} failed: ${text} (JSON-RPC error ${code})`);
        }
        return message.result;
      }
      case "request":
      case "notification":
        options.onMessage?.(classified);
        return undefined;
      case "invalid":
        throw protocolError(`${method}: the server sent ${classified.error.error.message}`);
      default:
        return unreachable(classified);
    }
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
