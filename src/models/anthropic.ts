import { anthropicDecoder } from "./anthropic-decoder.ts";
import { anthropicBody } from "./anthropic-request.ts";
import type { Model } from "./model.ts";
import { providerModel } from "./provider-model.ts";

/**
 * Anthropic options interface.
 */
export interface AnthropicOptions {
  /** Sent as `x-api-key`. */
  apiKey: string;
  /** The model name, such as `claude-sonnet-4-5`. */
  model: string;
  /** The API root; `https://api.anthropic.com` by default. */
  baseURL?: string;
  /** The model's context window in tokens, for compaction. */
  contextWindow?: number;
  /** Extra request headers (`anthropic-beta`, …); they override the defaults. */
  headers?: Record<string, string>;
  /** The `fetch` to use; `globalThis.fetch`, looked up at call time, when absent. */
  fetch?: typeof fetch;
  /** Default bound on generated tokens (`max_tokens`, which the API requires); 4096 if absent. */
  maxTokens?: number;
}

/**
 * Creates a model that talks to the Anthropic Messages API (`POST {baseURL}/v1/messages` with
 * `stream: true`).
 *
 * It sends `anthropic-dangerous-direct-browser-access: true`, so a page can call the API
 * directly with a key the user typed in. Usage includes cache reads and writes. Failures error
 * the stream with a `ModelError`; the API key never appears in one.
 *
 * @example
 * ```ts
 * const model = anthropic({ apiKey, model: "claude-sonnet-4-5", contextWindow: 200_000 });
 * const reader = model.stream({ system, messages, tools }, { signal }).getReader();
 * ```
 *
 * @param options The model and credentials.
 * @returns The model.
 */
/* @__NO_SIDE_EFFECTS__ */
export function anthropic(options: AnthropicOptions): Model {
  const { apiKey, model, maxTokens } = options;
  const baseURL = (options.baseURL ?? "https://api.anthropic.com").replace(/\/+$/, "");
  return providerModel({
    provider: "anthropic",
    id: model,
    contextWindow: options.contextWindow,
    fetch: options.fetch,
    url: `${baseURL}/v1/messages`,
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      "x-api-key": apiKey,
      "anthropic-version": "2023-06-01",
      "anthropic-dangerous-direct-browser-access": "true",
    },
    extraHeaders: options.headers,
    apiKey,
    body: (request) => anthropicBody(request, model, maxTokens),
    decoder: anthropicDecoder,
  });
}
