import * as v from "valibot";
import { type CompactResult, compact, DEFAULT_KEEP_RECENT } from "../compaction/compact.ts";
import type { CompactionReason, Conversation } from "../compaction/conversation.ts";
import { createLoopGuard, type ExecutedCall } from "../compaction/loop-guard.ts";
import {
  compactionThreshold,
  createPressureTracker,
  estimateTokens,
  transcriptBytes,
} from "../compaction/pressure.ts";
import type { Summarizer } from "../compaction/summarizer.ts";
import { errorText, unreachable } from "../errors.ts";
import { defineTool, type Tool } from "../local/define-tool.ts";
import type { Message } from "../models/message.ts";
import type { Model, ModelUsage } from "../models/model.ts";
import { Toolset } from "../toolset/toolset.ts";
import type { EmitEvent } from "./events.ts";

/** When and how a run compacts its transcript between turns; every field is optional. */
export interface CompactionSettings {
  /** The context window in tokens; default the model's `contextWindow`. */
  contextWindow?: number;
  /** Compact at this prompt size; default 0.66 × the window, and off when neither is known. */
  thresholdTokens?: number;
  /** Messages a summary keeps verbatim. Default 6. */
  keepRecent?: number;
  /** Writes summaries; default `modelSummarizer(model, { validate })`. */
  summarizer?: Summarizer;
  /** Whether the default summariser checks its summary for omissions. Default true. */
  validate?: boolean;
  /** Offers the model a `compact` tool to ask for a summary before its next turn. Default false. */
  compactTool?: boolean;
  /**
   * Keep each pre-rewrite transcript of the run in `conversation.rewritten`. Default false: a
   * copy per compaction grows without bound over a long run. To log every compaction without
   * it, keep what the `compacted` events carry (sizes, `summary`, `folded`).
   */
  keepRewritten?: boolean;
}

/** What one compaction needs from the run. */
export interface CompactionStepContext {
  /** The run's signal. */
  signal: AbortSignal;
  /** Where the `compacted` event goes. */
  emit: EmitEvent;
  /** Receives the summariser's token usage. */
  onUsage(usage: ModelUsage | undefined): void;
}

/** One run's compaction state (threshold, pressure, loop guard). */
export interface CompactionStep {
  /** Extra tools the run offers (the `compact` tool, when enabled). */
  readonly toolsets: Toolset[];
  /** Whether the loop guard tripped; the run then ends after a final answer. */
  readonly loopDetected: boolean;
  /**
   * Whether two compactions in a row, with no provider reading under the threshold between
   * them, left the prompt over it (each `compacted` event says why in `overThreshold`); the run
   * then ends after a final answer instead of compacting every turn.
   */
  readonly stalled: boolean;
  /** Compacts between turns when over the threshold, predicted over it, or asked to. */
  beforeTurn(conversation: Conversation, context: CompactionStepContext): Promise<void>;
  /** Compacts after a context overflow: everything thinned, a summary forced. */
  recover(conversation: Conversation, context: CompactionStepContext): Promise<void>;
  /** Records the provider's reading of the prompt just sent. */
  observe(usage: ModelUsage | undefined, sent: readonly Message[]): void;
  /** Feeds one tool turn's executed calls to the loop guard. */
  recordTurn(calls: readonly ExecutedCall[]): void;
}

/**
 * Creates the compaction step of one run.
 *
 * @param settings The agent's compaction settings.
 * @param model The agent's model (its window, and the default summariser).
 * @param toolsets The run's toolsets, whose carried state survives a summary.
 * @returns The step.
 */
