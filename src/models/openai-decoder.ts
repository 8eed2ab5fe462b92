import type { SseEvent } from "../sse/sse-parser.ts";
import type { FinishReason, ModelEvent, ModelUsage } from "./model.ts";
import { ModelError } from "./model-error.ts";
import { errorFields, providerError, redact } from "./provider-error.ts";
import type { ProviderDecoder } from "./provider-stream.ts";
import { toolArguments } from "./tool-arguments.ts";

const PROVIDER = "openai-compatible";

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

interface Chunk {
  error?: unknown;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
  } | null;
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: {
        index?: number;
        id?: string;
        function?: { name?: string; arguments?: unknown };
      }[];
    };
    finish_reason?: string | null;
  }[];
}

/**
 * Creates the decoder for one Chat Completions stream: text deltas pass through at once; tool
 * call fragments are joined by `index` and emitted, in index order, when the finish reason
 * arrives; usage (from the last chunk, `stream_options.include_usage`) and `finish` follow at
 * `data: [DONE]`.
 *
 * @param secrets Values to redact from error events.
 * @returns The decoder.
 */
export function openAIDecoder(secrets: readonly string[]): ProviderDecoder {
  const calls: PartialCall[] = [];
  let flushed = false;
  let finishReason: string | undefined;
  let usage: ModelUsage | undefined;

  function flushCalls(emit: (event: ModelEvent) => void): void {
    if (flushed) return;
    flushed = true;
    calls.forEach((call, index) => {
      if (!call) return; // a sparse index the server skipped
      if (!call.name) {
        const message = `tool call at index ${index} has no function name`;
        throw new ModelError({ type: "invalid_response", provider: PROVIDER, message });
      }
      const id = call.id || `call_${index + 1}`;
      emit({ type: "tool_call", id, name: call.name, arguments: toolArguments(call.args) });
    });
  }

  function finish(emit: (event: ModelEvent) => void): void {
    flushCalls(emit);
    if (usage) emit({ type: "usage", ...usage });
    emit({ type: "finish", reason: finishReasonOf(finishReason, calls.length > 0) });
  }

  function onChunk(chunk: Chunk, data: string, emit: (event: ModelEvent) => void): void {
    // Hint: servers report a failure after the 200 status as a chunk `{ "error": { … } }`.
    if (chunk.error !== undefined && chunk.error !== null) {
      throw providerError(PROVIDER, errorFields(data), secrets);
    }
    if (chunk.usage) usage = usageOf(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const content = choice.delta?.content;
    if (typeof content === "string" && content !== "") emit({ type: "text_delta", text: content });
    choice.delta?.tool_calls?.forEach((fragment, position) => {
      const index = fragment.index ?? position;
      const call = calls[index] ?? { id: "", name: "", args: "" };
      calls[index] = call;
      if (fragment.id && !call.id) call.id = fragment.id;
      if (fragment.function?.name && !call.name) call.name = fragment.function.name;
      const args = fragment.function?.arguments;
      // Hint: a few servers send the arguments as an object in one piece.
      if (typeof args === "string") call.args += args;
      else if (args !== undefined && args !== null) call.args += JSON.stringify(args);
    });
    if (choice.finish_reason) {
      finishReason = choice.finish_reason;
      flushCalls(emit);
    }
  }

  return {
    event(event: SseEvent, emit) {
      if (event.data === "[DONE]") {
        finish(emit);
        return true;
      }
      let chunk: Chunk;
      try {
        chunk = JSON.parse(event.data) as Chunk;
      } catch {
        const message = `chunk is not JSON: ${redact(event.data, secrets).slice(0, 100)}`;
        throw new ModelError({ type: "invalid_response", provider: PROVIDER, message });
      }
      if (typeof chunk === "object" && chunk !== null) onChunk(chunk, event.data, emit);
      return false;
    },
    end(emit) {
      // Hint: a few servers omit `[DONE]`; a turn whose finish reason arrived is complete.
      if (finishReason !== undefined) return finish(emit);
      const message = "stream ended early (no finish reason and no [DONE])";
      throw new ModelError({ type: "stream", provider: PROVIDER, message });
    },
  };
}

function finishReasonOf(reason: string | undefined, hasCalls: boolean): FinishReason {
  switch (reason) {
    case "length":
      return "length";
    case "content_filter":
      return "error";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    default:
      // Hint: Ollama and others report `stop` for a turn that called tools.
      return hasCalls ? "tool_calls" : "stop";
  }
}

function usageOf(raw: NonNullable<Chunk["usage"]>): ModelUsage {
  const usage: ModelUsage = {
    inputTokens: raw.prompt_tokens ?? 0,
    outputTokens: raw.completion_tokens ?? 0,
  };
  const cached = raw.prompt_tokens_details?.cached_tokens;
  if (typeof cached === "number") usage.cacheReadTokens = cached;
  return usage;
}
