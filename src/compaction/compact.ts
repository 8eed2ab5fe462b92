import { cancelledError } from "../abort.ts";
import type { CarriedState } from "../declaration/carried-state.ts";
import { ToolError } from "../errors.ts";
import type { Message } from "../models/message.ts";
import type { CompactedEvent, Conversation } from "./conversation.ts";
import {
  checkTranscript,
  HEAD_BUDGET_FRACTION,
  headParts,
  isCarriedBlock,
  isSummaryBlock,
  rebuildHead,
  summaryCut,
} from "./head.ts";
import {
  collapseFailures,
  evictSuperseded,
  fitUnread,
  thinRead,
  thinResults,
  toolUseIndex,
  unreadStart,
} from "./lossless.ts";
import { estimateTokens } from "./pressure.ts";
import { renderTranscript, type Summarizer, type Summary } from "./summarizer.ts";

/** How many recent messages a summary keeps verbatim by default. */
export const DEFAULT_KEEP_RECENT = 6;

/** Options of `compact`; all optional. */
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
   * Thin every tool result, the recent ones too, as overflow recovery does: when a request does
   * not fit, the oversized recent result is the problem. Default false.
   */
  thinAll?: boolean;
  /**
   * The context window in tokens. Past a summary, results the model has not read yet (those
   * after the last assistant message) are thinned only when the prompt would not fit in it,
   * and then only as far as needed; without it they are never thinned by the threshold (only
   * by `thinAll`).
   */
  contextWindowTokens?: number;
  /**
   * When message 0 (task, summaries and carried state) is estimated at more than this many
   * tokens, the next summary is a fold: it replaces every earlier summary. Default a quarter of
   * `thresholdTokens`; without either, summaries are never folded.
   */
  headBudgetTokens?: number;
  /** Writes the summary; without one only the lossless passes run. */
  summarizer?: Summarizer;
  /** Aborts the summary; the input is left as it was. */
  signal?: AbortSignal;
  /** Token estimate of a transcript. Default `estimateTokens`. */
  estimateTokens?: (messages: readonly Message[]) => number;
  /**
   * Append the pre-rewrite transcript to `rewritten` when anything changed. Default false, so
   * a long run does not keep a copy of its transcript per compaction.
   */
  keepRewritten?: boolean;
}

/**
 * Why a summary was not installed, discriminated by `type`. The agent loop stops attempting
 * summaries for the run after any of these.
 */
export type SummaryFailure =
  | { type: "empty" }
  | { type: "truncated" }
  | { type: "failed"; error: unknown }
  | { type: "unsafe"; reason: string };

/** What `compact` did. */
export interface CompactResult {
  /** The compacted conversation (the input itself when nothing changed). */
  conversation: Conversation;
  /** Whether the transcript changed. */
  changed: boolean;
  /** Whether a summary was installed. */
  summarized: boolean;
  /** Whether the installed summary was a fold that replaced every earlier summary. */
  folded: boolean;
  /** Why an attempted summary was not installed. */
  summaryError?: SummaryFailure;
  /**
   * Why the transcript is still at or over `thresholdTokens` although a summary was allowed
   * (and none failed); absent when it is under, or when no threshold or summariser was given.
   */
  overThreshold?: string;
  /** The transcript's size now, on the same basis as `promptTokens`. */
  tokens: number;
  /** What to emit: present when the transcript changed or `overThreshold` is set. */
  event?: CompactedEvent;
  /** Tokens the summariser spent. */
  usage?: { inputTokens: number; outputTokens: number };
}

