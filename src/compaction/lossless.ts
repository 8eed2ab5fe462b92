// The lossless passes compaction runs before any summary: each replaces some tool results'
// text with a marker, in place, and never removes a block, so the transcript stays valid and
// the model can call the tool again for what was left out. Each pass is idempotent.
import type { Message, ToolResultBlock, ToolUseBlock } from "../models/message.ts";
import { toolContentText } from "../models/tool-content-text.ts";
import { isJsonObject } from "../schema/is-json-object.ts";

/**
 * Returns the canonical JSON text of a value: object keys sorted, no whitespace, so two equal
 * argument objects written in a different key order give the same text.
 *
 * `undefined`, functions and symbols are dropped inside objects and become `null` in
 * arrays, exactly as `JSON.stringify` does; a bare `undefined` becomes `null` so the result is
 * always a string.
 *
 * @param value Any JSON-like value.
 * @returns Its canonical JSON text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "null";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return sortKeys(toJSON.call(value));
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) out[key] = sortKeys(record[key]);
  return out;
}

/**
 * Returns the key of what a tool call acts on, so a later call on the same target supersedes an
 * earlier one.
 *
 * A string `path` argument makes the key path-based and shared across tools, so a write
 * supersedes an earlier read of the same file; `offset` and `limit` are part of it, so a ranged
 * read speaks only for its slice.
 *
 * @param name The tool's name.
 * @param input The call's arguments.
 * @returns The target key.
 */
export function toolTarget(name: string, input: unknown): string {
  if (isJsonObject(input)) {
    const args = input;
    if (typeof args.path === "string") {
      return `path\u0000${args.path}\u0000${canonicalJson(args.offset ?? 0)}\u0000${canonicalJson(args.limit ?? 0)}`;
    }
  }
  return `tool\u0000${name}\u0000${canonicalJson(input)}`;
}

/**
 * Returns the text of a tool result, each content item rendered as text (media as a short
 * placeholder) and the items joined by newlines.
 *
 * @param result The tool result block.
 * @returns Its text.
 */
export function resultText(result: ToolResultBlock): string {
  if (result.content.length === 1 && result.content[0]?.type === "text") {
    return result.content[0].text;
  }
  return result.content.map(toolContentText).join("\n");
}

/** How many characters a thinned result keeps. */
export const THIN_CHARS = 240;

const STALE = "[stale result: a later ";
const REPEAT = "[repeated failure: the same error recurs in a later result";
const THINNED = /\n\[thinned: \d+ more characters omitted\]$/;

/**
 * Returns the marker that replaces a result superseded by a later call on the same target.
 *
 * @param older The tool whose result is replaced.
 * @param newer The tool whose later result supersedes it.
 * @returns The marker text.
 */
export function staleMarker(older: string, newer: string): string {
  return `${STALE}${newer} call on the same target superseded this; call ${older} again if you need it]`;
}

/**
 * Returns the marker that replaces an older copy of a repeated failure.
 *
 * @returns The marker text.
 */
export function repeatMarker(): string {
  return `${REPEAT}]`;
}

/**
 * Returns a thinned copy of a long result text: its first characters plus a marker naming how
 * many were left out.
 *
 * @param text The full text, longer than `keep`.
 * @param keep How many characters to keep; `THIN_CHARS` by default.
 * @returns The thinned text.
 */
export function thinText(text: string, keep: number = THIN_CHARS): string {
  let end = keep;
  // Never split a surrogate pair, or the kept text stops being valid UTF-16.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}\n[thinned: ${text.length - end} more characters omitted]`;
}

/**
 * Checks whether a result text is a marker written by a compaction pass (stale, repeated or
 * thinned), which later passes leave alone.
 *
 * @param text The result text.
 * @returns Whether it is.
 */
export function isCompactionMarker(text: string): boolean {
  return text.startsWith(STALE) || text.startsWith(REPEAT) || THINNED.test(text);
}

/**
 * Checks whether a result is a refusal: the agent loop marked it `denied` (a person said no)
 * or `blocked` (policy said no). Read from the mark, never from the text, so a tool's error
 * worded like a refusal is still an error.
 *
 * @param result The tool result block.
 * @returns Whether it is.
 */
export function isRefusal(result: ToolResultBlock): boolean {
  return result.mark === "denied" || result.mark === "blocked";
}

