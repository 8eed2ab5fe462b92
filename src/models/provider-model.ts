import type { Model, ModelEvent, ModelRequest, ModelStreamOptions } from "./model.ts";
import { secretValues } from "./provider-error.ts";
import { type ProviderDecoder, providerStream } from "./provider-stream.ts";

/**
 * Provider model options interface: what an HTTP adapter (`openAICompatible`, `anthropic`)
 * supplies; the rest of a `Model` is the same for every provider.
 */
export interface ProviderModelOptions {
  /** The adapter's name, for errors. */
  provider: string;
  /** The model name, which becomes `Model.id`. */
  id: string;
  /** The model's context window in tokens, when the user gave one. */
  contextWindow: number | undefined;
  /** The user's `fetch`; `globalThis.fetch`, looked up at call time, when absent. */
  fetch: typeof fetch | undefined;
  /** The endpoint. */
  url: string;
  /** The adapter's default headers, lower-case. */
  headers: Record<string, string>;
  /** The user's extra headers; they override the defaults whatever their case. */
  extraHeaders: Record<string, string> | undefined;
  /** The API key, redacted from every error. */
  apiKey: string | undefined;
  /**
   * Builds the JSON body of one request.
   *
   * @param request The provider-neutral request.
   * @returns The body.
   */
  body(request: ModelRequest): unknown;
  /**
   * Creates the decoder of one response.
   *
   * @param secrets The values to redact from the errors it raises.
   * @returns A fresh decoder.
   */
  decoder(secrets: readonly string[]): ProviderDecoder;
}

/**
 * Creates a model whose `stream()` POSTs one request to a provider and decodes its
 * server-sent events.
 *
 * Hint: the headers and the secrets to redact are worked out once here, not on every turn.
 *
 * @param options The provider's endpoint, headers, body and decoder.
 * @returns The model.
 */
/* @__NO_SIDE_EFFECTS__ */
export function providerModel(options: ProviderModelOptions): Model {
  const { provider, id, contextWindow, fetch, url, body, decoder } = options;
  const headers = requestHeaders(options.headers, options.extraHeaders);
  const secrets = secretValues(options.apiKey, options.extraHeaders);
  const stream = (
    request: ModelRequest,
    streamOptions: ModelStreamOptions = {},
  ): ReadableStream<ModelEvent> =>
    providerStream(
      {
        provider,
        fetch,
        url,
        headers,
        body: () => body(request),
        secrets,
        decoder: decoder(secrets),
      },
      streamOptions.signal,
    );
  return contextWindow === undefined ? { id, stream } : { id, contextWindow, stream };
}

/**
 * Returns request headers: the defaults, then the user's extra headers with lower-cased names,
 * so `Authorization` from the user replaces `authorization` instead of being joined to it.
 *
 * @param defaults The adapter's headers, lower-case.
 * @param extra The user's headers.
 * @returns The merged headers.
 */
export function requestHeaders(
  defaults: Record<string, string>,
  extra: Record<string, string> | undefined,
): Record<string, string> {
  const headers = { ...defaults };
  for (const [name, value] of Object.entries(extra ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}
