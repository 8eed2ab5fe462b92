// Foreign patterns (issue 23, item 2): a pattern that can backtrack exponentially is refused
// before any regex runs, and the polynomial work of the rest is bounded by the strings tested;
// what is refused is left to the server. The end-to-end runs (a vulnerable client blocks its
// event loop) are in test/node/foreign-regex.test.ts, in a child process.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { guardPatterns, PATTERN_STEP_BUDGET, regexRisk } from "../../src/schema/guard-patterns.ts";
import type { JsonSchemaValidator } from "../../src/schema/schema-input.ts";

const EVIL = `${"a".repeat(34)}!`;

// Counts the schemas the inner validator was asked to compile.
function counting(): { validator: JsonSchemaValidator; compiled: () => number } {
  let compiled = 0;
  return {
    validator: (schema) => {
      compiled += 1;
      return jsonSchemaValidator(schema);
    },
    compiled: () => compiled,
  };
}

describe("regexRisk", () => {
  it.each([
    "^(a+)+$",
    "^(a*)*$",
    "^(a|aa)+$",
    "^(a|a)*$",
    "^(a+){3}$",
    "^([a-z]+-)*[a-z]+$",
    "^(\\w+)\\1$",
    "^(?<x>a)\\k<x>$",
    "(?=a+)a",
    "(?!b)a",
    "(?<=a)b",
    "(?<!a)b",
    "((a+))+",
    "(a",
    "a)",
  ])("refuses %s as backtracking", (pattern) => {
    expect(regexRisk(pattern).backtracks).toBe(true);
  });

  it.each([
    ["^[a-z0-9-]+$", 1, 1],
    ["^\\d{4}-\\d{2}-\\d{2}$", 0, 1],
    ["^[^@]+@[^@]+$", 2, 1],
    ["^(cat|dog|bird)$", 0, 3],
    ["^(?:ab)*c$", 1, 1],
    ["^\\p{L}{1,64}$", 1, 1],
    ["[)(|]+", 1, 1],
    ["^x{2}y{3,}$", 1, 1],
  ])("accepts %s with %i varying quantifiers and %i branches", (pattern, repeats, branches) => {
    expect(regexRisk(pattern)).toEqual({ backtracks: false, repeats, branches });
  });

  it("refuses every quantified group that holds a quantifier or an alternation, however nested", () => {
    const atom = fc.constantFrom("a", "\\d", "[a-z]", ".", "(?:ab)");
    const quantifier = fc.constantFrom("*", "+", "?", "{2}", "{1,5}", "{3,}", "*?", "+?");
    // An exact count inside (`(a{2})*` is `(aa)*`) does not vary, so it is not among these.
    const varying = fc.constantFrom("*", "+", "?", "{1,5}", "{3,}", "*?", "+?");
    const inner = fc.oneof(
      fc.tuple(atom, varying).map(([a, q]) => `${a}${q}`),
      fc.tuple(atom, atom).map(([a, b]) => `${a}|${b}`),
    );
    const hostile = fc
      .tuple(inner, quantifier, fc.nat({ max: 3 }), atom)
      .map(([body, q, depth, tail]) => {
        let group = `(${body})${q}`;
        for (let i = 0; i < depth; i++) group = `(?:${group}${tail})`;
        return `^${group}$`;
      });
    fc.assert(
      fc.property(hostile, (pattern) => {
        expect(regexRisk(pattern).backtracks).toBe(true);
      }),
    );
  });
});

describe("guardPatterns", () => {
  it.each([
    [
      "pattern",
      { type: "object", properties: { x: { type: "string", pattern: "^(a+)+$" } } },
      { x: EVIL },
    ],
    ["patternProperties", { type: "object", patternProperties: { "^(a+)+$": {} } }, { [EVIL]: 1 }],
    ["propertyNames", { type: "object", propertyNames: { pattern: "^(a|aa)+$" } }, { [EVIL]: 1 }],
  ])(
    "leaves a schema whose %s can backtrack to the server, compiling nothing",
    (_kind, schema, value) => {
      const inner = counting();
      const check = guardPatterns(inner.validator)(schema);
      expect(check(value)).toEqual([]);
      expect(inner.compiled()).toBe(0);
    },
  );

  // The interpreter's own `url` format regex takes seconds on "http://" + "a" × 30 + "!".
  it("leaves a schema with format url to the server, compiling nothing", () => {
    const inner = counting();
    const check = guardPatterns(inner.validator)({ type: "string", format: "url" });
    expect(check(`http://${"a".repeat(34)}!`)).toEqual([]);
    expect(inner.compiled()).toBe(0);
  });

  it("checks other formats on short strings only", () => {
    const check = guardPatterns(jsonSchemaValidator)({ type: "string", format: "date" });
    expect(check("2026-12-02")).toEqual([]);
    expect(check("yesterday")).toHaveLength(1);
    expect(check("y".repeat(100_000))).toEqual([]);
  });

  it("checks a safe pattern on short strings, and leaves a string too long for it to the server", () => {
    const schema = { type: "object", properties: { id: { type: "string", pattern: "^[a-z]+$" } } };
    const check = guardPatterns(jsonSchemaValidator)(schema);
    expect(check({ id: "abc" })).toEqual([]);
    expect(check({ id: "abc1" })).toHaveLength(1);
    // (n + 1)² × 9 steps for a 4 MB string is past the budget: not tested here.
    expect(check({ id: `${"a".repeat(4 * 1024 * 1024)}1` })).toEqual([]);
  });

  it("checks a schema without patterns whatever its strings", () => {
    const check = guardPatterns(jsonSchemaValidator)({ type: "string", maxLength: 3 });
    expect(check("a".repeat(4 * 1024 * 1024))).toHaveLength(1);
  });

  it("agrees with the unguarded validator whenever it checks, for any safe pattern and string", () => {
    const atom = fc.constantFrom("a", "b", "\\d", "[ab]", ".");
    const piece = fc
      .tuple(atom, fc.constantFrom("", "", "*", "+", "?", "{1,3}"))
      .map(([a, q]) => `${a}${q}`);
    const pattern = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => `^${p.join("")}$`);
    const text = fc.oneof(
      fc.stringMatching(/^[ab1]{0,40}$/),
      fc.nat({ max: 200_000 }).map((n) => `${"a".repeat(n)}!`),
    );
    fc.assert(
      fc.property(pattern, text, (source, value) => {
        expect(regexRisk(source).backtracks).toBe(false);
        const schema = { type: "string", pattern: source };
        const guarded = guardPatterns(jsonSchemaValidator)(schema)(value);
        const { repeats, branches } = regexRisk(source);
        const steps = (value.length + 1) ** (repeats + 1) * branches * (source.length + 1);
        if (steps <= PATTERN_STEP_BUDGET) {
          expect(guarded).toEqual(jsonSchemaValidator(schema)(value));
        } else {
          expect(guarded).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