/** Decides a result's new text, or `undefined` to leave it as it is. */
type ResultRewriter = (result: ToolResultBlock) => string | undefined;

/**
 * Returns a transcript with some tool results' content replaced by one text item, copying only
 * the messages that change. The input is never mutated and no block is removed.
 *
 * @param messages The transcript.
 * @param rewrite Decides each result's new text.
 * @param from The first message index to visit.
 * @param to The message index to stop before.
 * @returns The new transcript, or `undefined` when nothing changed.
 */
export function rewriteResults(
  messages: readonly Message[],
  rewrite: ResultRewriter,
  from = 0,
  to = messages.length,
): Message[] | undefined {
  let out: Message[] | undefined;
  for (let i = from; i < to; i++) {
    const message = messages[i];
    if (message === undefined || message.role !== "user") continue;
    let content: Message["content"] | undefined;
    for (let j = 0; j < message.content.length; j++) {
      const block = message.content[j];
      if (block?.type !== "tool_result") continue;
      const text = rewrite(block);
      if (text === undefined || isSameText(block, text)) continue;
      content ??= message.content.slice();
      content[j] = { ...block, content: [{ type: "text", text }] };
    }
    if (content === undefined) continue;
    out ??= messages.slice();
    out[i] = { ...message, content };
  }
  return out;
}

function isSameText(block: ToolResultBlock, text: string): boolean {
  const only = block.content.length === 1 ? block.content[0] : undefined;
  return only?.type === "text" && only.text === text;
}

/**
 * Returns every `tool_use` block of a transcript by its id, so a result finds its call in one
 * lookup.
 *
 * @param messages The transcript.
 * @returns The calls by id; a repeated id keeps its first call.
 */
export function toolUseIndex(messages: readonly Message[]): Map<string, ToolUseBlock> {
  const index = new Map<string, ToolUseBlock>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type === "tool_use" && !index.has(block.id)) index.set(block.id, block);
    }
  }
  return index;
}

/**
 * Returns a transcript in which every successful result superseded by a later successful call
 * on the same target is replaced, in place, by a stale marker. Lossless in the sense that the
 * model can call the tool again; errors are never evicted and never supersede anything.
 *
 * @param messages The transcript.
 * @param uses Its `tool_use` blocks by id.
 * @returns The new transcript, or `undefined` when nothing changed.
 */
export function evictSuperseded(
  messages: readonly Message[],
  uses: ReadonlyMap<string, ToolUseBlock>,
): Message[] | undefined {
  // One map keyed by target, filled in one forward scan, keeps the pass O(n); each
  // result's key is computed once and reused by the second scan.
  const newest = new Map<string, { block: number; name: string }>();
  const keys: (string | undefined)[] = [];
  rewriteResults(messages, (result) => {
    const use = result.isError ? undefined : uses.get(result.toolUseId);
    const key = use ? toolTarget(use.name, use.input) : undefined;
    if (use && key !== undefined) newest.set(key, { block: keys.length, name: use.name });
    keys.push(key);
    return undefined;
  });
  let block = 0;
  return rewriteResults(messages, (result) => {
    const key = keys[block];
    const latest = key === undefined ? undefined : newest.get(key);
    const mine = block++;
    if (!latest || latest.block === mine) return undefined;
    const use = uses.get(result.toolUseId);
    return use ? staleMarker(use.name, latest.name) : undefined;
  });
}

/**
 * Returns a transcript in which, among identical failures (same target, same trimmed error
 * text), only the newest keeps its text and older ones become a repeat marker. Refusals are
 * never collapsed, because they are human or policy evidence; a different error on the same
 * target is a separate fact.
 *
 * @param messages The transcript.
 * @param uses Its `tool_use` blocks by id.
 * @returns The new transcript, or `undefined` when nothing changed.
 */
export function collapseFailures(
  messages: readonly Message[],
  uses: ReadonlyMap<string, ToolUseBlock>,
): Message[] | undefined {
  const newest = new Map<string, number>();
  const keys: (string | undefined)[] = [];
  rewriteResults(messages, (result) => {
    const key = failureKey(result, uses.get(result.toolUseId));
    if (key !== undefined) newest.set(key, keys.length);
    keys.push(key);
    return undefined;
  });
  let block = 0;
  return rewriteResults(messages, () => {
    const key = keys[block];
    const mine = block++;
    if (key === undefined || newest.get(key) === mine) return undefined;
    return repeatMarker();
  });
}

