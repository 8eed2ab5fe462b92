/**
 * Summary request interface: what a summariser is given.
 */
export interface SummaryRequest {
  /** The flat rendering of the stretch to summarise (see `renderTranscript`). */
  transcript: string;
}

/**
 * Summary interface: what a summariser returns.
 */
export interface Summary {
  /** The summary text; an empty one is never installed. */
  text: string;
  /** Whether the text was cut off by a token limit; a truncated summary is never installed. */
  truncated?: boolean;
  /** Tokens the summariser spent, when it used a model, for the run's usage. */
  usage?: { inputTokens: number; outputTokens: number };
}

/**
 * Summarizer type: turns a rendered stretch of transcript into a summary. It may throw; a
 * failure is reported and the transcript stays as it was.
 *
 * @param request The rendering to summarise.
 * @param options The abort signal.
 * @returns The summary.
 */
export type Summarizer = (
  request: SummaryRequest,
  options: { signal?: AbortSignal },
) => Promise<Summary>;