export function createCompactionStep(
  settings: CompactionSettings,
  model: Model,
  toolsets: readonly Toolset[],
): CompactionStep {
  const contextWindow = settings.contextWindow ?? model.contextWindow;
  const threshold = compactionThreshold({
    thresholdTokens: settings.thresholdTokens,
    contextWindow,
  });
  const summarizer = settings.summarizer ?? defaultSummarizer(model, settings.validate ?? true);
  const tracker = createPressureTracker();
  const guard = createLoopGuard();
  const request: CompactRequest | undefined = settings.compactTool
    ? createCompactRequest()
    : undefined;
  const keepRecent = settings.keepRecent ?? DEFAULT_KEEP_RECENT;
  let fresh: number | undefined;
  let unreported = false;
  let gaveUp = false;
  let loopDetected = false;
  let stalled = false;
  // A compaction that leaves the prompt over the threshold gets one more turn: the provider's
  // next reading may show it under (the estimate anchors on the last reading, which a fixed
  // system prompt or a one-off spike can skew). A second one in a row stalls the run.
  let overOnce = false;
  // Each turn measures only the messages added since the last one.
  const sizes = new WeakMap<Message, number>();
  const bytesOf = (messages: readonly Message[]) => transcriptBytes(messages, sizes);

  const run = async (
    conversation: Conversation,
    reason: CompactionReason,
    context: CompactionStepContext,
    promptTokens: number | undefined,
  ): Promise<void> => {
    const overflow = reason === "overflow";
    const summarize = !gaveUp;
    let result: CompactResult;
    try {
      result = await compact(conversation, {
        toolsets,
        ...(threshold === undefined ? {} : { thresholdTokens: threshold }),
        ...(promptTokens === undefined ? {} : { promptTokens }),
        force: overflow || reason === "requested",
        // Overflow recovery thins every result but cuts the summary at the usual place: a cut
        // at keep 0 needs an assistant message last, and a transcript that overflowed ends with
        // the user message that was just sent.
        keepRecent,
        thinAll: overflow,
        ...(contextWindow === undefined ? {} : { contextWindowTokens: contextWindow }),
        keepRewritten: settings.keepRewritten === true,
        ...(summarize ? { summarizer } : {}),
        signal: context.signal,
      });
    } catch {
      // A cancelled or broken compaction leaves the transcript as it was; the loop sees the
      // abort itself, and anything else is treated as a failed summary.
      if (!context.signal.aborted) gaveUp = true;
      return;
    }
    if (summarize && reason === "requested") request?.consume();
    context.onUsage(result.usage);
    if (result.summaryError) gaveUp = true;
    if (result.summarized) guard.arm();
    if (result.overThreshold !== undefined) {
      stalled = overOnce;
      overOnce = true;
    }
    if (!result.event) return;
    const event = { ...result.event, reason };
    const error = result.summaryError;
    if (!result.changed) {
      // Nothing was rewritten: only the compaction that stalls the run is worth an event.
      if (stalled) context.emit(event);
      return;
    }
    // Replaced in place (the loop holds the array), by a loop rather than a spread, which
    // overflows the call stack on a transcript of a hundred thousand messages.
    const { messages } = conversation;
    messages.length = 0;
    for (const message of result.conversation.messages) messages.push(message);
    conversation.rewritten = result.conversation.rewritten;
    tracker.invalidate();
    fresh = undefined;
    context.emit(error ? { ...event, summaryError: describeFailure(error) } : event);
  };

  // The transcript's prompt size now is the provider's reading of the last request raised
  // by the predicted growth since (tool results added after it); after a rewrite or a turn
  // without usage only the prediction is left. A local estimate stands in only once the
  // provider has answered without usage: before the first reply nothing is known.
  const sizeOf = (messages: readonly Message[], bytes: number): number | undefined => {
    // Rounded up, since the prediction is fractional (bytes × a rate) and the size ends
    // up in the `compacted` event, where a token count must be a whole number.
    const predicted = tracker.predict(bytes);
    if (predicted !== undefined) return Math.max(fresh ?? 0, Math.ceil(predicted));
    return fresh ?? (unreported ? estimateTokens(messages) : undefined);
  };

  return {
    toolsets: request ? [Toolset.local([request.tool])] : [],
    get loopDetected() {
      return loopDetected;
    },
    get stalled() {
      return stalled;
    },
    async beforeTurn(conversation, context) {
      const { messages } = conversation;
      if (request?.requested && !gaveUp) {
        await run(conversation, "requested", context, sizeOf(messages, bytesOf(messages)));
        return;
      }
      if (threshold === undefined) return;
      const bytes = bytesOf(messages);
      const tokens = sizeOf(messages, bytes);
      // Every other reason only adds to the reactive check (the fresh reading at or over
      // the threshold), so compaction can come earlier than it alone would, never later.
      if (fresh !== undefined && fresh >= threshold) {
        await run(conversation, "threshold", context, tokens);
      } else if ((tokens !== undefined && tokens >= threshold) || tracker.over(threshold, bytes)) {
        // At least the threshold, so compact() does not undo the decision made here.
        await run(conversation, "predicted", context, Math.max(tokens ?? 0, threshold));
      }
    },
    recover: (conversation, context) => {
      const { messages } = conversation;
      return run(conversation, "overflow", context, sizeOf(messages, bytesOf(messages)));
    },
    observe(usage, sent) {
      // A turn without usage leaves no fresh reading: the prediction from the last one
      // (anchored on its bytes) takes over rather than a stale number.
      fresh = usage?.inputTokens;
      if (threshold !== undefined && fresh !== undefined && fresh < threshold) overOnce = false;
      if (!usage) unreported = true;
      else if (threshold !== undefined) tracker.observe(usage.inputTokens, bytesOf(sent));
    },
    recordTurn(calls) {
      if (guard.recordTurn(calls)) loopDetected = true;
    },
  };
}

