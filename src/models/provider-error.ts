import { excerpt, scrub } from "../redaction.ts";
import { ModelError } from "./model-error.ts";

/** At most this much of an error body is read: enough for any provider's JSON error. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** At most this much of a provider's message goes into an error message. */
const MAX_MESSAGE_CHARS = 500;

// wording the providers use for "the prompt does not fit": OpenAI and vLLM ("maximum
// context length"; vLLM also "longer than the maximum model length"), Anthropic ("prompt is
// too long", "exceed context limit"), llama.cpp ("exceeds the available context size", "Input
// prompt is too big compared to KV size"),
// Ollama ("input exceeds context length"), LM Studio and others ("context window", "context
// length"), Gemini's compatible endpoint ("exceeds the maximum number of tokens allowed").
const CONTEXT_OVERFLOW =
  /context[_ ]length|context (window|size|limit)|maximum context|maximum model length|prompt is too (long|big)|too many tokens|input is too long|exceeds the maximum number of tokens/i;
// machine-readable codes for the same (OpenAI and its imitators, llama.cpp).
const CONTEXT_OVERFLOW_CODES = new Set(["context_length_exceeded", "exceed_context_size_error"]);
// OpenAI answers 429 `insufficient_quota` when the account is out of credit or over its
// spending limit. Retrying after any delay fails the same way, so it is not a rate limit.
const EXHAUSTED_QUOTA_CODES = new Set(["insufficient_quota"]);
// Anthropic's 529 means "overloaded" even when a proxy replaced the JSON body, so the
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
 * Returns the delay a response asks for before a retry, in milliseconds (never negative), or
 * `undefined` when it names none. Read in this order: `retry-after-ms` (OpenAI), `retry-after`
 * (seconds or an HTTP date), then the rate-limit reset headers: OpenAI's
 * `x-ratelimit-reset-{requests,tokens}` (durations such as `1s`, `6m0s`, `20ms`) and
 * Anthropic's `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset` (RFC 3339
 * times). Of the reset headers, those of an exhausted limit (its `remaining` header is `0`)
 * decide; without that hint the longest wait does.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const value = headers.get("retry-after")?.trim();
  if (value) {
    if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const all: number[] = [];
  const exhausted: number[] = [];
  for (const [name, raw] of headers) {
    const openai = /^x-ratelimit-reset-(.+)$/.exec(name);
    const anthropic = /^anthropic-ratelimit-(.+)-reset$/.exec(name);
    const kind = openai?.[1] ?? anthropic?.[1];
    if (kind === undefined) continue;
    const wait = openai ? durationMs(raw) : timeUntil(raw, now);
    if (wait === undefined) continue;
    all.push(wait);
    const remaining = openai
      ? headers.get(`x-ratelimit-remaining-${kind}`)
      : headers.get(`anthropic-ratelimit-${kind}-remaining`);
    if (remaining?.trim() === "0") exhausted.push(wait);
  }
  const decisive = exhausted.length > 0 ? exhausted : all;
  return decisive.length > 0 ? Math.max(...decisive) : undefined;
}

// A Go-style duration as OpenAI sends it: `1h2m3.5s`, `6m0s`, `20ms`.
function durationMs(text: string): number | undefined {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text.trim()) return undefined;
  return Math.ceil(
    parts.reduce((sum, [, n, unit]) => sum + Number(n) * (units[unit ?? ""] ?? 0), 0),
  );
}

function timeUntil(text: string, now: number): number | undefined {
  const date = Date.parse(text.trim());
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
  const given = details.code === undefined ? undefined : scrub(details.code, secrets);
  const code = given ?? (status === OVERLOADED_STATUS ? OVERLOADED_CODE : undefined);
  const message = excerpt(details.message || "no error message", secrets, MAX_MESSAGE_CHARS);
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

/** Returns at most 64 KiB of a response body as text; a body that breaks midway gives what arrived. */
export async function readBounded(response: Response): Promise<string> {
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
    // a body that breaks while we read an error is still an error; keep what arrived.
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
