/// <reference types="node" />

// Newline-delimited JSON-RPC framing, shared by `connectStdio` and `serveStdio`: MCP's stdio
// transport sends one message per line, UTF-8, with no embedded newlines (see `docs/design.md`,
// "stdio").

/** The largest message either side accepts by default, in bytes: 4 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Splits a byte stream into lines without ever holding more than `maxBytes` of one line. */
export interface LineSplitter {
  /** Feeds the next chunk; complete lines reach `onLine` before it returns. */
  push(chunk: Uint8Array): void;
}

/**
 * Creates a splitter. A line longer than `maxBytes` calls `onOverflow` and is never buffered:
 * with `resync` the rest of that line is skipped and splitting goes on at the next newline;
 * without it everything after is dropped (a peer that sends an endless line cannot make us
 * buffer it). A trailing `\r` is removed, and blank lines are skipped.
 */
export function createLineSplitter(
  maxBytes: number,
  onLine: (line: string) => void,
  onOverflow: () => void,
  options: { resync?: boolean } = {},
): LineSplitter {
  let parts: Buffer[] = [];
  let size = 0;
  let stopped = false;
  let skipping = false;
  const emit = (tail: Buffer) => {
    const bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
    parts = [];
    size = 0;
    let text = bytes.toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.trim() !== "") onLine(text);
  };
  return {
    push(chunk) {
      let rest = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      while (!stopped) {
        const end = rest.indexOf(10);
        if (skipping) {
          if (end === -1) return;
          skipping = false;
          rest = rest.subarray(end + 1);
          continue;
        }
        const length = end === -1 ? rest.length : end;
        if (size + length > maxBytes) {
          parts = [];
          size = 0;
          if (options.resync) skipping = true;
          else stopped = true;
          onOverflow();
          continue;
        }
        if (end === -1) {
          if (rest.length > 0) {
            parts.push(rest);
            size += rest.length;
          }
          return;
        }
        emit(rest.subarray(0, end));
        rest = rest.subarray(end + 1);
      }
    },
  };
}

/** Checks a `maxMessageBytes` option; returns the default when it is absent. */
export function maxMessageBytes(value: unknown, invalid: (message: string) => Error): number {
  if (value === undefined) return DEFAULT_MAX_MESSAGE_BYTES;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1024) {
    throw invalid("maxMessageBytes must be a whole number of bytes, at least 1024");
  }
  return value;
}
