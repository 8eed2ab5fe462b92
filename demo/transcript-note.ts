import type { RunResult } from "../src/agent/index.ts";
import { isModelError } from "../src/models/index.ts";
import { unreachable } from "./unreachable.ts";

/**
 * What the page says in the transcript besides the messages, discriminated by `type`: a notice,
 * or a divider where compaction rewrote what the model reads (the chat still shows everything).
 * `at` is how many messages were on screen when it was added: it shows after them.
 */
export type TranscriptNote =
  | { type: "notice"; id: string; at: number; tone: "info" | "warning" | "error"; text: string }
  | {
      type: "compaction";
      id: string;
      at: number;
      /** Messages before and after the rewrite. */
      from: number;
      to: number;
      summarized: boolean;
      reason: string;
    };

/**
 * Returns why a model request is retried, as the user reads it: a 429 means wait your turn, a
 * 5xx that the provider failed.
 */
export function retryText(event: { attempt: number; delayMs: number; error: unknown }): string {
  return `${retryReason(event.error)}; retry ${event.attempt} in ${event.delayMs} ms.`;
}

function retryReason(error: unknown): string {
  if (!isModelError(error)) return "The model request failed";
  const { status, code } = error;
  if (error.type === "rate_limit") return `The model is busy (rate limited, HTTP ${status})`;
  if (code === "overloaded_error" || code === "overloaded") {
    return `The model is busy (the provider is overloaded${status ? `, HTTP ${status}` : ""})`;
  }
  if (error.type === "http" && status !== undefined && status >= 500) {
    return `The model provider failed (HTTP ${status})`;
  }
  if (error.type === "http" && status === undefined)
    return "The model provider could not be reached";
  return "The model's answer broke off";
}

/** Returns what the page says about how a run stopped, if anything (a finished answer: no). */
export function stopText(stop: RunResult["stop"]): string | undefined {
  switch (stop) {
    case "done":
    case "error":
      return undefined;
    case "cancelled":
      return "Stopped. Everything in flight was cancelled.";
    case "paused":
      return "Paused; the run resumes where it stopped.";
    case "max_turns":
      return "The run reached its turn limit.";
    case "loop":
      return "The model repeated itself after a compaction, so the run stopped.";
    case "no_output":
      return "The model returned nothing, so the run stopped.";
    case "length":
      return "The answer was cut off at the token limit.";
    case "content_filter":
      return "The provider withheld the answer (content filter).";
    case "refusal":
      return "The model declined to answer.";
    case "compaction_stalled":
      return "Compaction could not bring the transcript under the threshold, so the run stopped.";
    default:
      return unreachable(stop);
  }
}
