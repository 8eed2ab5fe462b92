import type { FinishReason, Model, ModelEvent, ModelRequest, ModelUsage } from "./model.ts";
import { cancelled, ModelError, type ModelErrorData } from "./model-error.ts";

const PROVIDER = "scripted";

/**
 * Scripted tool call interface: a tool call a scripted turn makes.
 */
export interface ScriptedToolCall {
  /** The call id; `call_1`, `call_2`, … (counted over the model's life) when absent. */
  id?: string;
  /** The tool's name. */
  name: string;
  /** The arguments, as parsed JSON. */
  arguments: unknown;
}

/**
 * Scripted turn interface: what a scripted model answers to one request.
 */
export interface ScriptedTurn {
  /** Text, streamed in a few `text_delta`s split at word boundaries. */
  text?: string;
  /** Thinking, streamed before the text as `reasoning_delta`s and then one `reasoning` block. */
  reasoning?: string;
  /** Tool calls, emitted after the text; none when the request says `toolChoice: "none"`. */
  toolCalls?: ScriptedToolCall[];
  /**
   * Streams each call's arguments (their JSON) in a few `tool_input_delta`s before the call,
   * as providers that stream arguments do; off by default.
   */
  streamArguments?: boolean;
  /** Usage to report; none is reported when absent. */
  usage?: ModelUsage;
  /** The finish reason; `tool_calls` when there are tool calls, else `stop`. */
  finish?: FinishReason;
  /** Fails the stream with this error after the text and tool calls (instead of finishing). */
  error?: ModelErrorData;
  /** Stops after the text and tool calls until the signal aborts, to test cancellation. */
  stall?: boolean;
}

/**
 * Scripted turns type: a list answered in order, or a function of the request and the turn's
 * 0-based number.
 */
export type ScriptedTurns =
  | readonly ScriptedTurn[]
  | ((request: ModelRequest, turn: number) => ScriptedTurn | Promise<ScriptedTurn>);

/**
 * Scripted model options interface.
 */
export interface ScriptedModelOptions {
  /** The model id; `scripted` by default. */
  id?: string;
  /** A context window to report, for compaction tests. */
  contextWindow?: number;
}

/**
 * Scripted model interface: a model that also records what it was asked.
 */
export interface ScriptedModel extends Model {
  /** A copy of every request, in order. */
  readonly requests: readonly ModelRequest[];
}

/**
 * Creates a deterministic model for tests and the offline demo. Each `stream` call takes the
 * next turn: its text in a few deltas, its tool calls, its usage, then `finish`.
 *
 * A list that runs out fails the stream with `ModelError` `invalid_response` rather
 * than inventing an answer, so a test that loops more often than scripted fails loudly.
 *
 * @example
 * ```ts
 * const model = scriptedModel([
 *   { toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }] },
 *   { text: "1 + 2 = 3" },
 * ]);
 * ```
 *
 * @param turns The answers, or a function that makes them.
 * @param options The id and context window to report.
 * @returns The model.
 */
