import { ModelError } from "./model-error.ts";

/** At most this much of an error body is read: enough for any provider's JSON error. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** At most this much of a provider's message goes into an error message. */
const MAX_MESSAGE_CHARS = 500;

// Hint: wording the providers use for "the prompt does not fit": OpenAI and vLLM ("maximum
// context length"; vLLM also "longer than the maximum model length"), Anthropic ("prompt is
// too long", "exceed context limit"), llama.cpp ("exceeds the available context size"),
// Ollama ("input exceeds context length"), LM Studio and others ("context window", "context
// length"), Gemini's compatible endpoint ("exceeds the maximum number of tokens allowed").
const CONTEXT_OVERFLOW =
  /context[_ ]length|context (window|size|limit)|maximum context|maximum model length|prompt is too long|too many tokens|input is too long|exceeds the maximum number of tokens/i;
// Hint: machine-readable codes for the same (OpenAI and its imitators, llama.cpp).
const CONTEXT_OVERFLOW_CODES = new Set(["context_length_exceeded", "exceed_context_size_error"]);
// Hint: OpenAI answers 429 `insufficient_quota` when the account is out of credit or over its
// spending limit. Retrying after any delay fails the same way, so it is not a rate limit.
const EXHAUSTED_QUOTA_CODES = new Set(["insufficient_quota"]);
// Hint: Anthropic's 529 means "overloaded" even when a proxy replaced the JSON body, so the
// caller can still tell it from other failures by its code.
const OVERLOADED_STATUS = 529;
const OVERLOADED_CODE = "overloaded_error";

/**
 * Provider error details interface: what a provider said about a failure.
 */
export interface ProviderErrorDetails {
  /** The HTTP status, when the failure came as a status (not as an event mid-stream). */
  status?: number;
  /** The provider's error code or type. */
  code?: string;
  /** The provider's message. */
  message: string;
  /** The requested wait before retrying, in milliseconds. */
  retryAfterMs?: number;
}

/**
 * Returns the text with every secret replaced by `[redacted]`.
 *
 * @param text Text that may echo a secret (an error body, a URL, a network error).
 * @param secrets The values to hide; empty strings are skipped.
 * @returns The redacted text.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret !== "") out = out.split(secret).join("[redacted]");
  return out;
}

/**
 * Returns the delay a response asks for before retrying, from `retry-after-ms` (OpenAI) or
 * `retry-after` (delay in seconds or an HTTP date).
 *
 * @param headers The response headers.
 * @param now The current time in milliseconds since the epoch.
 * @returns The delay in milliseconds (never negative), or `undefined` when absent or invalid.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Creates the model error for a provider failure: `rate_limit` for 429 or a rate-limit code
 * (but an exhausted quota, `insufficient_quota`, is not one: waiting does not help),
 * `context_overflow` when the code or message says the prompt is too long, otherwise `http`
 * for a status and `stream` for an error event that arrived mid-stream. The provider's code is
 * kept; a 529 without one gets `overloaded_error`.
 *
 * @param provider The adapter's name.
 * @param details What the provider said.
 * @param secrets Values to redact from the message and code (the API key).
 * @returns The error.
 */
export function providerError(
  provider: string,
  details: ProviderErrorDetails,
  secrets: readonly string[],
): ModelError {
  const { status, retryAfterMs: wait } = details;
  const given = details.code === undefined ? undefined : redact(details.code, secrets);
  const code = given ?? (status === OVERLOADED_STATUS ? OVERLOADED_CODE : undefined);
  const message = truncate(redact(details.message || "no error message", secrets));
  const extra = { ...(code === undefined ? {} : { code }) };
  const exhausted = code !== undefined && EXHAUSTED_QUOTA_CODES.has(code);
  const limited = status === 429 || code === "rate_limit_error" || code === "rate_limit_exceeded";
  if (limited && !exhausted) {
    return new ModelError({
      type: "rate_limit",
      provider,
      status: status ?? 429,
      message,
      ...extra,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    });
  }
  if ((code !== undefined && CONTEXT_OVERFLOW_CODES.has(code)) || CONTEXT_OVERFLOW.test(message)) {
    const withStatus = status === undefined ? {} : { status };
    return new ModelError({ type: "context_overflow", provider, message, ...extra, ...withStatus });
  }
  if (status === undefined) return new ModelError({ type: "stream", provider, message, ...extra });
  return new ModelError({ type: "http", provider, status, message, ...extra });
}

/**
 * Creates the model error for a non-2xx response, reading at most 64 KiB of its body.
 *
 * @param provider The adapter's name.
 * @param response The failed response.
 * @param secrets Values to redact from the provider's message (the API key).
 * @returns The error (`rate_limit`, `context_overflow` or `http`).
 */
export async function responseError(
  provider: string,
  response: Response,
  secrets: readonly string[],
): Promise<ModelError> {
  const body = await readBounded(response);
  const { code, message } = errorFields(body);
  const details: ProviderErrorDetails = {
    status: response.status,
    message: message || response.statusText,
  };
  if (code !== undefined) details.code = code;
  const wait = retryAfterMs(response.headers);
  if (wait !== undefined) details.retryAfterMs = wait;
  return providerError(provider, details, secrets);
}

/**
 * Returns the code and message of a provider's JSON error body, or the body itself as the
 * message when it is not one. Handles `{ error: { message, code | type } }` (OpenAI and its
 * imitators, Anthropic), `{ error: "text" }` (Ollama) and `{ message }`.
 *
 * @param body The error body or an error event's data.
 * @returns The code, when there is one, and the message.
 */
export function errorFields(body: string): { code?: string; message: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { message: body.trim() };
  }
  const root = (parsed ?? {}) as Record<string, unknown>;
  const error = root.error ?? root;
  if (typeof error === "string") return { message: error };
  const fields = (error ?? {}) as Record<string, unknown>;
  const code = [fields.code, fields.type].find((v) => typeof v === "string" && v !== "");
  const message = typeof fields.message === "string" ? fields.message : body.trim();
  return code === undefined ? { message } : { code: code as string, message };
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ERROR_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // Hint: a body that breaks while we read an error is still an error; keep what arrived.
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes.subarray(0, MAX_ERROR_BODY_BYTES));
}

function truncate(text: string): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS)}…`;
}

/**
 * Returns the values to redact for an adapter: the API key, and the value of any header whose
 * name suggests a credential (`authorization`, `api-key`, `x-goog-api-key`, a token…).
 *
 * @param apiKey The adapter's API key, when it has one.
 * @param headers Extra headers the user passed.
 * @returns The secrets, longest first so a key inside a header value is still hidden whole.
 */
export function secretValues(
  apiKey: string | undefined,
  headers: Record<string, string> | undefined,
): string[] {
  const values = apiKey ? [apiKey] : [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (/auth|key|token|secret|cookie/i.test(name) && value) {
      values.push(value, value.replace(/^(Bearer|Basic)\s+/i, ""));
    }
  }
  return [...new Set(values)].filter((v) => v.length > 0).sort((a, b) => b.length - a.length);
}
