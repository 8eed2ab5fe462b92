// How a run ended, as its `done` event and `run.result` carry it (docs/design.md, "The agent
// loop", A5). Apart from `run.ts`, which makes runs, so the events can name it.

import type { Conversation } from "../compaction/conversation.ts";
import type { FinishReason, ModelUsage } from "../models/model.ts";
import type { RunSnapshot } from "./snapshot.ts";

/**
 * Why a run ended.
 *
 * - `done`: the model answered without calling a tool.
 * - `paused`: `run.pause()` stopped it while it waited on an approval or a question;
 *   `snapshot` resumes it (`agent.resume`).
 * - `max_turns`: the turn limit was reached; a final tool-less turn wrote the answer.
 * - `cancelled`: the run's signal aborted.
 * - `loop`: after a summary compaction the model repeated an identical call with an identical
 *   result; a final tool-less turn wrote the answer.
 * - `compaction_stalled`: two compactions in a row could not bring the prompt under the
 *   compaction threshold (the `compacted` events' `overThreshold` says why); a final tool-less
 *   turn wrote the answer rather than compacting again on every turn.
 * - `no_output`: the model kept returning empty turns, even after three nudges.
 * - `error`: the provider failed (not a context overflow that compaction could fix), a toolset
 *   could not list its tools or two of them declare the same name (`duplicate_name`), or the
 *   input or conversation was malformed.
 * - `length`, `content_filter`, `refusal`: the last model turn, without tool calls, ended for
 *   that reason (cut off by the token bound, withheld by the provider, declined by the model);
 *   `text` holds what came, and the model is not re-prompted (docs/design.md, "Models", P2).
 */
export type StopCause =
  | "done"
  | "paused"
  | "max_turns"
  | "cancelled"
  | "loop"
  | "compaction_stalled"
  | "no_output"
  | "error"
  | "length"
  | "content_filter"
  | "refusal";

/** How a run ended and the conversation to resume from. */
export interface RunResult {
  /**
   * The answer: the last assistant text of this run. Never empty for `max_turns`, `loop` and `compaction_stalled`;
   * for `cancelled` it is the partial text streamed before the abort.
   */
  text: string;
  stop: StopCause;
  /** Model turns taken, not counting a final tool-less answer turn. */
  turns: number;
  /** Tokens used by every model call of this run, the final answer turn and summaries included. */
  usage: ModelUsage;
  /** The updated conversation: JSON-serialisable, pass it back to `run` to continue. */
  conversation: Conversation;
  /** Sending calls the capability interlock refused in this run. */
  blockedSends: number;
  /** The last model turn's finish reason, when a turn finished (docs/design.md, "Models", P2). */
  finishReason?: FinishReason;
  /**
   * The failure, when `stop` is `error`: usually a `ModelError` (its API key redacted), or a
   * `ToolError` (`invalid_configuration` for a malformed input, `duplicate_name`). The loop
   * never retries on its own: after a `rate_limit` (see `retryAfterMs`) or a transient `http`
   * failure, wait and call `run("", { conversation })`; the transcript is left valid, so the
   * same turn is asked again.
   */
  error?: unknown;
  /** The signed snapshot to pass to `agent.resume`, when `stop` is `paused`. */
  snapshot?: RunSnapshot;
}
