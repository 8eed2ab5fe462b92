import {
  type AgentEvent,
  CARRIED_STATE_HEADER,
  isCarriedBlock,
  isSummaryBlock,
  type Message,
  type RunResult,
  SUMMARY_MARKER,
} from "../src/agent/index.ts";

/** One compaction as the page's log shows it. */
export interface CompactionRecord {
  /** A unique id. */
  id: string;
  /** When it happened (ISO 8601). */
  at: string;
  /** Why: `threshold`, `predicted`, `requested`, `overflow`, or `manual` (the button). */
  reason: string;
  before: { messages: number; tokens: number };
  after: { messages: number; tokens: number };
  /** Whether a summary was installed (otherwise only the lossless passes changed things). */
  summarized: boolean;
  /** The summary this compaction installed in message 0. */
  summary?: string;
  /** Whether that summary replaced the earlier ones (a fold). */
  folded?: boolean;
  /** The carried-state block's text after this compaction, header excluded. */
  carried?: string;
  /** The transcript as it was before the rewrite. */
  transcript: Message[];
}

type CompactedAgentEvent = Extract<AgentEvent, { type: "compacted" }>;

/** The compaction-owned parts of message 0. */
export interface HeadParts {
  /** The summaries in message 0, oldest first, marker line removed (one after a fold). */
  summaries: string[];
  /** The carried-state block, header line removed. */
  carried?: string;
}

/**
 * Returns the summaries and the carried-state block that compaction installed in message 0.
 *
 * @param head Message 0, if any.
 * @returns Its parts.
 */
export function headParts(head: Message | undefined): HeadParts {
  const parts: HeadParts = { summaries: [] };
  for (const block of head?.content ?? []) {
    if (block.type !== "text") continue;
    const text = block.text.trimStart();
    if (isSummaryBlock(block)) {
      parts.summaries.push(text.slice(SUMMARY_MARKER.length).replace(/^\n/, ""));
    } else if (isCarriedBlock(block)) {
      parts.carried = text.slice(CARRIED_STATE_HEADER.length).replace(/^\n/, "");
    }
  }
  return parts;
}

/**
 * Returns the records of the compactions one run made: its `compacted` events paired, in
 * order, with the pre-rewrite transcripts the run kept in `conversation.rewritten` (the demo
 * runs with `keepRewritten: true` and empties it after each run, so it holds one run's
 * rewrites at most). An event that changed nothing (a stalled run's last) has no transcript.
 *
 * The message 0 that compaction `k` installed is message 0 of the transcript compaction `k + 1`
 * started from, or of the final transcript for the last one.
 *
 * @param events The run's `compacted` events.
 * @param result The run's result.
 * @returns The records, oldest first.
 */
export function compactionRecords(
  events: readonly CompactedAgentEvent[],
  result: RunResult,
): CompactionRecord[] {
  const { rewritten, messages } = result.conversation;
  return events.flatMap((event, k) => {
    const transcript = rewritten[k];
    if (transcript === undefined) return [];
    const head = (rewritten[k + 1] ?? messages)[0];
    return [recordOf(event, event.reason, transcript, head)];
  });
}

/**
 * Returns the record of one compaction, given the transcript before and message 0 after.
 *
 * @param event The sizes, whether it summarised, and the summary it installed.
 * @param reason Why it ran.
 * @param transcript The transcript before the rewrite.
 * @param head Message 0 after the rewrite, for the carried state.
 * @returns The record.
 */
export function recordOf(
  event: Omit<CompactedAgentEvent, "reason" | "summaryError">,
  reason: string,
  transcript: Message[],
  head: Message | undefined,
): CompactionRecord {
  const parts = headParts(head);
  const record: CompactionRecord = {
    id: crypto.randomUUID(),
    at: new Date().toISOString(),
    reason,
    before: { ...event.before },
    after: { ...event.after },
    summarized: event.summarized,
    transcript,
  };
  if (event.summary !== undefined) record.summary = event.summary;
  if (event.folded) record.folded = true;
  if (parts.carried !== undefined) record.carried = parts.carried;
  return record;
}