/**
 * `modelSummarizer(model, { validate })`, loaded on the first summary as a chunk of its own: a
 * page whose runs never summarise does not load its prompts (a single-file build still carries
 * them). It keeps the agent bundle in its budget (`npm run bench`, bundle sizes).
 */
function defaultSummarizer(model: Model, validate: boolean): Summarizer {
  let loaded: Promise<Summarizer> | undefined;
  return async (request, options) => {
    loaded ??= import("../compaction/model-summarizer.ts").then((m) =>
      m.modelSummarizer(model, { validate }),
    );
    return (await loaded)(request, options);
  };
}

function describeFailure(failure: NonNullable<CompactResult["summaryError"]>): string {
  switch (failure.type) {
    case "empty":
      return "the summary was empty";
    case "truncated":
      return "the summary was cut off by its token limit";
    case "failed":
      return `the summariser failed: ${errorText(failure.error)}`;
    case "unsafe":
      return `the rebuilt transcript was refused: ${failure.reason}`;
    default:
      return unreachable(failure);
  }
}

/** A model-callable `compact` tool and the flag it sets. */
interface CompactRequest {
  /** The tool to give the model. */
  tool: Tool;
  /** Whether a request is pending. */
  readonly requested: boolean;
  /**
   * Returns whether a request is pending and clears it. The loop calls it only when it acts on
   * the request; a request it cannot serve stays pending.
   *
   * @returns Whether compaction was requested since the last `consume`.
   */
  consume(): boolean;
}

/**
 * Creates a `compact` tool the model calls to have its transcript summarised before its next
 * turn. It can only make compaction happen earlier, never later.
 *
 * @returns The tool and its flag.
 */
function createCompactRequest(): CompactRequest {
  let requested = false;
  const tool = defineTool({
    name: "compact",
    description:
      "Ask for the transcript to be compacted before the next turn. Call it before starting the next step of your plan, when earlier turns are no longer needed verbatim.",
    readOnly: true,
    input: v.object({ reason: v.optional(v.string()) }),
    call: () => {
      requested = true;
      return "Compaction requested: the transcript will be summarised before your next turn.";
    },
  });
  return {
    tool: tool as Tool,
    get requested() {
      return requested;
    },
    consume() {
      const was = requested;
      requested = false;
      return was;
    },
  };
}
