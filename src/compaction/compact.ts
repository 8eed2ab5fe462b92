import { cancelledError } from "../abort.ts";
import type { CarriedState } from "../declaration/carried-state.ts";
import { ToolError } from "../errors.ts";
import type { Message } from "../models/message.ts";
import { checkTranscript } from "./check-transcript.ts";
import { collapseFailures } from "./collapse-failures.ts";
import type { CompactedEvent } from "./compacted-event.ts";
import type { Conversation } from "./conversation.ts";
import { estimateTokens } from "./estimate-tokens.ts";
import { evictSuperseded } from "./evict-superseded.ts";
import { rebuildHead, withoutCarriedState } from "./rebuild-head.ts";
import { renderTranscript } from "./render-transcript.ts";
import type { Summarizer, Summary } from "./summarizer.ts";
import { summaryCut } from "./summary-cut.ts";
import { thinResults } from "./thin-results.ts";
import { toolUseIndex } from "./tool-use-index.ts";

/** How many recent messages a summary keeps verbatim by default. */
export const DEFAULT_KEEP_RECENT = 6;

/**
 * Compact options interface.
 */
export interface CompactOptions {
  /** Toolsets whose `carriedState()` is read after the summary returns. */
  toolsets?: readonly { carriedState(): Promise<CarriedState[]> }[];
  /** More state to carry, after the toolsets' state. */
  carried?: readonly CarriedState[];
  /**
   * Compact when the transcript is at or over this many tokens: below it nothing is done; at or
   * over it the lossless passes run, and a summary follows if they did not free enough. Without
   * it (and without `force`) only the lossless passes run.
   */
  thresholdTokens?: number;
  /**
   * The current transcript's prompt size (the provider's last reading or a prediction). The
   * lossless passes' saving, estimated, is subtracted from it before the threshold check. When
   * absent, `estimateTokens` of the transcript is used.
   */
  promptTokens?: number;
  /** Summarise whatever the size (overflow recovery, or the model asked for it). */
  force?: boolean;
  /** How many recent messages the summary keeps verbatim. Default 6. */
  keepRecent?: number;
  /**
   * Thin every tool result, the recent ones too, as overflow recovery does (mecha-core §3.8):
   * when a request does not fit, the oversized recent result is the problem. Default false.
   */
  thinAll?: boolean;
  /** Writes the summary; without one only the lossless passes run. */
  summarizer?: Summarizer;
  /** Aborts the summary; the input is left as it was. */
  signal?: AbortSignal;
  /** Token estimate of a transcript. Default: a quarter of its JSON bytes, images excluded. */
  estimateTokens?: (messages: readonly Message[]) => number;
}

/**
 * Summary failure type: why a summary was not installed, discriminated by `type`. The loop
 * stops attempting summaries for the run after any of these.
 */
export type SummaryFailure =
  | { type: "empty" }
  | { type: "truncated" }
  | { type: "failed"; error: unknown }
  | { type: "unsafe"; reason: string };

/**
 * Compact result interface.
 */
export interface CompactResult {
  /** The compacted conversation (the input itself when nothing changed). */
  conversation: Conversation;
  /** Whether the transcript changed. */
  changed: boolean;
  /** Whether a summary was installed. */
  summarized: boolean;
  /** Why an attempted summary was not installed. */
  summaryError?: SummaryFailure;
  /** The transcript's size now, on the same basis as `promptTokens`. */
  tokens: number;
  /** What to emit when the transcript changed. */
  event?: CompactedEvent;
  /** Tokens the summariser spent. */
  usage?: { inputTokens: number; outputTokens: number };
}

/**
 * Compacts a conversation: lossless passes first (evict superseded results, collapse repeated
 * failures, thin old results), then, only if still at or over the threshold (or when forced), a
 * summary of the middle folded into message 0 with exactly one carried-state block. The input is
 * never mutated; the pre-rewrite transcript is appended to `rewritten` once when anything
 * changed. An empty, truncated or failed summary is never installed, and neither is a rebuild
 * that would orphan a tool result or put two user messages in a row. Taint is kept as is.
 *
 * @param conversation The conversation to compact.
 * @param options Threshold, current size, summariser, carried state and signal.
 * @returns The new conversation and what happened.
 * @throws ToolError `cancelled` when the signal aborts before or during the summary.
 * @throws ToolError `invalid_configuration` when `keepRecent` is not a non-negative integer.
 * @example
 * ```ts
 * const { conversation: next, summarized } = await compact(conversation, {
 *   thresholdTokens: 20_000, promptTokens: usage.inputTokens,
 *   summarizer: extractiveSummarizer(), toolsets: [toolset],
 * });
 * ```
 */