function failureKey(result: ToolResultBlock, use: ToolUseBlock | undefined): string | undefined {
  if (!result.isError || !use || isRefusal(result)) return undefined;
  const text = resultText(result);
  // Markers (including thinned texts) are skipped, so a second run sees exactly the keys
  // the first one left, one result each: that is what makes the pass idempotent.
  if (isCompactionMarker(text)) return undefined;
  return `${toolTarget(use.name, use.input)}\u0000${text.trim()}`;
}

/**
 * Returns a transcript in which every tool result outside the last `max(1, keepRecent) × 2`
 * messages is cut to its first 240 characters plus a marker. Tool calls are never touched (the
 * sequence of calls records where the agent had got to); results already thinned or already
 * short are left alone, so the pass is idempotent.
 *
 * @param messages The transcript.
 * @param keepRecent How many recent messages the summary keeps verbatim.
 * @param all Thin every result, the recent ones too (overflow recovery).
 * @returns The new transcript, or `undefined` when nothing changed.
 */
export function thinResults(
  messages: readonly Message[],
  keepRecent: number,
  all = false,
): Message[] | undefined {
  // When a request does not fit, the oversized recent result is the problem, so overflow
  // recovery thins the recent window as well.
  const end = all ? messages.length : messages.length - Math.max(1, keepRecent) * 2;
  if (end <= 0) return undefined;
  return rewriteResults(messages, thinLong(THIN_CHARS), 0, end);
}

/**
 * Returns where the results the model has not read yet begin: the index of the first message
 * after the last assistant message (the transcript's length when it ends with one).
 *
 * @param messages The transcript.
 * @returns The index.
 */
export function unreadStart(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "assistant") return i + 1;
  }
  return 0;
}

/**
 * Returns a transcript in which every result the model has already read (every one before
 * `unreadStart`), the recent ones too, is cut to its first 240 characters plus a marker; the
 * results it has not read are left whole.
 *
 * @param messages The transcript.
 * @returns The new transcript, or `undefined` when nothing changed.
 */
export function thinRead(messages: readonly Message[]): Message[] | undefined {
  return rewriteResults(messages, thinLong(THIN_CHARS), 0, unreadStart(messages));
}

/**
 * Returns a transcript in which the results the model has not read yet are cut just enough to
 * save `excessTokens` by `estimate`: every unread result longer than some length is cut to that
 * length (the longest lose most), the length being the largest that saves enough. When even
 * cutting them to nothing saves too little, they are cut to nothing.
 *
 * @param messages The transcript.
 * @param excessTokens How many tokens to save.
 * @param estimate The token estimate of a transcript.
 * @returns The new transcript, or `undefined` when nothing needs or can be cut.
 */
export function fitUnread(
  messages: readonly Message[],
  excessTokens: number,
  estimate: (messages: readonly Message[]) => number,
): Message[] | undefined {
  const from = unreadStart(messages);
  if (excessTokens <= 0 || from >= messages.length) return undefined;
  let longest = 0;
  rewriteResults(
    messages,
    (result) => {
      const text = resultText(result);
      if (!isCompactionMarker(text)) longest = Math.max(longest, text.length);
      return undefined;
    },
    from,
  );
  // The whole transcript is estimated, not the unread tail: an estimate rounds, so the tail's
  // saving can differ from the transcript's by a token.
  const base = estimate(messages);
  const cut = (keep: number) => rewriteResults(messages, thinLong(keep), from);
  const saves = (next: Message[] | undefined) =>
    next !== undefined && base - estimate(next) >= excessTokens;
  // The saving only grows as the kept length shrinks, so the largest length that saves
  // enough is found by bisection: `low` never saves enough, `high` always does.
  if (!saves(cut(0))) return cut(0);
  let low = longest;
  let high = 0;
  while (low - high > 1) {
    const mid = Math.floor((low + high) / 2);
    if (saves(cut(mid))) high = mid;
    else low = mid;
  }
  return cut(high);
}

function thinLong(keep: number): ResultRewriter {
  return (result) => {
    const text = resultText(result);
    if (text.length <= keep || isCompactionMarker(text)) return undefined;
    return thinText(text, keep);
  };
}
