import { expect } from "vitest";
import type { ModelEvent } from "../../src/models/model.ts";

/**
 * Model stream outcome interface: what a stream produced before it closed or errored.
 */
export interface Collected<T = ModelEvent> {
  /** Every event read, in order. */
  events: T[];
  /** The error the stream failed with; absent when it closed normally. */
  error?: unknown;
}

/**
 * Returns every event of a stream and its error, if any (without throwing).
 *
 * @param stream The stream to drain.
 * @returns The events and the error.
 */
export async function collect<T = ModelEvent>(stream: ReadableStream<T>): Promise<Collected<T>> {
  const reader = stream.getReader();
  const events: T[] = [];
  let error: unknown;
  let failed = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      events.push(value);
    }
  } catch (caught) {
    error = caught;
    failed = true;
  }
  // Every model stream a test drains is held to the streamed-arguments contract (design.md P4):
  // the pieces of a call, joined, are the text its arguments were parsed from.
  checkStreamedArguments(events as unknown[]);
  return failed ? { events, error } : { events };
}

/**
 * Returns the joined `tool_input_delta` texts of each call, by id, from a model stream's
 * events (a call whose arguments came whole has none).
 *
 * @param events Model events.
 * @returns Joined pieces by call id.
 */
export function argumentPieces(events: readonly ModelEvent[]): Map<string, string> {
  const joined = new Map<string, string>();
  for (const event of events) {
    if (event.type === "tool_input_delta") {
      joined.set(event.id, (joined.get(event.id) ?? "") + event.text);
    }
  }
  return joined;
}

/**
 * Fails the test unless every `tool_call` that had `tool_input_delta`s before it has arguments equal to
 * what their joined text means (`{}` for empty text, the parsed JSON, else the raw text), and
 * no piece of a call comes after it.
 *
 * @param events Events of any stream; only model events (`tool_call` with an `id`) are checked.
 */
export function checkStreamedArguments(events: readonly unknown[]): void {
  const open = new Map<string, string>();
  const done = new Set<string>();
  for (const item of events) {
    const event = item as ModelEvent;
    if (event?.type === "tool_input_delta" && typeof event.id === "string") {
      if (done.has(event.id)) throw new Error(`a piece of ${event.id} came after its tool_call`);
      open.set(event.id, (open.get(event.id) ?? "") + event.text);
    } else if (event?.type === "tool_call" && typeof event.id === "string") {
      const text = open.get(event.id);
      open.delete(event.id);
      done.add(event.id);
      if (text === undefined) continue;
      expect(event.arguments, `the joined pieces of ${event.id}: ${text}`).toEqual(
        argumentsOf(text),
      );
    }
  }
}

function argumentsOf(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Returns the concatenated text of the `text_delta` events.
 *
 * @param events Model events.
 * @returns The text.
 */
export function textOf(events: readonly ModelEvent[]): string {
  return events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");
}
