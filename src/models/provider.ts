// One HTTP turn of a provider adapter (`docs/design.md`, "Models"): `providerModel` builds the
// request once per model, `providerStream` POSTs it, retries failures that come before any
// output, and feeds the server-sent events to the adapter's decoder.
import { errorText } from "../errors.ts";
import { credentialsOf, NO_REDIRECT, refusedRedirect, scrub } from "../redaction.ts";
import { parseSseStream, type SseEvent } from "../sse/sse-parser.ts";
import type {
  Model,
  ModelEvent,
  ModelRequest,
  ModelSettings,
  ModelStreamOptions,
} from "./model.ts";
import { cancelled, isModelError, ModelError } from "./model-error.ts";
import {
  errorFields,
  networkError,
  notAnEventStream,
  providerError,
  readBounded,
  responseError,
} from "./provider-error.ts";

/**
 * Retries of a failed request, before any of the turn's output was emitted (`docs/design.md`,
 * P8). Rate limits (429), overload (529, `overloaded_error`), 408/409/5xx, a connection that
 * failed midway and a stream that broke before its first event are retried; an exhausted quota,
 * a context overflow, a bad request, an unreadable response (an HTML page, say), a refused
 * connection, an unknown host and a browser's opaque "Failed to fetch" are not.
 *
 * @example
 * ```ts
 * openAICompatible({ baseURL, model, retry: { maxRetries: 4, maxDelayMs: 20_000 } });
 * openAICompatible({ baseURL, model, retry: false }); // one attempt only
 * ```
 */
export interface RetryOptions {
  /** Retries after the first attempt; 2 by default, 0 for none. */
  maxRetries?: number;
  /** The wait before the first retry when the provider gave no hint, doubled for each further
   * retry; 1000 ms by default. */
  initialDelayMs?: number;
  /** The longest wait; a provider hint above it ends the turn with the error instead. 60 000 ms
   * by default. */
  maxDelayMs?: number;
}

/** Turns one response's server-sent events into model events; one per attempt. */
export interface ProviderDecoder {
  /** Handles one event; returns whether the provider marked the end (`[DONE]`,
   * `message_stop`). Throws a `ModelError` for an error event or a malformed one. */
  event(event: SseEvent, emit: (event: ModelEvent) => void): boolean;
  /** Handles the end of the body before an end marker: finishes a turn that was complete
   * anyway (its finish reason arrived), otherwise throws `ModelError` `stream`. */
  end(emit: (event: ModelEvent) => void): void;
}

/** What an HTTP adapter supplies; the rest of a `Model` is the same for every provider. */
export interface ProviderModelOptions {
  /** The adapter's name, for errors. */
  provider: string;
  /** Who serves the model, which becomes `Model.provider` (OpenTelemetry's
   * `gen_ai.provider.name`). */
  providerName: string;
  /** The model name, which becomes `Model.id`. */
  id: string;
  contextWindow: number | undefined;
  /** The user's `fetch`; `globalThis.fetch`, looked up at call time, when absent. */
  fetch: typeof fetch | undefined;
  /** The endpoint. */
  url: string;
  /** The adapter's headers, lower-case; the credential among them is redacted from errors. */
  headers: Record<string, string>;
  /** Names of the adapter's headers that carry a credential. */
  credentialHeaders: readonly string[];
  /** The user's extra headers; they override the defaults whatever their case, and their
   * values are redacted from errors. */
  extraHeaders: Record<string, string> | undefined;
  /** The adapter's default settings; a request's own override them. */
  settings: ModelSettings | undefined;
  retry: RetryOptions | false | undefined;
  /** Builds the JSON body of one request, before `extraBody` is merged in. */
  body(request: ModelRequest, settings: ModelSettings): Record<string, unknown>;
  /** Creates the decoder of one response; `secrets` are redacted from what it reports. */
  decoder(secrets: readonly string[]): ProviderDecoder;
}

