import { errorText, unreachable } from "../errors.ts";
import type { ReasoningBlock } from "../models/message.ts";
import type { FinishReason, Model, ModelRequest, ModelUsage } from "../models/model.ts";
import type { ModelToolCall } from "./call-outcome.ts";
import type { EmitEvent } from "./events.ts";

/** The ways a model call ends, as an `as const` list. */
export const MODEL_TURN_ENDS = ["complete", "cancelled", "failed"] as const;

/**
 * Model turn interface: what one model call produced, however it ended.
 */
export interface ModelTurn {
  /** `complete`, `cancelled` (the run's signal aborted) or `failed` (see `error`). */
  end: (typeof MODEL_TURN_ENDS)[number];
  /** The text streamed, complete or partial. */
  text: string;
  /** The tool calls, in the order the model made them. */
  toolCalls: ModelToolCall[];
  /** The turn's usage, when the model reported it. */
  usage?: ModelUsage;
  /** The reported finish reason. */
  finish?: FinishReason;
  /** Complete reasoning blocks, kept in the assistant message before its text (models: P3). */
  reasoning: ReasoningBlock[];
  /** The failure, for `failed`. */
  error?: unknown;
}

/**
 * Model turn options interface.
 */
export interface ModelTurnOptions {
  /** The run's signal; passed to the model and cancels the stream's reader. */
  signal: AbortSignal;
  /** Where `text_delta` and `usage` events go. */
  emit: EmitEvent;
  /** The turn's number, for events. */
  turn: number;
}

/**
 * Returns one model call's output, reading the model's stream to its end. It never rejects:
 * a failure or an abort is reported in `end`, with the text streamed so far. When the model
 * reported usage, a `usage` event is emitted once the stream ends, however it ended, so the
 * events add up to what the run counts.
 *
 * Hint: on abort the reader is cancelled as well as the signal passed on, so a model that
 * ignores its signal still stops (cancelling the stream aborts its `fetch`).
 *
 * @param model The model.
 * @param request The turn's input.
 * @param options Signal, event sink and turn number.
 * @returns What the model produced.
 */
export async function streamModelTurn(
  model: Model,
  request: ModelRequest,
  options: ModelTurnOptions,
): Promise<ModelTurn> {
  const { signal, emit, turn } = options;
  const result: ModelTurn = { end: "complete", text: "", toolCalls: [], reasoning: [] };
  if (signal.aborted) {
    result.end = "cancelled";
    return result;
  }
  let reader: ReadableStreamDefaultReader | undefined;
  const onAbort = () => {
    reader?.cancel(signal.reason).catch(() => {});
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const stream = model.stream(request, { signal });
    const events = stream.getReader();
    reader = events;
    if (signal.aborted) onAbort();
    for (let read = await events.read(); !read.done; read = await events.read()) {
      const event = read.value;
      switch (event.type) {
        case "text_delta":
          if (event.text === "") break;
          result.text += event.text;
          emit({ type: "text_delta", turn, text: event.text });
          break;
        case "tool_call": {
          // Hint: every `tool_use` needs an id its result can echo, and one no other call of
          // the turn has; some local servers send none, or the same one for every call. A
          // made-up id is checked too: the model may itself have sent `call_1_2` already.
          const taken = (id: string) => result.toolCalls.some((call) => call.id === id);
          let id = event.id;
          for (let n = result.toolCalls.length + 1; !id || taken(id); n++) id = `call_${turn}_${n}`;
          const call: ModelToolCall = { id, name: event.name, arguments: event.arguments };
          if (event.signature !== undefined) call.signature = event.signature;
          if (event.providerMetadata) call.providerMetadata = event.providerMetadata;
          result.toolCalls.push(call);
          break;
        }
        // models: reasoning streams apart from text and is kept whole for the transcript;
        // a retry before any output is reported as it happens.
        case "reasoning_delta":
          if (event.text !== "") emit({ type: "reasoning_delta", turn, text: event.text });
          break;
        case "reasoning":
          result.reasoning.push(event.block);
          break;
        case "retry":
          emit({
            type: "model_retry",
            turn,
            attempt: event.attempt,
            delayMs: event.delayMs,
            error: event.error,
            message: errorText(event.error),
          });
          break;
        case "usage": {
          const { type: _, ...usage } = event;
          result.usage = usage;
          break;
        }
        case "finish":
          result.finish = event.reason;
          break;
        default:
          return unreachable(event);
      }
    }
  } catch (error) {
    if (!signal.aborted) {
      result.end = "failed";
      result.error = error;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  if (signal.aborted && result.end === "complete") result.end = "cancelled";
  // Hint: a copy, so a listener that edits the event cannot change the run's totals.
  if (result.usage) emit({ type: "usage", turn, usage: { ...result.usage } });
  return result;
}