export async function compact(
  conversation: Conversation,
  options: CompactOptions = {},
): Promise<CompactResult> {
  const { signal } = options;
  if (signal?.aborted) throw cancelledError("compact", signal);
  const keepRecent = options.keepRecent ?? DEFAULT_KEEP_RECENT;
  if (!Number.isInteger(keepRecent) || keepRecent < 0) {
    throw new ToolError({
      type: "invalid_configuration",
      message: `keepRecent must be a non-negative integer, got ${keepRecent}`,
    });
  }
  const estimate = options.estimateTokens ?? estimateTokens;
  const before = conversation.messages;
  let beforeEstimate = options.promptTokens === undefined ? estimate(before) : undefined;
  const beforeTokens = options.promptTokens ?? (beforeEstimate as number);
  const threshold = options.thresholdTokens;
  if (threshold !== undefined && options.force !== true && beforeTokens < threshold) {
    // Hint: under the threshold nothing runs, not even the free passes, so a loop can call this
    // every turn without recording a rewrite each time.
    return { conversation, changed: false, summarized: false, tokens: beforeTokens };
  }
  beforeEstimate ??= estimate(before);

  const uses = toolUseIndex(before);
  let messages = before;
  messages = evictSuperseded(messages, uses) ?? messages;
  messages = collapseFailures(messages, uses) ?? messages;
  messages = thinResults(messages, keepRecent, options.thinAll === true) ?? messages;
  let currentEstimate = messages === before ? beforeEstimate : estimate(messages);
  // Hint: the reading measured the transcript before the passes; anchoring on it and
  // subtracting the estimated saving is what lets "the passes freed enough" skip the summary.
  let tokens = Math.max(0, beforeTokens - (beforeEstimate - currentEstimate));

  const result: Omit<CompactResult, "conversation" | "changed" | "tokens"> = { summarized: false };
  const over = options.force === true || (threshold !== undefined && tokens >= threshold);
  const cut = options.summarizer && over ? summaryCut(messages, keepRecent) : undefined;
  if (options.summarizer && cut !== undefined) {
    const outcome = await summarize(messages, cut, options.summarizer, options);
    if (outcome.usage) result.usage = outcome.usage;
    if (outcome.type === "installed") {
      const next = outcome.messages;
      const nextEstimate = estimate(next);
      tokens = Math.max(0, tokens - (currentEstimate - nextEstimate));
      currentEstimate = nextEstimate;
      messages = next;
      result.summarized = true;
    } else {
      result.summaryError = outcome.failure;
    }
  }

  if (messages === before) return { conversation, changed: false, tokens, ...result };
  result.event = {
    type: "compacted",
    before: { messages: before.length, tokens: beforeTokens },
    after: { messages: messages.length, tokens },
    summarized: result.summarized,
  };
  const next: Conversation = {
    ...conversation,
    messages,
    taint: { ...conversation.taint },
    rewritten: [...conversation.rewritten, before.slice()],
  };
  return { conversation: next, changed: true, tokens, ...result };
}

type Outcome = { usage?: Summary["usage"] } & (
  | { type: "installed"; messages: Message[] }
  | { type: "refused"; failure: SummaryFailure }
);

async function summarize(
  messages: readonly Message[],
  cut: number,
  summarizer: Summarizer,
  options: CompactOptions,
): Promise<Outcome> {
  const { signal } = options;
  const head = messages[0] as Message;
  const transcript = renderTranscript([withoutCarriedState(head), ...messages.slice(1, cut)]);
  let summary: Summary;
  try {
    summary = await summarizer({ transcript }, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw cancelledError("compact", signal);
    return { type: "refused", failure: { type: "failed", error } };
  }
  const usage = summary.usage ? { usage: summary.usage } : {};
  if (summary.truncated === true)
    return { type: "refused", failure: { type: "truncated" }, ...usage };
  if (typeof summary.text !== "string" || summary.text.trim() === "") {
    return { type: "refused", failure: { type: "empty" }, ...usage };
  }
  let states: CarriedState[];
  try {
    // Hint: read only now, after the round trip, so the block is current at install time.
    const fromToolsets = await Promise.all((options.toolsets ?? []).map((t) => t.carriedState()));
    states = [...fromToolsets.flat(), ...(options.carried ?? [])];
  } catch (error) {
    return { type: "refused", failure: { type: "failed", error }, ...usage };
  }
  const next = [rebuildHead(head, summary.text, states), ...messages.slice(cut)];
  const problem = checkTranscript(next);
  if (problem !== undefined)
    return { type: "refused", failure: { type: "unsafe", reason: problem }, ...usage };
  return { type: "installed", messages: next, ...usage };
}
