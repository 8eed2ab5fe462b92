import type { SseEvent } from "../sse/sse-parser.ts";
import type { FinishReason, ModelEvent } from "./model.ts";
import { ModelError } from "./model-error.ts";
import { errorFields, providerError, redact } from "./provider-error.ts";
import type { ProviderDecoder } from "./provider-stream.ts";
import { toolArguments } from "./tool-arguments.ts";

const PROVIDER = "anthropic";

interface RawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

interface StreamEvent {
  type?: string;
  index?: number;
  message?: { usage?: RawUsage };
  content_block?: { type?: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: RawUsage;
}

interface PendingCall {
  id: string;
  name: string;
  json: string;
}

/**
 * Creates the decoder for one Messages API stream: `text_delta`s pass through at once;
 * `input_json_delta` fragments are joined per content block and emitted as one `tool_call` at
 * `content_block_stop`; usage (input and cache tokens from `message_start`, output tokens from
 * `message_delta`) and `finish` follow at `message_stop`. `ping` and unknown events (thinking
 * blocks, new delta kinds) are skipped; an `error` event fails the stream.
 *
 * @param secrets Values to redact from error events.
 * @returns The decoder.
 */
export function anthropicDecoder(secrets: readonly string[]): ProviderDecoder {
  const pending = new Map<number, PendingCall>();
  const usage: Record<keyof RawUsage, number | undefined> = {
    input_tokens: undefined,
    output_tokens: undefined,
    cache_creation_input_tokens: undefined,
    cache_read_input_tokens: undefined,
  };
  let calls = 0;
  let stopReason: string | undefined;

  function addUsage(raw: RawUsage | undefined): void {
    // Hint: later events repeat counts cumulatively, so the last value of each field wins.
    for (const key of Object.keys(usage) as (keyof RawUsage)[]) {
      const value = raw?.[key];
      if (typeof value === "number") usage[key] = value;
    }
  }

  function finish(emit: (event: ModelEvent) => void): void {
    const read = usage.cache_read_input_tokens;
    const write = usage.cache_creation_input_tokens;
    if (usage.input_tokens !== undefined || usage.output_tokens !== undefined) {
      emit({
        type: "usage",
        // Hint: Anthropic's `input_tokens` leaves out cached tokens; ours counts all input.
        inputTokens: (usage.input_tokens ?? 0) + (read ?? 0) + (write ?? 0),
        outputTokens: usage.output_tokens ?? 0,
        ...(read === undefined ? {} : { cacheReadTokens: read }),
        ...(write === undefined ? {} : { cacheWriteTokens: write }),
      });
    }
    emit({ type: "finish", reason: finishReasonOf(stopReason, calls > 0) });
  }

  function onEvent(event: StreamEvent, data: string, emit: (event: ModelEvent) => void): boolean {
    const index = event.index ?? 0;
    // Hint: an open set of wire names, not one of our unions, hence a `default` that skips.
    const kind = event.type;
    switch (kind) {
      case "message_start":
        addUsage(event.message?.usage);
        return false;
      case "content_block_start": {
        const block = event.content_block;
        if (block?.type === "tool_use") {
          pending.set(index, { id: block.id ?? "", name: block.name ?? "", json: "" });
        } else if (block?.type === "text" && block.text) {
          emit({ type: "text_delta", text: block.text });
        }
        return false;
      }
      case "content_block_delta": {
        const delta = event.delta;
        if (delta?.type === "text_delta" && delta.text)
          emit({ type: "text_delta", text: delta.text });
        const call = pending.get(index);
        if (delta?.type === "input_json_delta" && call) call.json += delta.partial_json ?? "";
        return false;
      }
      case "content_block_stop": {
        const call = pending.get(index);
        if (!call) return false;
        pending.delete(index);
        if (!call.id || !call.name) {
          const message = `tool_use block ${index} has no id or name`;
          throw new ModelError({ type: "invalid_response", provider: PROVIDER, message });
        }
        calls += 1;
        emit({
          type: "tool_call",
          id: call.id,
          name: call.name,
          arguments: toolArguments(call.json),
        });
        return false;
      }
      case "message_delta":
        if (event.delta?.stop_reason) stopReason = event.delta.stop_reason;
        addUsage(event.usage);
        return false;
      case "message_stop":
        finish(emit);
        return true;
      case "error":
        throw providerError(PROVIDER, errorFields(data), secrets);
      default:
        return false; // `ping`, and event kinds added after this adapter was written
    }
  }

  return {
    event(event: SseEvent, emit) {
      let parsed: StreamEvent;
      try {
        parsed = JSON.parse(event.data) as StreamEvent;
      } catch {
        const data = redact(event.data, secrets).slice(0, 100);
        const message = `event ${event.event} is not JSON: ${data}`;
        throw new ModelError({ type: "invalid_response", provider: PROVIDER, message });
      }
      if (typeof parsed !== "object" || parsed === null) return false;
      return onEvent({ ...parsed, type: parsed.type ?? event.event }, event.data, emit);
    },
    end(emit) {
      // Hint: a turn whose stop reason arrived is complete even if `message_stop` was lost.
      if (stopReason !== undefined && pending.size === 0) return finish(emit);
      const message = "stream ended early (no message_stop)";
      throw new ModelError({ type: "stream", provider: PROVIDER, message });
    },
  };
}

function finishReasonOf(reason: string | undefined, hasCalls: boolean): FinishReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "error";
    default:
      return hasCalls ? "tool_calls" : "stop"; // end_turn, stop_sequence, pause_turn
  }
}
