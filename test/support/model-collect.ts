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
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { events };
      events.push(value);
    }
  } catch (error) {
    return { events, error };
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
