/**
 * Pressure tracker interface: predicts the next request's prompt size from the provider's last
 * readings and the transcript's size in bytes, for providers that report no usage and for the
 * turn right after a rewrite.
 */
export interface PressureTracker {
  /**
   * Records a provider reading.
   *
   * @param tokens The prompt tokens the provider reported.
   * @param bytes The transcript's size in bytes when that prompt was sent (`transcriptBytes`).
   */
  observe(tokens: number, bytes: number): void;
  /**
   * Returns the predicted prompt size for a transcript of `bytes` bytes: the last reading plus
   * the change in bytes times the marginal token rate.
   *
   * @param bytes The transcript's size now.
   * @returns The prediction, or `undefined` before any reading.
   */
  predict(bytes: number): number | undefined;
  /**
   * Checks whether the transcript is over a limit: the last reading is (unless a rewrite made it
   * stale), or the prediction is. False before any reading.
   *
   * @param limit The threshold in tokens.
   * @param bytes The transcript's size now.
   * @returns Whether it is over.
   */
  over(limit: number, bytes: number): boolean;
  /** Marks the last reading stale (it measured a transcript a rewrite replaced). */
  invalidate(): void;
}

/** Byte changes smaller than this give no usable marginal rate. */
const MIN_RATE_BYTES = 512;
/** The lowest marginal rate, in tokens per byte; also the rate used when none is measured. */
const MIN_TOKENS_PER_BYTE = 1 / 3;
/** The highest marginal rate, in tokens per byte. */
const MAX_TOKENS_PER_BYTE = 1;

interface Reading {
  tokens: number;
  bytes: number;
}

/**
 * Creates a pressure tracker. Prediction can only add a reason to compact: whenever the last
 * fresh reading is over the limit, `over` is true.
 *
 * Hint: the rate is the marginal one between the last two readings, not a cumulative ratio, and
 * the prediction is anchored on the last reading, so a fixed system prompt or tool list (tokens
 * with no bytes in the transcript) does not skew it. It is clamped to [1/3, 1] token per byte,
 * so the predicted change never exceeds the change in bytes.
 *
 * @returns The tracker.
 */
/* @__NO_SIDE_EFFECTS__ */
export function createPressureTracker(): PressureTracker {
  let previous: Reading | undefined;
  let last: Reading | undefined;
  let stale = false;

  const rate = (): number => {
    if (!previous || !last) return MIN_TOKENS_PER_BYTE;
    const bytes = last.bytes - previous.bytes;
    if (Math.abs(bytes) < MIN_RATE_BYTES) return MIN_TOKENS_PER_BYTE;
    const measured = (last.tokens - previous.tokens) / bytes;
    return Math.min(MAX_TOKENS_PER_BYTE, Math.max(MIN_TOKENS_PER_BYTE, measured));
  };

  const predict = (bytes: number): number | undefined => {
    if (!last) return undefined;
    return Math.max(0, last.tokens + (bytes - last.bytes) * rate());
  };

  return {
    observe(tokens, bytes) {
      previous = last;
      last = { tokens, bytes };
      stale = false;
    },
    predict,
    over(limit, bytes) {
      if (!last) return false;
      if (!stale && last.tokens >= limit) return true;
      return (predict(bytes) ?? 0) >= limit;
    },
    invalidate() {
      stale = true;
    },
  };
}
