import { type AgentEvent, estimateTokens, type Message } from "../src/agent/index.ts";

/**
 * Token reading interface: the transcript's size as the meter shows it, and where it came from.
 */
export interface TokenReading {
  tokens: number;
  /** `estimated` (from the transcript's bytes), or what the model or a compaction reported. */
  source: string;
}

/**
 * Returns the transcript's size that a run's event reveals: a turn's usage (the model's own
 * count) or a compaction's size after the rewrite.
 *
 * @param event The event.
 * @returns The reading, or `undefined` for an event that says nothing about the size.
 */
export function tokenReading(event: AgentEvent): TokenReading | undefined {
  if (event.type === "usage") {
    // The prompt just sent plus the reply now in the transcript; the next prompt holds
    // both, so the next turn's count (what the threshold is checked against) is at least this.
    const { inputTokens, outputTokens } = event.usage;
    return { tokens: inputTokens + outputTokens, source: `model's count, turn ${event.turn}` };
  }
  if (event.type === "compacted") return { tokens: event.after.tokens, source: "after compaction" };
  return undefined;
}

/**
 * Returns the estimated size of a transcript, for when no model has counted it yet (a loaded
 * conversation, or one rewritten between runs).
 *
 * @param messages The transcript.
 * @returns The reading.
 */
export function estimatedReading(messages: readonly Message[]): TokenReading {
  // Nothing is sent for an empty conversation; estimateTokens would count the JSON brackets.
  return { tokens: messages.length === 0 ? 0 : estimateTokens(messages), source: "estimated" };
}
