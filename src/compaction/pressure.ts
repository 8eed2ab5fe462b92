// How big a transcript is and when it is big enough to compact: its byte size, a token
// estimate, the threshold, and the tracker that predicts the next prompt from provider readings.
import type { Message } from "../models/message.ts";

/**
 * Returns the UTF-8 size of a transcript's JSON, with image and audio payloads left out.
 *
 * A base64 image costs a provider a fixed, small number of tokens, not one per byte, so
 * counting its payload would make every size estimate and prediction wildly pessimistic.
 *
 * @param messages The transcript.
 * @param sizes Per-message sizes already measured, keyed by message object. The agent loop
 *   passes one per run, so each turn serialises only the messages added since the last; it is
 *   only valid while no message object is mutated in place.
 * @returns Its size in bytes.
 */
export function transcriptBytes(
  messages: readonly Message[],
  sizes?: WeakMap<Message, number>,
): number {
  let total = messages.length === 0 ? 2 : 1;
  for (const message of messages) {
    let bytes = sizes?.get(message);
    if (bytes === undefined) {
      bytes = utf8Length(json(message));
      sizes?.set(message, bytes);
    }
    total += bytes + 1;
  }
  return total;
}

function json(message: Message): string {
  // A replacer is several times slower than a plain stringify, and the loop runs this
  // every turn; a payload-bearing object always serialises with this exact, unescaped text.
  const plain = JSON.stringify(message);
  return plain.includes('"type":"image"') || plain.includes('"type":"audio"')
    ? JSON.stringify(message, dropPayload)
    : plain;
}

function dropPayload(this: unknown, key: string, value: unknown): unknown {
  if (key !== "data" || typeof value !== "string") return value;
  const type = (this as { type?: unknown }).type;
  return type === "image" || type === "audio" ? "" : value;
}

function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair is two code units and four bytes.
      bytes += 2;
      i++;
    } else {
      bytes += 2;
    }
  }
  return bytes;
}

/**
 * Returns a rough token count for a transcript: a quarter of its JSON size in bytes, image
 * payloads excluded. Compaction falls back to it when no provider measurement is available; a
 * UI can use it to show a saved conversation's size before any model has read it.
 *
 * @param messages The transcript.
 * @returns The estimated token count.
 */
export function estimateTokens(messages: readonly Message[]): number {
  return Math.ceil(transcriptBytes(messages) / 4);
}

/** The share of the context window at which compaction starts when no threshold is set. */
const WINDOW_FRACTION = 0.66;

/**
 * Returns the prompt size, in tokens, at which a transcript is compacted: the explicit
 * threshold if set, else 0.66 × the context window rounded down (32,768 gives 21,626), else
 * `undefined`, meaning threshold compaction is off.
 *
 * Off is the default because compaction is lossy; the user opts in by naming a threshold
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

/**
 * Predicts the next request's prompt size from the provider's last
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
 * The rate is the marginal one between the last two readings, not a cumulative ratio, and
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
