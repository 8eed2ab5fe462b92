import { unreachable } from "../errors.ts";
import type { Block, Message } from "../models/message.ts";
import { resultText } from "./lossless.ts";

/**
 * What a summariser is given. Without `summaries` it summarises `transcript`; with them the
 * request is a fold: write one summary that replaces all of `summaries` and covers
 * `transcript` too, newer facts overriding older ones.
 */
export interface SummaryRequest {
  /**
   * The flat rendering of the stretch to summarise: `[user]`, `[assistant]`,
   * `[assistant calls NAME] args`, `[tool result]` or `[tool error]` entries, results clipped to
   * 2,000 characters. It starts with the task (and, outside a fold, the earlier summaries).
   */
  transcript: string;
  /** For a fold: the summaries in message 0 so far, oldest first, marker line removed. */
  summaries?: readonly string[];
}

/** What a summariser returns. */
export interface Summary {
  /** The summary text; an empty one is never installed. */
  text: string;
  /** Whether the text was cut off by a token limit; a truncated summary is never installed. */
  truncated?: boolean;
  /** Tokens the summariser spent, when it used a model, for the run's usage. */
  usage?: { inputTokens: number; outputTokens: number };
}

/**
 * Turns a rendered stretch of transcript (and, for a fold, the earlier summaries) into one
 * summary. It may throw; the failure is reported and the transcript stays as it was.
 * `extractiveSummarizer()` and `modelSummarizer(model)` are the two built in.
 *
 * @example
 * ```ts
 * const summarizer: Summarizer = async ({ transcript, summaries = [] }) => ({
 *   text: [...summaries, transcript.slice(-500)].join("\n"),
 * });
 * ```
 */
export type Summarizer = (
  request: SummaryRequest,
  options: { signal?: AbortSignal },
) => Promise<Summary>;

/** How many characters of one tool result the rendering keeps. */
const RENDER_RESULT_CHARS = 2000;

/**
 * Returns the flat text rendering a summariser reads: one entry per block, tagged `[user]`,
 * `[assistant]`, `[assistant calls NAME] args`, `[tool result]` or `[tool error]`, with results
 * clipped to 2,000 characters (the omitted count named) and images as a placeholder.
 *
 * A summary request that carries tool results but declares no tools makes some servers return
 * an empty completion, so the summariser never sees the structured transcript.
 *
 * @param messages The messages to render.
 * @returns The rendering, entries separated by newlines.
 */
export function renderTranscript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const block of message.content) lines.push(renderBlock(message.role, block));
  }
  return lines.join("\n");
}

function renderBlock(role: Message["role"], block: Block): string {
  switch (block.type) {
    case "text":
      return `[${role}] ${block.text}`;
    case "tool_use":
      return `[assistant calls ${block.name}] ${JSON.stringify(block.input) ?? "null"}`;
    case "tool_result":
      return `[tool ${block.isError ? "error" : "result"}] ${clip(resultText(block))}`;
    case "image":
      return `[${role}] [image: ${block.mimeType}, ${imageBytes(block.data)} bytes]`;
    case "reasoning":
      return `[${role} reasoning] ${clip(block.text)}`;
    case "server_tool":
      return `[${block.provider} server tool] ${clip(JSON.stringify(block.data))}`;
    default:
      return unreachable(block);
  }
}

function clip(text: string): string {
  if (text.length <= RENDER_RESULT_CHARS) return text;
  const omitted = text.length - RENDER_RESULT_CHARS;
  return `${text.slice(0, RENDER_RESULT_CHARS)}… [${omitted} characters omitted]`;
}

function imageBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}
