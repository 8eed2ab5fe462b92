import { cancelledError } from "../abort.ts";
import { errorText, ToolError } from "../errors.ts";

// The journal of one call's side effects (`ctx.once`): each keyed effect runs once and its
// JSON result is recorded, so a host that runs the tool again from the start (an MCP
// 2026-07-28 retry after a question) replays the recorded results instead of repeating the
// effects. See `docs/design.md`, "Tools and toolsets", T16.

/**
 * The recorded effects of one call: key → the result's JSON text, or `null` for an effect that
 * returned `undefined`. A host carries this map between runs of the same call.
 */
export type JournalEntries = Map<string, string | null>;

/** The journal of one call, as a host hands it to the tool's handler (`~journal`). */
export interface CallJournal {
  /**
   * Whether a question makes the host run the tool again from the start (MCP 2026-07-28): the
   * recorded effects are then replayed, and a tool declared `replayable: false` may not ask.
   */
  readonly replays: boolean;
  /** What has been recorded so far; the host signs and carries it. */
  readonly entries: JournalEntries;
  /**
   * Runs `effect` once for `key`: returns the recorded result when there is one (or the running
   * effect's, for a second use of a key while the first runs), else runs it, records its JSON
   * result and returns that JSON value (the same value every run sees).
   */
  once<T>(key: string, effect: () => T | Promise<T>, signal: AbortSignal, tool: string): Promise<T>;
  /**
   * Why this call may not ask a question now, or `undefined` when it may. Over a replaying
   * host a tool declared `replayable: false` may not ask, nor may one whose journal grew past
   * the bound the host can carry.
   */
  askProblem(tool: string, replayable: boolean): ToolError | undefined;
  /** Settles once no effect is running, so a host records every effect that started. */
  settled(): Promise<void>;
}

/** What `createCallJournal` takes. */
export interface CallJournalOptions {
  /** Effects recorded by earlier runs of the same call; written to as effects complete. */
  entries?: JournalEntries;
  /** Whether the host runs the tool again to replay questions; default `false`. */
  replays?: boolean;
  /**
   * The most bytes (keys plus JSON texts) the host can carry; a question asked past it fails the
   * call. Default: unbounded (a host that keeps the journal in memory carries anything).
   */
  maxBytes?: number;
}

/** Creates the journal of one call. */
export function createCallJournal(options: CallJournalOptions = {}): CallJournal {
  const entries: JournalEntries = options.entries ?? new Map();
  const replays = options.replays === true;
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const running = new Map<string, Promise<unknown>>();
  let bytes = 0;
  for (const [key, text] of entries) bytes += sizeOf(key, text);
  const record = async (key: string, effect: () => unknown, tool: string): Promise<unknown> => {
    const value = await effect();
    const text = jsonOf(value, key, tool);
    entries.set(key, text);
    bytes += sizeOf(key, text);
    return text === null ? undefined : JSON.parse(text);
  };
  return {
    replays,
    entries,
    once<T>(key: string, effect: () => T | Promise<T>, signal: AbortSignal, tool: string) {
      if (typeof key !== "string" || key === "") {
        return Promise.reject(invalid(`${tool}: ctx.once needs a non-empty string key`));
      }
      if (typeof effect !== "function") {
        return Promise.reject(invalid(`${tool}: ctx.once("${key}") needs a function`));
      }
      if (entries.has(key)) {
        const text = entries.get(key);
        return Promise.resolve((text == null ? undefined : JSON.parse(text)) as T);
      }
      const live = running.get(key);
      if (live) return live as Promise<T>;
      // A stopped call starts no effect: the host may already be recording the journal.
      if (signal.aborted) return Promise.reject(cancelledError(tool, signal));
      const run = record(key, effect, tool);
      running.set(key, run);
      const done = () => {
        running.delete(key);
      };
      run.then(done, done);
      return run as Promise<T>;
    },
    askProblem(tool, replayable) {
      if (!replays) return undefined;
      if (!replayable) {
        return new ToolError({
          type: "unsupported",
          operation: `tool \`${tool}\` asked a question, but it is declared \`replayable: false\` and this host (MCP 2026-07-28) answers a question by running the tool again from the start`,
        });
      }
      if (bytes > maxBytes) {
        return new ToolError({
          type: "unsupported",
          operation: `tool \`${tool}\` asked a question with ${bytes} bytes of recorded ctx.once results, more than the ${maxBytes} the retry can carry (maxJournalBytes); running it again would repeat them`,
        });
      }
      return undefined;
    },
    async settled() {
      while (running.size > 0) await Promise.allSettled([...running.values()]);
    },
  };
}

const encoder = new TextEncoder();

function sizeOf(key: string, text: string | null): number {
  return encoder.encode(key).length + (text === null ? 0 : encoder.encode(text).length);
}

function jsonOf(value: unknown, key: string, tool: string): string | null {
  if (value === undefined) return null;
  let text: string | undefined;
  let cause: unknown;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    cause = error;
  }
  if (text !== undefined) return text;
  throw new ToolError(
    {
      type: "invalid_output",
      message: `${tool}: ctx.once("${key}") returned a value with no JSON form${cause === undefined ? "" : ` (${errorText(cause)})`}`,
      issues: [],
    },
    { cause },
  );
}

function invalid(message: string): ToolError {
  return new ToolError({ type: "invalid_configuration", message });
}
