// Regular expressions from a foreign schema (`pattern`, `patternProperties`) run on the
// platform's backtracking engine, and a server controls both the pattern and the string:
// `^(a+)+$` against "a" × 34 + "!" blocks the event loop for minutes, and no timer can fire.
// A check of a foreign schema therefore runs only when its regex work is provably small:
// patterns that can backtrack exponentially are refused outright, and the polynomial work of
// the rest is bounded by the lengths of the strings tested. Whatever is refused is left to the
// server, as for a schema the validator cannot apply.

import type { JsonSchemaValidator } from "./schema-input.ts";

/** What a regular expression's shape says about the work a backtracking engine may do. */
export interface RegexRisk {
  /**
   * Whether it can backtrack exponentially or cannot be bounded here: a backreference, a
   * lookaround, or a quantified group that contains a quantifier or an alternation.
   */
  backtracks: boolean;
  /** Quantifiers that let an atom match a varying number of times (`*`, `+`, `?`, `{m,n}`). */
  repeats: number;
  /** The product of the alternatives of every group (`(a|b)(c|d|e)` is 6; 1 without `|`). */
  branches: number;
}

/**
 * Most regex steps one check of a foreign value may cost (a few milliseconds), estimated as the
 * sum over every string and property name, and every pattern, of (length + 1) to the power
 * (repeats + 1), times the pattern's branches and length: the bound on a backtracking match of a
 * pattern that passed `regexRisk` (each start position, each count of each repeat, each
 * alternative, each step of the pattern).
 */
export const PATTERN_STEP_BUDGET = 10_000_000;

/**
 * Returns what a pattern's shape says about its backtracking (see `RegexRisk`). The analysis
 * is conservative: a shape it does not know counts as backtracking.
 */
export function regexRisk(pattern: string): RegexRisk {
  // One frame per open group: whether a quantifier or an alternation occurs inside it.
  const frames: Array<{ quantified: boolean; alternation: boolean; bars: number }> = [
    { quantified: false, alternation: false, bars: 0 },
  ];
  let repeats = 0;
  let branches = 1;
  let backtracks = false;
  // What the next quantifier applies to: an atom, a group (with what it held), or nothing.
  let previous: "none" | "atom" | { quantified: boolean; alternation: boolean } = "none";
  const top = () => frames[frames.length - 1] as (typeof frames)[number];
  const quantify = (varying: boolean) => {
    if (previous === "none") return;
    if (typeof previous === "object" && (previous.quantified || previous.alternation)) {
      backtracks = true;
    }
    if (varying) {
      repeats += 1;
      top().quantified = true;
    }
    previous = "none";
  };
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    switch (char) {
      case "\\": {
        const next = pattern[i + 1] ?? "";
        if (/[1-9]/.test(next) || next === "k") backtracks = true;
        // \u{…}, \p{…} and \x.. escapes are one atom; their braces are not a quantifier.
        if ((next === "u" || next === "p" || next === "P") && pattern[i + 2] === "{") {
          const close = pattern.indexOf("}", i + 2);
          i = close < 0 ? pattern.length : close;
        } else {
          i += 1;
        }
        previous = "atom";
        break;
      }
      case "[": {
        let j = i + 1;
        if (pattern[j] === "^") j += 1;
        if (pattern[j] === "]") j += 1;
        for (; j < pattern.length && pattern[j] !== "]"; j++) if (pattern[j] === "\\") j += 1;
        i = j;
        previous = "atom";
        break;
      }
      case "(": {
        if (pattern[i + 1] === "?") {
          const kind = pattern[i + 2];
          const behind = kind === "<" && (pattern[i + 3] === "=" || pattern[i + 3] === "!");
          if (kind === "=" || kind === "!" || behind) backtracks = true;
        }
        frames.push({ quantified: false, alternation: false, bars: 0 });
        previous = "none";
        break;
      }
      case ")": {
        if (frames.length === 1) {
          // An unbalanced `)` is a syntax error; the shape is unknown, so it counts as risky.
          backtracks = true;
          break;
        }
        const closed = frames.pop() as (typeof frames)[number];
        branches *= closed.bars + 1;
        // What is inside a group is inside every group around it.
        top().quantified ||= closed.quantified;
        top().alternation ||= closed.alternation;
        previous = closed;
        break;
      }
      case "|":
        top().alternation = true;
        top().bars += 1;
        previous = "none";
        break;
      case "*":
      case "+":
      case "?":
        quantify(true);
        // A lazy or possessive marker after a quantifier is part of it.
        if (pattern[i + 1] === "?") i += 1;
        break;
      case "{": {
        const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
        if (!match) {
          previous = "atom";
          break;
        }
        const varying = match[2] !== undefined && match[3] !== match[1];
        quantify(varying);
        // An exact count of a group that holds a quantifier multiplies its ways too.
        i += match[0].length - 1;
        if (pattern[i + 1] === "?") i += 1;
        break;
      }
      case "^":
      case "$":
        previous = "none";
        break;
      default:
        previous = "atom";
    }
  }
  // An unclosed group is a syntax error, which the validator reports; it counts as risky here.
  if (frames.length > 1) backtracks = true;
  branches *= top().bars + 1;
  return { backtracks, repeats, branches };
}

