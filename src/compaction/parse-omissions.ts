/**
 * Validation verdict type: what a validator's reply means, discriminated by `type`.
 */
export type ValidationVerdict =
  | { type: "complete" }
  | { type: "omissions"; omissions: string[] }
  | { type: "unusable" };

/**
 * Returns the verdict in a validator's reply: any whole line reading NONE (ignoring case,
 * bullets, quotes and punctuation) means the summary is complete; otherwise each non-empty line
 * is one omission; an empty reply gives no verdict.
 *
 * Hint: a line that merely contains "none" ("none of the paths were kept") is a finding, not a
 * verdict, which is why only whole lines count.
 *
 * @param reply The validator's text.
 * @returns The verdict.
 */
export function parseOmissions(reply: string): ValidationVerdict {
  const lines = reply
    .split(/\r?\n/)
    .map(undecorate)
    .filter((line) => line !== "");
  if (lines.some((line) => line.toLowerCase() === "none")) return { type: "complete" };
  return lines.length === 0 ? { type: "unusable" } : { type: "omissions", omissions: lines };
}

function undecorate(line: string): string {
  return line
    .trim()
    .replace(/^(?:\d+[.)]\s+)/, "")
    .replace(/^[\s\-*•>#`_"'“”.]+/, "")
    .replace(/[\s\-*•#`_"'“”.:!]+$/, "");
}
