import type { Conversation } from "../compaction/conversation.ts";
import type { FinishReason, ModelUsage } from "../models/model.ts";

/** Why a run ends, as an `as const` list. */
export const STOP_CAUSES = [
  "done",
  "max_turns",
  "cancelled",
  "loop",
  "no_output",
  "error",
  "length",
  "content_filter",
  "refusal",
] as const;

/**
 * Stop cause type: why a run ended.
 *
 * - `done`: the model answered without calling a tool.
 * - `max_turns`: the turn limit was reached; a final tool-less turn wrote the answer.
 * - `cancelled`: the run's signal aborted.
 * - `loop`: after a summary compaction the model repeated an identical call with an identical
 *   result; a final tool-less turn wrote the answer.
 * - `no_output`: the model kept returning empty turns, even after nudges.
 * - `error`: the provider failed (not a context overflow that compaction could fix), or the
 *   input or conversation was malformed.
 * - `length`, `content_filter`, `refusal`: the last model turn, without tool calls, ended for
 *   that reason (cut off by the token bound, withheld by the provider, declined by the model);
 *   `text` holds what came, and the model is not re-prompted.
 */
export type StopCause = (typeof STOP_CAUSES)[number];

/**
 * Run result interface: how a run ended and the conversation to resume from.
 */
export interface RunResult {
  /**
   * The answer: the last assistant text of this run. Never empty for `max_turns` and `loop`;
   * for `cancelled` it is the partial text streamed before the abort.
   */
  text: string;
  /** Why the run ended. */
  stop: StopCause;
  /** Model turns taken, not counting a final tool-less answer turn. */
  turns: number;
  /** Tokens used by every model call of this run, the final answer turn included. */
  usage: ModelUsage;
  /** The updated conversation: JSON-serialisable, pass it back to `run` to continue. */
  conversation: Conversation;
  /** Sending calls the capability interlock refused in this run. */
  blockedSends: number;
  /** The last model turn's finish reason, when a turn finished (models: P2). */
  finishReason?: FinishReason;
  /**
   * The failure, when `stop` is `error`: usually a `ModelError` (its API key redacted), or a
   * `ToolError` `invalid_configuration` for a malformed input or conversation.
   *
   * Hint: the loop never retries on its own. After a `rate_limit` (see `retryAfterMs`) or a
   * transient `http` failure, wait and call `run("", { conversation })`: the transcript is
   * left valid, so the same turn is asked again.
   */
  error?: unknown;
}

/**
 * Creates a zero usage record.
 *
 * @returns The usage.
 */
export function emptyUsage(): ModelUsage {
  return { inputTokens: 0, outputTokens: 0 };
}

/**
 * Adds one turn's usage to a running total, in place.
 *
 * @param total The running total.
 * @param turn The turn's usage.
 */
export function addUsage(total: ModelUsage, turn: ModelUsage): void {
  total.inputTokens += turn.inputTokens;
  total.outputTokens += turn.outputTokens;
  if (turn.cacheReadTokens !== undefined) {
    total.cacheReadTokens = (total.cacheReadTokens ?? 0) + turn.cacheReadTokens;
  }
  if (turn.cacheWriteTokens !== undefined) {
    total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + turn.cacheWriteTokens;
  }
}