/**
 * Compacts a conversation. Under the threshold nothing is done. At or over it (or when forced)
 * the lossless passes run first (evict superseded results, collapse repeated failures, thin old
 * results); if the transcript is still over, the stretch between message 0 and the last
 * `keepRecent` messages is summarised into message 0, which keeps the task blocks verbatim and
 * ends with exactly one carried-state block, read after the summary returns.
 *
 * Message 0 stays bounded: once it is over its budget (`headBudgetTokens`, default a quarter of
 * the threshold) the summary is a fold, which replaces every earlier summary with one. If the
 * transcript is still over the threshold after that, every result the model has read is thinned,
 * the recent ones too. The threshold is a soft target: results the model has not read yet stay
 * whole unless the prompt would not fit `contextWindowTokens`, and are then cut only as far as
 * needed. If what may be thinned cannot bring the prompt under, `overThreshold` says why.
 *
 * The input is never mutated. An empty, truncated or failed summary or fold is never installed
 * (the previous message 0 stays), and neither is a rebuild that would orphan a tool result or put
 * two user messages in a row. Taint is kept as is.
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
  const unchanged = { conversation, changed: false, summarized: false, folded: false };
  if (threshold !== undefined && options.force !== true && beforeTokens < threshold) {
    // Under the threshold nothing runs, not even the free passes, so a loop can call this every
    // turn without rewriting anything.
    return { ...unchanged, tokens: beforeTokens };
  }
  beforeEstimate ??= estimate(before);

  const uses = toolUseIndex(before);
  let messages = before;
  messages = evictSuperseded(messages, uses) ?? messages;
  messages = collapseFailures(messages, uses) ?? messages;
  messages = thinResults(messages, keepRecent, options.thinAll === true) ?? messages;
  let currentEstimate = messages === before ? beforeEstimate : estimate(messages);
  // The reading measured the transcript before the passes; anchoring on it and subtracting the
  // estimated saving is what lets "the passes freed enough" skip the summary.
  let tokens = Math.max(0, beforeTokens - (beforeEstimate - currentEstimate));
  const install = (next: Message[]) => {
    const nextEstimate = estimate(next);
    tokens = Math.max(0, tokens - (currentEstimate - nextEstimate));
    currentEstimate = nextEstimate;
    messages = next;
  };
  const overNow = () => threshold !== undefined && tokens >= threshold;

  const result: Omit<CompactResult, "conversation" | "changed" | "tokens"> = {
    summarized: false,
    folded: false,
  };
  let summary: string | undefined;
  const { summarizer } = options;
  if (summarizer && (options.force === true || overNow())) {
    const budget =
      options.headBudgetTokens ??
      (threshold === undefined ? undefined : Math.floor(threshold * HEAD_BUDGET_FRACTION));
    const headOver = (head: Message) => budget !== undefined && estimate([head]) > budget;
    const attempt = async (cut: number, fold: boolean) => {
      const outcome = await summarize(messages, cut, fold, summarizer, options);
      if (outcome.usage) result.usage = addUsage(result.usage, outcome.usage);
      if (outcome.type === "refused") {
        result.summaryError = outcome.failure;
        return;
      }
      install(outcome.messages);
      summary = outcome.summary;
      result.summarized = true;
      if (fold) result.folded = true;
    };
    const head = messages[0] as Message;
    const cut = summaryCut(messages, keepRecent);
    if (cut !== undefined) {
      await attempt(cut, headOver(head) && headParts(head).summaries.length > 0);
    }
    // Still over with a head past its budget: fold what message 0 holds now, with no new turns.
    const now = messages[0] as Message;
    if (!result.summaryError && !result.folded && overNow() && headOver(now)) {
      if (headParts(now).summaries.length > 1) await attempt(1, true);
    }
    // Past the first summary, a prompt still over the threshold is the recent turns' results:
    // thin the ones the model has read rather than compact again every turn. A result it has
    // not read is cut only when the request would not fit the window, and only as far as that
    // needs: a thinned answer to its own call makes the model ask again. Before the first
    // summary, a transcript too short to summarise simply waits for more turns.
    const summarizedBefore =
      result.summarized || headParts(messages[0] as Message).summaries.length > 0;
    let unreadOnly = false;
    if (!result.summaryError && summarizedBefore && overNow() && options.thinAll !== true) {
      const thinned = thinRead(messages);
      if (thinned) install(thinned);
      const window = options.contextWindowTokens;
      if (window !== undefined && tokens > window) {
        const fitted = fitUnread(messages, tokens - window, estimate);
        if (fitted) install(fitted);
      }
      // Over only because of unread results: the next turn reads them and the next
      // compaction may thin them, so this is no reason to give up on the run.
      const unread = messages.slice(unreadStart(messages));
      const floor = thinResults(unread, 0, true);
      if (floor) unreadOnly = tokens - (estimate(unread) - estimate(floor)) < (threshold as number);
    }
    if (!result.summaryError && summarizedBefore && overNow() && !unreadOnly) {
      result.overThreshold = whyOver(messages, tokens, threshold as number, estimate);
    }
  }

  const changed = messages !== before;
  if (changed || result.overThreshold !== undefined) {
    const event: CompactedEvent = {
      type: "compacted",
      before: { messages: before.length, tokens: beforeTokens },
      after: { messages: messages.length, tokens },
      summarized: result.summarized,
    };
    if (summary !== undefined) event.summary = summary;
    if (result.folded) event.folded = true;
    if (result.overThreshold !== undefined) event.overThreshold = result.overThreshold;
    result.event = event;
  }
  if (!changed) return { ...unchanged, ...result, tokens };
  const next: Conversation = {
    ...conversation,
    messages,
    taint: { ...conversation.taint },
    rewritten:
      options.keepRewritten === true
        ? [...conversation.rewritten, before.slice()]
        : conversation.rewritten,
  };
  return { conversation: next, changed: true, tokens, ...result };
}

function whyOver(
  messages: readonly Message[],
  tokens: number,
  threshold: number,
  estimate: (messages: readonly Message[]) => number,
): string {
  const head = messages[0] as Message;
  const fixed = { ...head, content: head.content.filter((block) => !isSummaryBlock(block)) };
  const fixedTokens = estimate([fixed]);
  if (fixedTokens >= threshold / 2) {
    return `the task and the carried state alone are about ${fixedTokens} tokens, against a threshold of ${threshold}`;
  }
  return `after summarising, folding and thinning, the prompt is still about ${tokens} tokens (${messages.length} messages), against a threshold of ${threshold}`;
}

type Outcome = { usage?: Summary["usage"] } & (
  | { type: "installed"; messages: Message[]; summary: string }
  | { type: "refused"; failure: SummaryFailure }
);

async function summarize(
  messages: readonly Message[],
  cut: number,
  fold: boolean,
  summarizer: Summarizer,
  options: CompactOptions,
): Promise<Outcome> {
  const { signal } = options;
  const head = messages[0] as Message;
  const parts = headParts(head);
  // A fold hands the earlier summaries over separately; otherwise they stay in the rendering
  // after the task, so the summariser knows what is already covered.
  const shown = fold
    ? { ...head, content: parts.task }
    : { ...head, content: head.content.filter((block) => !isCarriedBlock(block)) };
  const transcript = renderTranscript([shown, ...messages.slice(1, cut)]);
  let summary: Summary;
  try {
    const request = fold ? { transcript, summaries: parts.summaries } : { transcript };
    summary = await summarizer(request, signal ? { signal } : {});
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
    // Read only now, after the round trip, so the block is current at install time.
    const fromToolsets = await Promise.all((options.toolsets ?? []).map((t) => t.carriedState()));
    states = [...fromToolsets.flat(), ...(options.carried ?? [])];
  } catch (error) {
    return { type: "refused", failure: { type: "failed", error }, ...usage };
  }
  const next = [rebuildHead(head, summary.text, states, fold), ...messages.slice(cut)];
  const problem = checkTranscript(next);
  if (problem !== undefined)
    return { type: "refused", failure: { type: "unsafe", reason: problem }, ...usage };
  return { type: "installed", messages: next, summary: summary.text.trim(), ...usage };
}

function addUsage(
  a: Summary["usage"],
  b: NonNullable<Summary["usage"]>,
): NonNullable<Summary["usage"]> {
  if (!a) return b;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
}