/**
 * Returns a validator for foreign schemas around `validator`: a schema with a pattern that can
 * backtrack (see `regexRisk`), or with `format: "url"` (whose regex in the interpreter does),
 * gets a check that finds nothing (the server checks), and a value whose strings would cost the
 * patterns and formats more than `PATTERN_STEP_BUDGET` steps is not checked either. Schemas
 * without patterns or formats are checked as `validator` checks them.
 */
export function guardPatterns(validator: JsonSchemaValidator): JsonSchemaValidator {
  return (schema) => {
    const { patterns, formats } = patternsOf(schema);
    if (patterns.length === 0 && formats.length === 0) return validator(schema);
    const costs: Array<{ degree: number; factor: number }> = [];
    for (const pattern of patterns) {
      const risk = regexRisk(pattern);
      if (risk.backtracks) return () => [];
      costs.push({ degree: risk.repeats + 1, factor: risk.branches * (pattern.length + 1) });
    }
    for (const format of formats) {
      // The interpreter's own `url` regex backtracks exponentially ("http://" + "a" × 30 +
      // "!" takes seconds); the other formats are counted as quadratic, to be safe.
      if (format === "url") return () => [];
      costs.push({ degree: 2, factor: 1 });
    }
    const check = validator(schema);
    return (value) => (withinBudget(value, costs) ? check(value) : []);
  };
}

// Every string a schema may run as a regex: each `pattern` value and `patternProperties` key,
// and each `format` (checked by regexes of the interpreter's own), found without recursion (a
// property named "pattern" counts too, which only errs on the cautious side).
function patternsOf(schema: unknown): { patterns: string[]; formats: string[] } {
  const found: string[] = [];
  const formats: string[] = [];
  const nodes: unknown[] = [schema];
  while (nodes.length > 0) {
    const node = nodes.pop();
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) nodes.push(item);
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === "pattern" && typeof child === "string") found.push(child);
      if (key === "format" && typeof child === "string") formats.push(child);
      if (key === "patternProperties" && typeof child === "object" && child !== null) {
        found.push(...Object.keys(child));
      }
      nodes.push(child);
    }
  }
  return { patterns: found, formats };
}

// Whether testing every string and property name of a value against every pattern stays
// within the step budget.
function withinBudget(
  value: unknown,
  costs: ReadonlyArray<{ degree: number; factor: number }>,
): boolean {
  let steps = 0;
  const cost = (text: string) => {
    for (const { degree, factor } of costs) steps += (text.length + 1) ** degree * factor;
    return steps <= PATTERN_STEP_BUDGET;
  };
  const nodes: unknown[] = [value];
  while (nodes.length > 0) {
    const node = nodes.pop();
    if (typeof node === "string") {
      if (!cost(node)) return false;
    } else if (Array.isArray(node)) {
      for (const item of node) nodes.push(item);
    } else if (typeof node === "object" && node !== null) {
      for (const [key, child] of Object.entries(node)) {
        if (!cost(key)) return false;
        nodes.push(child);
      }
    }
  }
  return true;
}
