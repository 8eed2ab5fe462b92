import { type CompactResult, compact } from "../compaction/compact.ts";
import { type CompactRequest, createCompactRequest } from "../compaction/compact-request.ts";
import { compactionThreshold } from "../compaction/compaction-threshold.ts";
import type { Conversation } from "../compaction/conversation.ts";
import { createLoopGuard, type ExecutedCall } from "../compaction/loop-guard.ts";
import { modelSummarizer } from "../compaction/model-summarizer.ts";
import { createPressureTracker } from "../compaction/pressure-tracker.ts";
import type { Summarizer } from "../compaction/summarizer.ts";
import { transcriptBytes } from "../compaction/transcript-bytes.ts";
import { unreachable } from "../errors.ts";
import type { Message } from "../models/message.ts";
import type { Model, ModelUsage } from "../models/model.ts";
import { Toolset } from "../toolset/toolset.ts";
import type { CompactionReason } from "./compaction-reason.ts";
import type { EmitEvent } from "./events.ts";

/**
 * Compaction settings interface: when and how a run compacts its transcript between turns.
 */
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
}

/**
 * Compaction step context interface: what one compaction needs from the run.
 */
export interface CompactionStepContext {
  /** The run's signal. */
  signal: AbortSignal;
  /** Where the `compacted` event goes. */
  emit: EmitEvent;
  /** Receives the summariser's token usage. */
  onUsage(usage: ModelUsage | undefined): void;
}

/**
 * Compaction step interface: one run's compaction state (threshold, pressure, loop guard).
 */
export interface CompactionStep {
  /** Extra tools the run offers (the `compact` tool, when enabled). */
  readonly toolsets: Toolset[];
  /** Whether the loop guard tripped; the run then ends after a final answer. */
  readonly loopDetected: boolean;
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
  const threshold = compactionThreshold({
    thresholdTokens: settings.thresholdTokens,
    contextWindow: settings.contextWindow ?? model.contextWindow,
  });
  const summarizer =
    settings.summarizer ?? modelSummarizer(model, { validate: settings.validate ?? true });
  const tracker = createPressureTracker();
  const guard = createLoopGuard();
  const request: CompactRequest | undefined = settings.compactTool
    ? createCompactRequest()
    : undefined;
  let fresh: number | undefined;
  let gaveUp = false;
  let loopDetected = false;

  const run = async (
    conversation: Conversation,
    reason: CompactionReason,
    context: CompactionStepContext,
  ): Promise<void> => {
    const overflow = reason === "overflow";
    const summarize = !gaveUp;
    let result: CompactResult;
    try {
      result = await compact(conversation, {
        toolsets,
        ...(threshold === undefined ? {} : { thresholdTokens: threshold }),
        ...promptTokens(conversation.messages),
        force: overflow || reason === "requested",
        keepRecent: overflow ? 0 : (settings.keepRecent ?? 6),
        ...(summarize ? { summarizer } : {}),
        signal: context.signal,
      });
    } catch {
      // Hint: a cancelled or broken compaction leaves the transcript as it was; the loop sees
      // the abort itself, and anything else is treated as a failed summary.
      if (!context.signal.aborted) gaveUp = true;
      return;
    }
    if (summarize && reason === "requested") request?.consume();
    context.onUsage(result.usage);
    if (result.summaryError) gaveUp = true;
    if (result.summarized) guard.arm();
    if (!result.changed || !result.event) return;
    conversation.messages.splice(0, conversation.messages.length, ...result.conversation.messages);
    conversation.rewritten = result.conversation.rewritten;
    tracker.invalidate();
    fresh = undefined;
    const event = { ...result.event, reason };
    const error = result.summaryError;
    context.emit(error ? { ...event, summaryError: describeFailure(error) } : event);
  };

  const promptTokens = (messages: readonly Message[]): { promptTokens?: number } => {
    const tokens = fresh ?? tracker.predict(transcriptBytes(messages));
    return tokens === undefined ? {} : { promptTokens: tokens };
  };

  return {
    toolsets: request ? [Toolset.local([request.tool])] : [],
    get loopDetected() {
      return loopDetected;
    },
    async beforeTurn(conversation, context) {
      let reason: CompactionReason | undefined;
      if (request?.requested && !gaveUp) reason = "requested";
      else if (threshold === undefined) return;
      else if (fresh !== undefined && fresh >= threshold) reason = "threshold";
      else if (tracker.over(threshold, transcriptBytes(conversation.messages)))
        reason = "predicted";
      if (reason) await run(conversation, reason, context);
    },
    recover: (conversation, context) => run(conversation, "overflow", context),
    observe(usage, sent) {
      if (!usage) return;
      fresh = usage.inputTokens;
      if (threshold !== undefined) tracker.observe(usage.inputTokens, transcriptBytes(sent));
    },
    recordTurn(calls) {
      if (guard.recordTurn(calls)) loopDetected = true;
    },
  };
}

function describeFailure(failure: NonNullable<CompactResult["summaryError"]>): string {
  switch (failure.type) {
    case "empty":
      return "the summary was empty";
    case "truncated":
      return "the summary was cut off by its token limit";
    case "failed":
      return `the summariser failed: ${failure.error instanceof Error ? failure.error.message : String(failure.error)}`;
    case "unsafe":
      return `the rebuilt transcript was refused: ${failure.reason}`;
    default:
      return unreachable(failure);
  }
}