/** Creates a model whose `stream()` POSTs one request to a provider and decodes its events. */
/* @__NO_SIDE_EFFECTS__ */
export function providerModel(options: ProviderModelOptions): Model {
  const { provider, providerName, id, contextWindow, url } = options;
  const headers = { ...options.headers };
  for (const [name, value] of Object.entries(options.extraHeaders ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  const credentials: Record<string, string> = { ...options.extraHeaders };
  for (const name of options.credentialHeaders) {
    const value = headers[name];
    if (value !== undefined) credentials[name] = value;
  }
  const secrets = credentialsOf({ url, headers: credentials });
  const retry = retrySettings(options.retry);
  const stream = (request: ModelRequest, streamOptions: ModelStreamOptions = {}) => {
    const call: ProviderCall = {
      provider,
      fetch: options.fetch,
      url,
      headers,
      secrets,
      retry,
      body: () => {
        const settings = { ...options.settings, ...request.settings };
        return withExtraBody(options.body(request, settings), settings.extraBody);
      },
      decoder: () => options.decoder(secrets),
    };
    return providerStream(call, streamOptions.signal);
  };
  return contextWindow === undefined
    ? { id, provider: providerName, stream }
    : { id, provider: providerName, contextWindow, stream };
}

/**
 * Returns `base` with `path` appended to its path, keeping its query: an Azure `baseURL`
 * such as `https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21` becomes
 * `…/deployments/d/chat/completions?api-version=2024-10-21`.
 */
export function endpoint(base: string, path: string): string {
  const query = base.search(/[?#]/);
  const root = (query < 0 ? base : base.slice(0, query)).replace(/\/+$/, "");
  const rest = query < 0 ? "" : base.slice(query);
  return `${root}${path}${rest}`;
}

/** Returns a tool call's arguments from the JSON text the model streamed: `{}` for empty text,
 * the parsed value, or the raw text when it is not JSON (the tool's validation then tells the
 * model, which can try again, instead of the whole run failing). */
export function toolArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface ProviderCall {
  provider: string;
  fetch: typeof fetch | undefined;
  url: string;
  headers: Record<string, string>;
  secrets: readonly string[];
  retry: Required<RetryOptions>;
  body(): unknown;
  decoder(): ProviderDecoder;
}

const RETRY_STATUS = /* @__PURE__ */ new Set([408, 409, 500, 502, 503, 504, 529]);
const NOT_RETRIED = /* @__PURE__ */ new Set(["ECONNREFUSED", "ENOTFOUND", "unreachable"]);

function retrySettings(retry: RetryOptions | false | undefined): Required<RetryOptions> {
  const given = retry === false ? { maxRetries: 0 } : (retry ?? {});
  return {
    maxRetries: Math.max(0, given.maxRetries ?? 2),
    initialDelayMs: Math.max(0, given.initialDelayMs ?? 1000),
    maxDelayMs: Math.max(0, given.maxDelayMs ?? 60_000),
  };
}

function withExtraBody(
  body: Record<string, unknown>,
  extra: Record<string, unknown> | undefined,
): Record<string, unknown> {
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (value === undefined) delete body[key];
    else body[key] = value;
  }
  return body;
}

function retryable(error: ModelError): boolean {
  if (error.type === "rate_limit") return true;
  // The same request meets the same redirect (a browser's opaque one has no status).
  if (error.code === "redirect") return false;
  // Nothing listens there, no such host, or a browser's opaque refusal (CORS or a server that
  // is down): waiting a second does not change that.
  if (error.type === "http" && error.status === undefined && NOT_RETRIED.has(error.code ?? "")) {
    return false;
  }
  if (error.code === "overloaded_error" || error.code === "overloaded") return true;
  if (error.type === "http") return error.status === undefined || RETRY_STATUS.has(error.status);
  return error.type === "stream";
}

const START_CHARS = 512;

// Whether the start of a body could be an event stream: blank, comments only, or holding a
// field line (a stream cut before its first event still has one).
function sseLike(text: string): boolean {
  const lines = text.split(/\r\n|\r|\n/).filter((line) => line.trim() !== "");
  return (
    lines.every((line) => line.startsWith(":")) ||
    lines.some((line) => /^(data|event|id|retry)(:|$)/.test(line))
  );
}

function sleep(ms: number, signal: AbortSignal | undefined, provider: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled(provider, signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Creates the model event stream of one provider call. The stream is pull-based, so a slow
 * consumer slows the reads, and cancelling it aborts the `fetch`, which closes the connection.
 */
function providerStream(call: ProviderCall, signal?: AbortSignal): ReadableStream<ModelEvent> {
  const { provider, secrets, retry } = call;
  const abort = new AbortController();
  const onAbort = () => abort.abort(signal?.reason);
  let reader: ReadableStreamDefaultReader<SseEvent> | undefined;
  let decoder: ProviderDecoder | undefined;
  // The start of the body and the count of its events, to tell a body that is no event stream
  // (text with no SSE field in it) from a stream that broke.
  let start: { type: string; text: string; events: number } | undefined;
  let output = false;
  let attempt = 0;

  const cleanup = () => signal?.removeEventListener("abort", onAbort);
  const modelError = (error: unknown, phase: "request" | "stream"): ModelError => {
    // The signal first, so an abort while an error body is read still reads as cancelled.
    if (signal?.aborted) return cancelled(provider, signal.reason);
    if (isModelError(error)) return error;
    if (phase === "request") {
      const unreached = networkError(provider, error, call.url, secrets);
      if (unreached) return unreached;
    }
    // `fetch failed` alone hides why (reset, TLS, timeout); the cause says it.
    const cause = error instanceof Error ? error.cause : undefined;
    const why = cause instanceof Error ? cause.message : undefined;
    const text = errorText(error);
    const raw = why && !text.includes(why) ? `${text} (${why})` : text;
    const message = scrub(raw, secrets);
    // The original error is kept as `cause` only when it does not echo a secret (some runtimes
    // put the URL, which may carry a key, into network errors).
    const options = message === raw ? { cause: error } : {};
    return phase === "request"
      ? new ModelError({ type: "http", provider, message }, options)
      : new ModelError({ type: "stream", provider, message: `stream broke: ${message}` }, options);
  };

  const open = async (): Promise<ReadableStreamDefaultReader<SseEvent>> => {
    // `fetch` is called detached from any object: browsers reject `window.fetch` called with
    // another `this` ("Illegal invocation").
    const doFetch = call.fetch ?? globalThis.fetch;
    const response = await doFetch(call.url, {
      method: "POST",
      headers: call.headers,
      body: JSON.stringify(call.body()),
      redirect: NO_REDIRECT,
      signal: abort.signal,
    });
    // A redirect would carry the key and the conversation to a host the user did not name.
    const redirect = refusedRedirect(response, call.url, secrets);
    if (redirect) {
      const message = `${redirect}, so set \`baseURL\` to the final URL`;
      const status = response.status || undefined;
      const details = { type: "http", provider, code: "redirect", message } as const;
      throw new ModelError(status === undefined ? details : { ...details, status });
    }
    if (!response.ok) throw await responseError(provider, response, secrets);
    const type = response.headers.get("content-type") ?? "";
    // A 200 that is JSON, not an event stream, is a server's error answer (LM Studio asked at
    // a `baseURL` without `/v1`); its message is what the user needs.
    if (/json/i.test(type)) {
      const { code, message } = errorFields(await readBounded(response));
      const details = { status: 200, message: message || "the server answered JSON, not events" };
      throw providerError(provider, code === undefined ? details : { ...details, code }, secrets);
    }
    // A page (a web UI, a proxy's sign-in, a wrong path) is no stream whatever it holds.
    if (/html|xml/i.test(type)) {
      throw notAnEventStream(provider, type, await readBounded(response), secrets);
    }
    if (!response.body) {
      const message = "the response has no body; check that `baseURL` points at the API";
      throw new ModelError({ type: "invalid_response", provider, message });
    }
    decoder = call.decoder();
    start = { type, text: "", events: 0 };
    const seen = start;
    return response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(
        new TransformStream<string, string>({
          transform(chunk, controller) {
            if (seen.text.length < START_CHARS) seen.text += chunk.slice(0, START_CHARS);
            controller.enqueue(chunk);
          },
        }),
      )
      .pipeThrough(parseSseStream())
      .getReader();
  };

  return new ReadableStream<ModelEvent>({
    async start() {
      if (signal?.aborted) throw cancelled(provider, signal.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller) {
      let emitted = false;
      const emit = (event: ModelEvent) => {
        controller.enqueue(event);
        emitted = true;
        output = true;
      };
      try {
        reader ??= await open();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            if (start && start.events === 0 && !sseLike(start.text)) {
              throw notAnEventStream(provider, start.type, start.text, secrets);
            }
            decoder?.end(emit);
            break;
          }
          if (start) start.events += 1;
          // The end marker may come before the server closes the body; stop reading and let
          // the connection go.
          if (decoder?.event(value, emit)) {
            reader.cancel().catch(() => {});
            break;
          }
          if (emitted) return;
        }
      } catch (thrown) {
        const error = modelError(thrown, reader ? "stream" : "request");
        reader?.cancel().catch(() => {});
        reader = undefined;
        const delayMs = Math.min(
          error.retryAfterMs ?? retry.initialDelayMs * 2 ** attempt,
          Number.MAX_SAFE_INTEGER,
        );
        const again =
          !output &&
          !signal?.aborted &&
          attempt < retry.maxRetries &&
          delayMs <= retry.maxDelayMs &&
          retryable(error);
        if (!again) {
          cleanup();
          abort.abort();
          throw error;
        }
        attempt += 1;
        controller.enqueue({ type: "retry", attempt, delayMs, error });
        try {
          await sleep(delayMs, signal, provider);
        } catch (aborted) {
          cleanup();
          throw aborted;
        }
        return;
      }
      cleanup();
      controller.close();
    },
    cancel(reason) {
      cleanup();
      abort.abort(reason);
      reader?.cancel(reason).catch(() => {});
    },
  });
}
