import { parseSseStream, type SseEvent } from "../sse/sse-parser.ts";
import type { ModelEvent } from "./model.ts";
import { isModelError, ModelError } from "./model-error.ts";
import { redact, responseError } from "./provider-error.ts";

/**
 * Provider decoder interface: turns one response's server-sent events into model events.
 * A decoder holds the state of one response (partial tool calls, usage), so each request
 * gets a fresh one.
 */
export interface ProviderDecoder {
  /**
   * Handles one event.
   *
   * @param event The server-sent event.
   * @param emit Passes a model event on.
   * @returns Whether the provider marked the end of the response (`[DONE]`, `message_stop`).
   * @throws ModelError when the event is an error or not in the provider's format.
   */
  event(event: SseEvent, emit: (event: ModelEvent) => void): boolean;
  /**
   * Handles the end of the body before an end marker: emits what is left when the turn was
   * complete anyway (a finish reason arrived), otherwise fails.
   *
   * @param emit Passes a model event on.
   * @throws ModelError `stream` when the turn was cut short.
   */
  end(emit: (event: ModelEvent) => void): void;
}

/**
 * Provider call interface: one streaming HTTP request to a model provider.
 */
export interface ProviderCall {
  /** The adapter's name, for errors. */
  provider: string;
  /** The `fetch` to use; `globalThis.fetch` (looked up now) when absent. */
  fetch: typeof fetch | undefined;
  /** The endpoint. */
  url: string;
  /** The request headers. */
  headers: Record<string, string>;
  /** Builds the JSON body; called once the stream starts. */
  body(): unknown;
  /** Values that must never appear in an error (API keys, auth header values). */
  secrets: readonly string[];
  /** The decoder for this response. */
  decoder: ProviderDecoder;
}

/**
 * Creates the model event stream of one provider call: POSTs the body, turns a non-2xx
 * response into a typed error, and parses `response.body` as server-sent events.
 *
 * Hint: the stream is pull-based, so a slow consumer slows the reads (backpressure), and
 * cancelling it aborts the `fetch`, which closes the connection.
 *
 * @param call The request and its decoder.
 * @param signal Aborts the request; the stream then errors with `ModelError` `cancelled`.
 * @returns The model events.
 */
export function providerStream(
  call: ProviderCall,
  signal?: AbortSignal,
): ReadableStream<ModelEvent> {
  const { provider, secrets, decoder } = call;
  const abort = new AbortController();
  const onAbort = () => abort.abort(signal?.reason);
  let reader: ReadableStreamDefaultReader<SseEvent> | undefined;

  const cleanup = () => signal?.removeEventListener("abort", onAbort);
  const fail = (error: unknown, phase: "request" | "stream"): ModelError => {
    cleanup();
    abort.abort();
    // Hint: the signal first, so an abort while an error body is read still reads as cancelled.
    if (signal?.aborted) return cancelled(provider, signal.reason);
    if (isModelError(error)) return error;
    const raw = error instanceof Error ? error.message : String(error);
    const message = redact(raw, secrets);
    // Hint: the original error is kept as `cause` only when it does not echo a secret (some
    // runtimes put the URL, which may carry a key, into network errors).
    const options = message === raw ? { cause: error } : {};
    return phase === "request"
      ? new ModelError({ type: "http", provider, message }, options)
      : new ModelError({ type: "stream", provider, message: `stream broke: ${message}` }, options);
  };

  return new ReadableStream<ModelEvent>({
    async start() {
      if (signal?.aborted) throw cancelled(provider, signal.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        // Hint: call `fetch` detached from any object; browsers reject `window.fetch` called
        // with another `this` ("Illegal invocation").
        const doFetch = call.fetch ?? globalThis.fetch;
        const response = await doFetch(call.url, {
          method: "POST",
          headers: call.headers,
          body: JSON.stringify(call.body()),
          signal: abort.signal,
        });
        if (!response.ok) throw await responseError(provider, response, secrets);
        if (!response.body) {
          const message = "the response has no body; check that `baseURL` points at the API";
          throw new ModelError({ type: "invalid_response", provider, message });
        }
        reader = response.body
          .pipeThrough(new TextDecoderStream())
          .pipeThrough(parseSseStream())
          .getReader();
      } catch (error) {
        throw fail(error, "request");
      }
    },
    async pull(controller) {
      let emitted = false;
      const emit = (event: ModelEvent) => {
        controller.enqueue(event);
        emitted = true;
      };
      if (!reader) return;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            decoder.end(emit);
            break;
          }
          if (decoder.event(value, emit)) {
            // Hint: the end marker may come before the server closes the body; stop reading
            // and let the connection go.
            reader.cancel().catch(() => {});
            break;
          }
          if (emitted) return;
        }
      } catch (error) {
        throw fail(error, "stream");
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

/**
 * Creates the `cancelled` error for an aborted signal.
 *
 * @param provider The adapter's name.
 * @param reason The signal's reason; kept as `cause`, and its text as `reason` unless it is
 *   the generic `AbortError`.
 * @returns The error.
 */
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
