/** The share of the context window at which compaction starts when no threshold is set. */
const WINDOW_FRACTION = 0.66;

/**
 * Returns the prompt size, in tokens, at which a transcript is compacted: the explicit
 * threshold if set, else 0.66 × the context window rounded down (32,768 gives 21,626), else
 * `undefined`, meaning threshold compaction is off.
 *
 * Hint: off is the default because compaction is lossy; the user opts in by naming a threshold
 * or a window.
 *
 * @param options The explicit threshold and the model's context window.
 * @returns The threshold, or `undefined` when compaction is off.
 */
export function compactionThreshold(options: {
  thresholdTokens?: number | undefined;
  contextWindow?: number | undefined;
}): number | undefined {
  const { thresholdTokens, contextWindow } = options;
  if (thresholdTokens !== undefined && Number.isFinite(thresholdTokens)) return thresholdTokens;
  if (contextWindow !== undefined && Number.isFinite(contextWindow) && contextWindow > 0) {
    return Math.floor(WINDOW_FRACTION * contextWindow);
  }
  return undefined;
}
