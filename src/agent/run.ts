// One run in progress, as its caller holds it: the event stream, the result, steering
// (docs/design.md, "The agent loop", A5 and A7).

import type { Conversation } from "../compaction/conversation.ts";
import { ToolError } from "../errors.ts";
import type { FinishReason, ModelUsage } from "../models/model.ts";
import type { AgentEvent, EmitEvent } from "./events.ts";
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

/**
 * One run in progress. Its events are a `ReadableStream` (read it, or iterate the run itself
 * with `for await`), and `result` settles when it ends; `result` never rejects: a cancellation
 * or a provider failure is a `stop` cause.
 *
 * Leaving a `for await` loop early (`break`, `return`, a throw) stops listening, as it does for
 * any `ReadableStream`: nothing more is queued. The run itself goes on; abort its signal to stop
 * it.
 */
export interface AgentRun extends AsyncIterable<AgentEvent> {
  /**
   * Every event of the run, ending with `done`; one reader at a time. The run never waits for
   * a reader. Events are kept only for a reader that asked: take this stream (or start
   * `for await`) in the same synchronous stretch as `agent.run`, before any `await`, to read
   * every event. A stream taken later gets the events from then on, so `await run.result`
   * alone keeps none, however long the run, and neither does an app that listens with
   * `agent.on`.
   */
  readonly events: ReadableStream<AgentEvent>;
  /** How the run ended. */
  readonly result: Promise<RunResult>;
  /**
   * Queues text from the user for the model while the run works; it is folded into the next
   * user message (the one carrying the tool results) and delivered exactly once. Text still
   * queued when the run ends is appended to the conversation, for the next run. `""` adds
   * nothing.
   *
   * @throws ToolError `unsupported` once the run has ended (from its `done` event on): pass the
   * text to the next run (`agent.run(text, { conversation })`) instead. `invalid_configuration`
   * when `text` is not a string.
   */
  steer(text: string): void;
  /**
   * Stops the run where it stands, for `agent.resume` to continue later: its `result` then has
   * `stop: "paused"` and the signed `snapshot`. Meant for a run waiting on an approval or a
   * question (call it from the approver, or on `approval_requested`); a call running at that
   * moment is cancelled and comes back `interrupted` (or runs again if its tool is idempotent).
   *
   * @throws ToolError `unsupported` when the agent keeps no snapshots (`snapshots` option) or
   * no turn's calls are in progress (nothing to resume from).
   */
  pause(): void;
  /**
   * The id the run is kept under in the agent's `snapshots.store` (`agent.resume(id)` picks it
   * up there); `undefined` for an agent without a store.
   */
  readonly id: string | undefined;
}

/** The work of a run, reporting events and reading queued steering text. */
export type RunBody = (emit: EmitEvent, steering: string[]) => Promise<RunResult>;

/**
 * Creates a run: starts `body` at once, hands every event to `forward` (the agent's emitter)
 * and to the stream, then closes the stream after `done`. Events are kept for a stream not yet
 * taken only until the caller's synchronous stretch ends, and only while `listened` (whether
 * the agent has listeners) says no: a run nobody reads retains nothing.
 */
export function createAgentRun(
  body: RunBody,
  forward: EmitEvent,
  listened: () => boolean,
  pause: () => void = unpausable,
  id?: string,
): AgentRun {
  // The stream is made on first use and events wait in a plain array until then; most callers
  // listen on the emitter or await `result`, and a stream costs more per event.
  let buffered: AgentEvent[] = [];
  let stream: ReadableStream<AgentEvent> | undefined;
  let controller: ReadableStreamDefaultController<AgentEvent> | undefined;
  let listening = true;
  let finished = false;
  // Whether events wait for a stream not taken yet: only until the caller's synchronous
  // stretch after `agent.run` ends (a 300-turn run awaited through `result` alone held 1,203
  // events otherwise). Queued before `body` starts, so it runs before any of the body's
  // own continuations, after what the body emitted synchronously (an invalid input's `done`).
  let keeping = true;
  queueMicrotask(() => {
    if (stream !== undefined) return;
    keeping = false;
    buffered = [];
  });
  const events = (): ReadableStream<AgentEvent> => {
    stream ??= new ReadableStream<AgentEvent>({
      start(c) {
        controller = c;
        for (const event of buffered) c.enqueue(event);
        buffered = [];
        if (finished) c.close();
      },
      cancel() {
        // A reader that gives up only stops listening; the run itself goes on.
        listening = false;
      },
    });
    return stream;
  };
  let ended = false;
  const emit: EmitEvent = (event) => {
    // User code that ignores the signal (a tool's late progress, a late answer) can still
    // report after the run ended; `done` stays the last event, and a closed stream is never
    // written to (that would throw into the late caller).
    if (ended) return;
    if (event.type === "done") ended = true;
    if (listening) {
      if (controller) controller.enqueue(event);
      else if (keeping && stream === undefined && !listened()) buffered.push(event);
    }
    forward(event);
  };
  const steering: string[] = [];
  const result = body(emit, steering).finally(() => {
    finished = true;
    if (listening) controller?.close();
  });
  return {
    get events() {
      return events();
    },
    result,
    steer(text) {
      // `done` follows the loop's last look at the queue, so text queued from then on would
      // reach nobody; refusing it tells the caller to carry it to the next run.
      if (ended || finished) {
        throw new ToolError({
          type: "unsupported",
          operation: "steer after the run ended; pass the text to the next run instead",
        });
      }
      if (typeof text !== "string") {
        throw new ToolError({
          type: "invalid_configuration",
          message: "steer text must be a string",
        });
      }
      if (text !== "") steering.push(text);
    },
    pause,
    id,
    async *[Symbol.asyncIterator]() {
      const reader = events().getReader();
      let ended = false;
      try {
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          yield read.value;
        }
        ended = true;
      } finally {
        // Like a `ReadableStream`'s own iterator, an early exit cancels the stream, so the
        // events that follow are not queued for nobody; `cancel` leaves the run running.
        if (!ended) await reader.cancel().catch(() => {});
        reader.releaseLock();
      }
    },
  };
}

function unpausable(): void {
  throw new ToolError({
    type: "unsupported",
    operation: "pause: this agent keeps no snapshots (give it the `snapshots` option)",
  });
}

/** Adds one model call's usage to a running total, in place. */
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
