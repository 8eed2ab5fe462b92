import { unreachable } from "../errors.ts";

/**
 * Model error data type: the JSON shape of every model failure, discriminated by `type`.
 *
 * - `http`: the provider answered with a non-2xx status, or with a JSON error body and status
 *   200 (or, without `status`, the request never got an answer: DNS, refused connection, CORS).
 *   A redirect is never followed: it fails with `code` `"redirect"`, its status and the
 *   target's host and path, and is not retried.
 * - `rate_limit`: status 429; `retryAfterMs` comes from `retry-after-ms`, `retry-after` or the
 *   rate-limit reset headers (`x-ratelimit-reset-*`, `anthropic-ratelimit-*-reset`). An
 *   exhausted quota (OpenAI's 429 `insufficient_quota`) is `http` instead: retrying won't help.
 * - `context_overflow`: the prompt does not fit the model's context window (compact and retry).
 * - `stream`: the response stream broke or ended before the provider marked its end.
 * - `cancelled`: the caller's signal aborted the request.
 * - `invalid_response`: the provider sent something that is not its documented format (or a
 *   scripted model ran out of turns).
 * - `unsupported`: an in-browser model cannot run here; `missing` names what is absent (WebGPU,
 *   the built-in model, WebAssembly JSPI, memory, or the runtime's package).
 *
 * Messages are already redacted: no API key appears in them.
 */
export type ModelErrorData =
  | { type: "http"; provider: string; status?: number; code?: string; message: string }
  | {
      type: "rate_limit";
      provider: string;
      status: number;
      retryAfterMs?: number;
      code?: string;
      message: string;
    }
  | { type: "context_overflow"; provider: string; status?: number; code?: string; message: string }
  | { type: "stream"; provider: string; code?: string; message: string }
  | { type: "cancelled"; provider: string; reason?: string }
  | { type: "invalid_response"; provider: string; message: string }
  | { type: "unsupported"; provider: string; missing: string; message: string };

/** Model error type: the seven kinds, snake_case like `ToolError`'s. */
export type ModelErrorType = ModelErrorData["type"];

/** The seven model error kinds, in declaration order. */
export const MODEL_ERROR_TYPES = [
  "http",
  "rate_limit",
  "context_overflow",
  "stream",
  "cancelled",
  "invalid_response",
  "unsupported",
] as const satisfies readonly ModelErrorType[];

// A registry-wide symbol, so an error from a second copy of toolwire is still recognised.
const BRAND = Symbol.for("toolwire.ModelError");

/**
 * The one error a model stream fails with.
 *
 * `ToolError` does not fit. Its 15 kinds describe tools and handlers (its `cancelled`
 * even names a tool), and it has no room for an HTTP status or a retry delay, which callers
 * need to decide between retrying, compacting and giving up. So the models entry has its own
 * class, built the same way: data in, `type` to switch on, `toJSON()`, a `Symbol.for` brand.
 *
 * @example
 * ```ts
 * try { await consume(model.stream(request)); }
 * catch (e) { if (isModelError(e, "context_overflow")) await compactAndRetry(); else throw e; }
 * ```
 */
export class ModelError extends Error {
  /** The failure kind. */
  readonly type: ModelErrorType;
  /** The kind's fields exactly as `toJSON()` returns them. */
  readonly data: ModelErrorData;
  /** Who failed: `openai-compatible`, `anthropic` or `scripted`. */
  readonly provider: string;
  /** The HTTP status, when there was one. */
  declare readonly status?: number;
  /** How long the provider asked to wait before retrying (`rate_limit`). */
  declare readonly retryAfterMs?: number;
  /** The provider's error code or type, such as `context_length_exceeded`. */
  declare readonly code?: string;

  /**
   * Creates a model error from the shape `toJSON()` returns.
   *
   * @param data The kind and its fields.
   * @param options `cause`, kept for debugging and never serialised.
   */
  constructor(data: ModelErrorData, options?: { cause?: unknown }) {
    super(describe(data), options);
    this.name = "ModelError";
    this.type = data.type;
    this.data = { ...data };
    this.provider = data.provider;
    // Optional fields become own properties only when set, so `toJSON()` and a spread
    // of the error agree.
    if ("status" in data && data.status !== undefined) this.status = data.status;
    if ("retryAfterMs" in data && data.retryAfterMs !== undefined) {
      this.retryAfterMs = data.retryAfterMs;
    }
    if ("code" in data && data.code !== undefined) this.code = data.code;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /**
   * Returns the JSON shape `{ type, provider, ...fields }`.
   *
   * @returns A plain object that `new ModelError(...)` turns back into an equal error.
   */
  toJSON(): ModelErrorData {
    return { ...this.data };
  }
}

/**
 * Checks whether a value is a `ModelError` (from any copy of toolwire), optionally of one kind.
 *
 * @param value The value to check.
 * @param type The kind it must have.
 * @returns Whether it is.
 */
export function isModelError<T extends ModelErrorType>(
  value: unknown,
  type?: T,
): value is ModelError & { type: T; data: Extract<ModelErrorData, { type: T }> } {
  if (typeof value !== "object" || value === null || !(BRAND in value)) return false;
  return type === undefined || (value as { type?: unknown }).type === type;
}

/** Creates the `cancelled` error for an aborted signal; the reason's text is kept unless it is
 * the generic `AbortError`. */
export function cancelled(provider: string, reason: unknown): ModelError {
  const text =
    typeof reason === "string"
      ? reason
      : reason instanceof Error && reason.name !== "AbortError"
        ? reason.message
        : undefined;
  return new ModelError(
    text ? { type: "cancelled", provider, reason: text } : { type: "cancelled", provider },
    { cause: reason },
  );
}

function describe(data: ModelErrorData): string {
  switch (data.type) {
    case "http":
      return data.status === undefined
        ? `${data.provider}: request failed: ${data.message}`
        : `${data.provider}: HTTP ${data.status}: ${data.message}`;
    case "rate_limit": {
      const wait = data.retryAfterMs === undefined ? "" : ` (retry after ${data.retryAfterMs} ms)`;
      return `${data.provider}: rate limited${wait}: ${data.message}`;
    }
    case "context_overflow":
      return `${data.provider}: the prompt exceeds the context window: ${data.message}`;
    case "stream":
      return `${data.provider}: stream failed: ${data.message}`;
    case "cancelled":
      return `${data.provider}: request was cancelled${data.reason ? `: ${data.reason}` : ""}`;
    case "invalid_response":
      return `${data.provider}: invalid response: ${data.message}`;
    case "unsupported":
      return `${data.provider}: cannot run here, ${data.missing} is missing: ${data.message}`;
    default:
      return unreachable(data);
  }
}
