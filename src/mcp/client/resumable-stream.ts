// 2025-11-25 stream resumption on the client (design.md "Consuming MCP", M19): a server may
// close a request's event stream before the response (SSE polling) or the connection may drop;
// when the stream gave an event id, the client waits the server's `retry:` delay and goes on
// with a GET carrying `Last-Event-ID`, where the server replays what the client missed. This
// file holds the policy (delays, attempts, the byte budget); the session opens the GET.

import { errorText, isToolError, ToolError, unreachable } from "../../errors.ts";
import { readSseEvents, type SseEvent } from "../../sse/sse-parser.ts";

/** How a reconnection went: a stream to read on, or a failure worth another attempt. */
export type Reopened =
  | { type: "stream"; body: ReadableStream<Uint8Array> }
  | { type: "unavailable"; why: string };

/** What `resumableEvents` needs beyond the first stream. */
export interface ResumeOptions {
  /** Aborts reading and waiting; the generator rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** The tool or operation named in errors. */
  label: string;
  /** The method whose stream this is, named in errors. */
  method: string;
  /** Cap of one SSE line or event. */
  maxMessageBytes: number;
  /**
   * Opens the stream again after `lastEventId` (a GET with `Last-Event-ID`); throws a
   * `ToolError` when the server refuses for good. Absent: the stream cannot resume (2026-07-28
   * has no GET stream).
   */
  reconnect?: ((lastEventId: string) => Promise<Reopened>) | undefined;
}

/** Delay before a reconnection when the server gave no `retry:` field, in milliseconds. */
export const DEFAULT_RETRY_MS = 1000;
/** Reconnections in a row that may bring no new event before the stream is given up. */
export const MAX_RESUME_FAILURES = 5;
/** What the streams that resume one request may read in all: this many `maxMessageBytes`. */
export const RESUMED_BYTES_FACTOR = 8;
// A failed reconnection waits twice as long as the one before, from at least a quarter second
// (a `retry: 0` server still gets a pause) up to half a minute, or the server's `retry:` when
// that is longer.
const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;

/**
 * Yields the events of a request's stream and of the streams that resume it, until the
 * caller stops reading. It returns when the stream ends and cannot resume (no event id was
 * seen, or no `reconnect`): the caller then reports the early end.
 *
 * Each line and event is capped at `maxMessageBytes`; the resumed streams together at
 * `RESUMED_BYTES_FACTOR` times that; `MAX_RESUME_FAILURES` reconnections in a row that bring no
 * new event (or do not open) give up.
 *
 * @throws ToolError `transport` when resumption fails for good, or the budget is spent; the
 * signal's reason on abort; `RangeError` for a line or an event over its cap.
 */
export async function* resumableEvents(
  first: ReadableStream<Uint8Array>,
  options: ResumeOptions,
): AsyncGenerator<SseEvent, void, undefined> {
  const { signal, reconnect, method, label } = options;
  let lastEventId = "";
  let retryMs: number | undefined;
  let failures = 0;
  let why = "";
  const budget = { left: RESUMED_BYTES_FACTOR * options.maxMessageBytes };
  const limits = {
    maxLineLength: options.maxMessageBytes,
    maxDataLength: options.maxMessageBytes,
    signal,
    onRetry: (ms: number) => {
      retryMs = ms;
    },
  };
  let body: ReadableStream<Uint8Array> | undefined = first;
  for (let resumed = false; ; resumed = true) {
    const before = lastEventId;
    if (body) {
      const source = resumed ? metered(body, budget, options) : body;
      try {
        for await (const event of readSseEvents(source, limits)) {
          if (event.id !== "") lastEventId = event.id;
          yield event;
        }
        why = "the server closed it";
      } catch (error) {
        // A drop of the connection resumes like a close; anything the client decided does not.
        if (signal?.aborted || isToolError(error) || error instanceof RangeError) throw error;
        why = `the connection failed: ${errorText(error)}`;
      }
    }
    if (!reconnect || lastEventId === "") return;
    failures = resumed && lastEventId === before ? failures + 1 : 0;
    if (failures >= MAX_RESUME_FAILURES) {
      throw new ToolError({
        type: "transport",
        tool: label,
        message: `the ${method} stream ended before its response and ${MAX_RESUME_FAILURES} attempts in a row to resume it brought nothing (last: ${why})`,
      });
    }
    const base = retryMs ?? DEFAULT_RETRY_MS;
    const backoff = Math.min(MAX_BACKOFF_MS, Math.max(base, MIN_BACKOFF_MS) * 2 ** failures);
    await pause(failures === 0 ? base : Math.max(base, backoff), signal);
    const reopened = await reconnect(lastEventId);
    switch (reopened.type) {
      case "stream":
        body = reopened.body;
        break;
      case "unavailable":
        body = undefined;
        why = reopened.why;
        break;
      default:
        unreachable(reopened);
    }
  }
}

// The resumed streams share one byte budget: a server that keeps closing and replaying cannot
// have the client read without end.
function metered(
  body: ReadableStream<Uint8Array>,
  budget: { left: number },
  options: ResumeOptions,
): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        budget.left -= chunk.byteLength;
        if (budget.left >= 0) {
          controller.enqueue(chunk);
          return;
        }
        const cap = RESUMED_BYTES_FACTOR * options.maxMessageBytes;
        controller.error(
          new ToolError({
            type: "transport",
            tool: options.label,
            message: `the streams resuming ${options.method} passed ${cap} bytes (${RESUMED_BYTES_FACTOR} × maxMessageBytes); the stream was dropped`,
          }),
        );
      },
    }),
  );
}

// Waits `ms`, or rejects with the signal's reason when it aborts first; the timer never
// outlives the wait.
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
