import type { Model } from "./model.ts";
import { openAIDecoder } from "./openai-decoder.ts";
import { openAIBody } from "./openai-request.ts";
import { providerModel } from "./provider-model.ts";

/**
 * OpenAI-compatible options interface.
 */
export interface OpenAICompatibleOptions {
  /** The API root, such as `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …` when given (local servers such as Ollama need none). */
  apiKey?: string;
  /** The model name. */
  model: string;
  /** The model's context window in tokens, for compaction. */
  contextWindow?: number;
  /** Extra request headers; they override the defaults. */
  headers?: Record<string, string>;
  /** The `fetch` to use; `globalThis.fetch`, looked up at call time, when absent. */
  fetch?: typeof fetch;
  /** Default bound on generated tokens (`max_tokens`); left to the server when absent. */
  maxTokens?: number;
}

/**
 * Creates a model that talks to a Chat Completions endpoint (`POST {baseURL}/chat/completions`
 * with `stream: true`): OpenAI, Ollama, LM Studio, vLLM, llama.cpp server and others.
 *
 * Tool call arguments that arrive split over many chunks are joined and parsed; arguments that
 * are not valid JSON are passed on as the raw string (see `toolArguments`). Failures error the
 * stream with a `ModelError`; the API key never appears in one.
 *
 * @example
 * ```ts
 * const model = openAICompatible({ baseURL: "http://127.0.0.1:11434/v1", model: "qwen3" });
 * const reader = model.stream({ messages, tools: [] }, { signal }).getReader();
 * ```
 *
 * @param options The endpoint, model and credentials.
 * @returns The model.
 */
/* @__NO_SIDE_EFFECTS__ */
export function openAICompatible(options: OpenAICompatibleOptions): Model {
  const { apiKey, model, maxTokens } = options;
  return providerModel({
    provider: "openai-compatible",
    id: model,
    contextWindow: options.contextWindow,
    fetch: options.fetch,
    url: `${options.baseURL.replace(/\/+$/, "")}/chat/completions`,
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    extraHeaders: options.headers,
    apiKey,
    body: (request) => openAIBody(request, model, maxTokens),
    decoder: openAIDecoder,
  });
}
