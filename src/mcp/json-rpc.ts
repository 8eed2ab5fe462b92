/** A request id: a string or a number (MCP forbids `null` on requests). */
export type JsonRpcId = string | number;

/** Named parameters; MCP never sends positional ones. */
export type JsonRpcParams = Record<string, unknown>;

/** A request: expects exactly one response carrying the same `id`. */
export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: JsonRpcParams;
}

/** A message without `id`, which gets no response. */
export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: JsonRpcParams;
}

/** What went wrong, by code. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The answer to the request with the same `id`. */
export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: Record<string, unknown>;
}

/** An error response; `id` is `null` when the request's id could not be read. */
export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

/** A success or a failure. */
export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;

/** Anything that travels in one JSON value. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** The standard JSON-RPC 2.0 error codes. */
export const JSON_RPC_ERROR = {
  /** The body is not JSON. */
  parseError: -32700,
  /** The JSON is not a valid JSON-RPC message. */
  invalidRequest: -32600,
  /** No such method. */
  methodNotFound: -32601,
  /** The method exists but its params are wrong. */
  invalidParams: -32602,
  /** The server failed while answering. */
  internalError: -32603,
} as const;

/**
 * One JSON value sorted into what it is, or the error response an
 * invalid one deserves (echoing its id when the id itself was readable).
 */
export type ClassifiedMessage =
  | { type: "request"; message: JsonRpcRequest }
  | { type: "notification"; message: JsonRpcNotification }
  | { type: "response"; message: JsonRpcResponse }
  | { type: "invalid"; error: JsonRpcFailure };

/** A parse error, one message, or a batch (an array) of messages. */
export type ParsedJsonRpc =
  | { type: "parse_error"; error: JsonRpcFailure }
  | { type: "single"; message: ClassifiedMessage }
  | { type: "batch"; messages: ClassifiedMessage[] };

/**
 * Creates a success response.
 *
 * @param id The request's id.
 * @param result The result object.
 * @returns The response message.
 */
export function jsonRpcResult(id: JsonRpcId, result: Record<string, unknown>): JsonRpcSuccess {
  return { jsonrpc: "2.0", id, result };
}

/**
 * Creates an error response.
 *
 * @param id The request's id, or `null` when it is unknown.
 * @param code One of `JSON_RPC_ERROR` or an implementation-defined code.
 * @param message A short description.
 * @param data Extra detail, omitted when `undefined`.
 * @returns The response message.
 */
export function jsonRpcError(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcFailure {
  const error: JsonRpcErrorObject =
    data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: "2.0", id, error };
}

/**
 * Creates a request.
 *
 * @param id A fresh id, unique among the sender's requests in flight.
 * @param method The method name.
 * @param params Named params, omitted when `undefined`.
 * @returns The request message.
 */
export function jsonRpcRequest(
  id: JsonRpcId,
  method: string,
  params?: JsonRpcParams,
): JsonRpcRequest {
  return params === undefined
    ? { jsonrpc: "2.0", id, method }
    : { jsonrpc: "2.0", id, method, params };
}

/**
 * Creates a notification.
 *
 * @param method The method name.
 * @param params Named params, omitted when `undefined`.
 * @returns The notification message.
 */
export function jsonRpcNotification(method: string, params?: JsonRpcParams): JsonRpcNotification {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

/**
 * Parses a body as JSON-RPC. Never throws: text that is not JSON gives `parse_error` (id
 * `null`), an array gives `batch` (an empty one holds a single `invalid` entry), anything else
 * gives `single`.
 *
 * @param text The body.
 * @returns What the body holds.
 */
export function parseJsonRpc(text: string): ParsedJsonRpc {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      type: "parse_error",
      error: jsonRpcError(null, JSON_RPC_ERROR.parseError, "Parse error: the body is not JSON"),
    };
  }
  if (!Array.isArray(value)) return { type: "single", message: classifyJsonRpc(value) };
  if (value.length === 0) {
    return { type: "batch", messages: [invalid(null, "an empty batch is not a request")] };
  }
  return { type: "batch", messages: value.map(classifyJsonRpc) };
}

/**
 * Checks whether JSON text nests objects and arrays deeper than `max` levels (the outermost
 * object or array is level 1), by scanning the text without building anything: code that walks
 * a parsed value recursively (validation, `JSON.stringify`) overflows the stack on a value
 * nested a few thousand levels deep, which a body of a few kilobytes can hold. Text that is not
 * JSON (an unclosed bracket) gives an answer of no meaning.
 *
 * @param text The JSON text.
 * @param max The deepest nesting allowed.
 * @returns Whether the text nests deeper.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  // Hint: each level opens and closes with one character, so short text needs no scan.
  if (text.length <= 2 * max + 1) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Hint: a string is skipped to its closing quote by `indexOf`, several times faster than
      // a character loop over a long one; a quote after an odd run of backslashes is escaped.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end === -1) return false;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * Sorts one parsed JSON value into request, notification or response, checking the JSON-RPC
 * 2.0 shape plus MCP's rules (string or number ids, never `null` on requests; object params).
 *
 * @param value A parsed JSON value.
 * @returns The classified message, or `invalid` with the error response to send.
 */
export function classifyJsonRpc(value: unknown): ClassifiedMessage {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return invalid(null, "a message must be a JSON object");
  }
  const record = value as Record<string, unknown>;
  const id = record.id;
  const readableId = typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
  const echo = readableId ? (id as JsonRpcId) : null;
  if (record.jsonrpc !== "2.0") return invalid(echo, '`jsonrpc` must be "2.0"');
  if ("method" in record) {
    if (typeof record.method !== "string") return invalid(echo, "`method` must be a string");
    const params = record.params;
    if (
      params !== undefined &&
      (typeof params !== "object" || params === null || Array.isArray(params))
    ) {
      return invalid(echo, "`params` must be an object");
    }
    const base =
      params === undefined
        ? { method: record.method }
        : { method: record.method, params: params as JsonRpcParams };
    if (!("id" in record)) return { type: "notification", message: { jsonrpc: "2.0", ...base } };
    if (!readableId) return invalid(null, "a request `id` must be a string or a number");
    return { type: "request", message: { jsonrpc: "2.0", id: id as JsonRpcId, ...base } };
  }
  return classifyResponse(record, echo);
}

function classifyResponse(
  record: Record<string, unknown>,
  id: JsonRpcId | null,
): ClassifiedMessage {
  const hasResult = "result" in record;
  const hasError = "error" in record;
  if (hasResult === hasError) {
    return invalid(id, "a message needs `method`, or exactly one of `result` and `error`");
  }
  if (hasResult) {
    const result = record.result;
    if (id === null) return invalid(null, "a result needs a string or number `id`");
    if (typeof result !== "object" || result === null || Array.isArray(result)) {
      return invalid(id, "`result` must be an object");
    }
    return { type: "response", message: jsonRpcResult(id, result as Record<string, unknown>) };
  }
  if (record.id !== null && id === null)
    return invalid(null, "an error's `id` must be a string, a number or null");
  const error = record.error as Record<string, unknown> | null;
  if (
    typeof error !== "object" ||
    error === null ||
    !Number.isInteger(error.code) ||
    typeof error.message !== "string"
  ) {
    return invalid(id, "`error` needs an integer `code` and a string `message`");
  }
  return {
    type: "response",
    message: jsonRpcError(id, error.code as number, error.message, error.data),
  };
}

function invalid(id: JsonRpcId | null, why: string): ClassifiedMessage {
  return {
    type: "invalid",
    error: jsonRpcError(id, JSON_RPC_ERROR.invalidRequest, `Invalid Request: ${why}`),
  };
}
