/**
 * The prefixes of refusal results. They are human or policy evidence, so compaction never
 * collapses them.
 */
export const REFUSAL_PREFIXES = [
  "Denied by the user:",
  "Blocked by policy:",
  "Blocked by a hook:",
] as const;

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
 * @param text The full text, longer than `THIN_CHARS`.
 * @returns The thinned text.
 */
export function thinText(text: string): string {
  let end = THIN_CHARS;
  // Hint: never split a surrogate pair, or the kept text stops being valid UTF-16.
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
 * Checks whether a result text is a refusal (denied by the user, blocked by policy or a hook).
 *
 * @param text The result text.
 * @returns Whether it is.
 */
export function isRefusal(text: string): boolean {
  const start = text.trimStart();
  return REFUSAL_PREFIXES.some((prefix) => start.startsWith(prefix));
}
