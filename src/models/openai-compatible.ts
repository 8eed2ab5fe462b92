import type { Model, ModelEvent, ModelRequest, ModelStreamOptions } from "./model.ts";
import { openAIDecoder } from "./openai-decoder.ts";
import { openAIBody } from "./openai-request.ts";
import { secretValues } from "./provider-error.ts";
import { providerStream, requestHeaders } from "./provider-stream.ts";

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
  const url = `${options.baseURL.replace(/\/+$/, "")}/chat/completions`;
  // Hint: headers and secrets are built once here, not on every turn.
  const headers = requestHeaders(
    {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    options.headers,
  );
  const secrets = secretValues(apiKey, options.headers);
  const stream = (
    request: ModelRequest,
    streamOptions: ModelStreamOptions = {},
  ): ReadableStream<ModelEvent> =>
    providerStream(
      {
        provider: "openai-compatible",
        fetch: options.fetch,
        url,
        headers,
        body: () => openAIBody(request, model, maxTokens),
        secrets,
        decoder: openAIDecoder(secrets),
      },
      streamOptions.signal,
    );
  return options.contextWindow === undefined
    ? { id: model, stream }
    : { id: model, contextWindow: options.contextWindow, stream };
}