/* @__NO_SIDE_EFFECTS__ */
export function scriptedModel(
  turns: ScriptedTurns,
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const requests: ModelRequest[] = [];
  let turnCount = 0;
  let callCount = 0;

  function eventsOf(turn: ScriptedTurn, calls: readonly ScriptedToolCall[]): ModelEvent[] {
    const events: ModelEvent[] = [];
    if (turn.reasoning) {
      for (const text of textDeltas(turn.reasoning)) events.push({ type: "reasoning_delta", text });
      events.push({ type: "reasoning", block: { type: "reasoning", text: turn.reasoning } });
    }
    for (const text of textDeltas(turn.text ?? "")) events.push({ type: "text_delta", text });
    for (const call of calls) {
      callCount += 1;
      const id = call.id ?? `call_${callCount}`;
      if (turn.streamArguments) {
        for (const text of argumentPieces(JSON.stringify(call.arguments) ?? "")) {
          events.push({ type: "tool_input_delta", id, name: call.name, text });
        }
      }
      events.push({
        type: "tool_call",
        id,
        name: call.name,
        arguments: copyArguments(call.arguments),
      });
    }
    if (turn.usage) events.push({ type: "usage", ...turn.usage });
    return events;
  }

  function turnFor(request: ModelRequest, number: number): ScriptedTurn | Promise<ScriptedTurn> {
    if (typeof turns === "function") return turns(request, number);
    const turn = turns[number];
    if (turn) return turn;
    const message = `no turn ${number + 1} was scripted (${turns.length} given)`;
    throw new ModelError({ type: "invalid_response", provider: PROVIDER, message });
  }

  function stream(
    request: ModelRequest,
    streamOptions: { signal?: AbortSignal } = {},
  ): ReadableStream<ModelEvent> {
    const { signal } = streamOptions;
    const number = turnCount++;
    // A shallow copy, not a deep clone: long runs send hundreds of growing requests, and
    // messages are never mutated once sent, so copying the list is enough to keep what was asked.
    requests.push({ ...request, messages: request.messages.slice(), tools: request.tools.slice() });
    let turn: ScriptedTurn | undefined;
    let calls: readonly ScriptedToolCall[] = [];
    let events: ModelEvent[] = [];
    let next = 0;
    let onAbort: (() => void) | undefined;
    // A stalled pull waits on this; abort and cancel release it, so nothing is left over.
    let release = () => {};
    const cleanup = () => {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    };
    // The abort listener is added only when the stream waits (on a script's promise, or
    // stalled); otherwise every pull checks the signal itself, and with no chunk read ahead
    // nothing is delivered after an abort, so a plain turn costs no listener.
    const listen = (controller: ReadableStreamDefaultController<ModelEvent>) => {
      if (!signal || onAbort) return;
      onAbort = () => {
        controller.error(cancelled(PROVIDER, signal.reason));
        release();
      };
      signal.addEventListener("abort", onAbort, { once: true });
    };
    const load = (answer: ScriptedTurn) => {
      turn = answer;
      // Like a provider, a scripted model makes no calls when the request forbids
      // them, so a test of a tool-less turn sees what a real one would.
      calls = request.toolChoice === "none" ? [] : (answer.toolCalls ?? []);
      events = eventsOf(answer, calls);
    };

    return new ReadableStream<ModelEvent>(
      {
        start(controller) {
          // Failures error the stream rather than throw, so `stream()` itself never throws.
          try {
            if (signal?.aborted) throw cancelled(PROVIDER, signal.reason);
            const answer = turnFor(request, number);
            if (!isPromiseLike(answer)) return load(answer);
            listen(controller);
            return Promise.resolve(answer).then(load, (error: unknown) => {
              cleanup();
              throw error;
            });
          } catch (error) {
            controller.error(error);
          }
        },
        pull(controller) {
          if (!turn) return; // never: pulls follow a successful start, which set it
          if (signal?.aborted) {
            cleanup();
            return controller.error(cancelled(PROVIDER, signal.reason));
          }
          const event = events[next++];
          if (event) return controller.enqueue(event);
          if (turn.stall) {
            listen(controller);
            return new Promise<void>((resolve) => {
              release = resolve;
            });
          }
          cleanup();
          if (turn.error) return controller.error(new ModelError(turn.error));
          controller.enqueue({
            type: "finish",
            reason: turn.finish ?? (calls.length > 0 ? "tool_calls" : "stop"),
          });
          controller.close();
        },
        cancel() {
          cleanup();
          release();
        },
      },
      // No chunk is read ahead, so a pull (and its abort check) happens on every read.
      { highWaterMark: 0 },
    );
  }

  const model: ScriptedModel = { id: options.id ?? "scripted", requests, stream };
  return options.contextWindow === undefined
    ? model
    : { ...model, contextWindow: options.contextWindow };
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

// Every stream gets its own copy, so a caller that edits the arguments cannot change the
// script; a flat object of primitives (the usual case) is copied by hand, because
// `structuredClone` was the costliest step of a scripted turn in profiles.
function copyArguments(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return structuredClone(value);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === "object" || typeof item === "function" || typeof item === "symbol") {
      return structuredClone(value);
    }
    copy[key] = item;
  }
  return copy;
}

/**
 * Returns the text cut into at most three deltas at word boundaries, like a real stream.
 *
 * @param text The text.
 * @returns The deltas; none for empty text.
 */
export function textDeltas(text: string): string[] {
  if (text === "") return [];
  const words = text.split(/(?<=\s)(?=\S)/);
  const size = Math.ceil(words.length / 3);
  const deltas: string[] = [];
  for (let i = 0; i < words.length; i += size) deltas.push(words.slice(i, i + size).join(""));
  return deltas;
}

// The JSON cut into three pieces, or fewer when it is that short; none for `{}`, whose text a
// provider leaves empty.
function argumentPieces(json: string): string[] {
  if (json === "{}") return [];
  const size = Math.ceil(json.length / 3);
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += size) pieces.push(json.slice(i, i + size));
  return pieces;
}
