/**
 * Portable test harness: a case contract and a tiny assertion module that run unchanged in
 * Node, a browser, workerd and Deno. Web standards only: no `node:` imports, no vitest imports.
 */

/** One portable test case: a name and a body that throws (or rejects) to fail. */
export interface PortableCase {
  name: string;
  run(): Promise<void> | void;
}

/** Thrown by the assertions below. */
export class AssertionError extends Error {
  override name = "AssertionError";
}

/** Fails with `message` unless `cond` is truthy. */
export function assert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new AssertionError(message);
}

/**
 * Fails unless `actual` deeply equals `expected` (own enumerable keys, same prototypes; a key
 * holding `undefined` is not the same as a missing key). The message names the first difference.
 */
export function assertEqual<T>(
  actual: unknown,
  expected: T,
  message?: string,
): asserts actual is T {
  const diff = firstDifference(actual, expected, "", new Map());
  if (diff === undefined) return;
  const where = diff.path === "" ? "value" : `at ${diff.path}`;
  const lines = [
    message ?? "values are not deeply equal",
    `  ${where}: ${diff.reason}`,
    `  actual:   ${show(diff.actual)}`,
    `  expected: ${show(diff.expected)}`,
  ];
  if (diff.path !== "") {
    lines.push(`  whole actual:   ${show(actual)}`, `  whole expected: ${show(expected)}`);
  }
  throw new AssertionError(lines.join("\n"));
}

/**
 * Awaits `fn` and fails unless it throws or rejects. When `predicate` is given, the error must
 * satisfy it. Returns the error.
 */
export async function assertRejects(
  fn: () => unknown,
  predicate?: (error: unknown) => boolean,
  message?: string,
): Promise<unknown> {
  let error: unknown;
  let threw = false;
  try {
    await fn();
  } catch (e) {
    threw = true;
    error = e;
  }
  if (!threw) throw new AssertionError(message ?? "expected the function to throw or reject");
  if (predicate !== undefined && !predicate(error)) {
    throw new AssertionError(
      `${message ?? "the error does not satisfy the predicate"}\n  error: ${show(error)}`,
    );
  }
  return error;
}

interface Difference {
  path: string;
  reason: string;
  actual: unknown;
  expected: unknown;
}

function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (value instanceof Date) return "date";
  if (value instanceof RegExp) return "regexp";
  if (value instanceof Map) return "map";
  if (value instanceof Set) return "set";
  if (value instanceof Uint8Array) return "uint8array";
  if (value instanceof Error) return "error";
  return typeof value;
}

function key(path: string, k: string | number): string {
  if (typeof k === "number") return `${path}[${k}]`;
  return /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
}

function firstDifference(
  actual: unknown,
  expected: unknown,
  path: string,
  seen: Map<object, object>,
): Difference | undefined {
  if (Object.is(actual, expected)) return undefined;
  const ka = kind(actual);
  const ke = kind(expected);
  const differ = (reason: string): Difference => ({ path, reason, actual, expected });
  if (ka !== ke) return differ(`type differs (${ka} vs ${ke})`);
  if (typeof actual !== "object" || typeof expected !== "object" || !actual || !expected) {
    return differ("values differ");
  }
  if (seen.get(actual) === expected) return undefined;
  seen.set(actual, expected);
  if (Object.getPrototypeOf(actual) !== Object.getPrototypeOf(expected)) {
    return differ("prototypes differ");
  }
  switch (ka) {
    case "date":
      return (actual as Date).getTime() === (expected as Date).getTime()
        ? undefined
        : differ("dates differ");
    case "regexp":
      return String(actual) === String(expected) ? undefined : differ("regexps differ");
    case "uint8array": {
      const a = actual as Uint8Array;
      const e = expected as Uint8Array;
      if (a.length !== e.length) return differ(`length ${a.length} vs ${e.length}`);
      const i = a.findIndex((byte, j) => byte !== e[j]);
      return i === -1 ? undefined : differ(`byte ${i} differs`);
    }
    case "set": {
      const a = [...(actual as Set<unknown>)];
      const e = [...(expected as Set<unknown>)];
      return firstDifference(a, e, `${path}<set>`, seen);
    }
    case "map": {
      const a = [...(actual as Map<unknown, unknown>)];
      const e = [...(expected as Map<unknown, unknown>)];
      return firstDifference(a, e, `${path}<map>`, seen);
    }
    case "array": {
      const a = actual as unknown[];
      const e = expected as unknown[];
      const n = Math.min(a.length, e.length);
      for (let i = 0; i < n; i++) {
        const d = firstDifference(a[i], e[i], key(path, i), seen);
        if (d) return d;
      }
      return a.length === e.length ? undefined : differ(`length ${a.length} vs ${e.length}`);
    }
    case "error": {
      const a = actual as Error;
      const e = expected as Error;
      if (a.message !== e.message) {
        return firstDifference(a.message, e.message, key(path, "message"), seen);
      }
      break;
    }
  }
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  // Strict: `{ a: undefined }` and `{}` differ (the project uses exactOptionalPropertyTypes).
  const keysA = Object.keys(a);
  const keysE = Object.keys(e);
  const missing = keysE.filter((k) => !keysA.includes(k));
  if (missing.length > 0) {
    return { path, reason: `missing key(s) ${missing.join(", ")}`, actual, expected };
  }
  const extra = keysA.filter((k) => !keysE.includes(k));
  if (extra.length > 0) {
    return { path, reason: `unexpected key(s) ${extra.join(", ")}`, actual, expected };
  }
  for (const k of keysE) {
    const d = firstDifference(a[k], e[k], key(path, k), seen);
    if (d) return d;
  }
  return undefined;
}

/** A short, readable rendering of any value for failure messages. */
export function show(value: unknown): string {
  const seen = new WeakSet<object>();
  const text = (() => {
    try {
      return JSON.stringify(value, (_k, v: unknown) => {
        if (typeof v === "bigint") return `${v}n`;
        if (typeof v === "undefined") return "<undefined>";
        if (typeof v === "function") return `<function ${v.name || "anonymous"}>`;
        if (typeof v === "symbol") return v.toString();
        if (typeof v === "number" && !Number.isFinite(v)) return String(v);
        if (v instanceof Error) return { ...v, name: v.name, message: v.message };
        if (v instanceof Map) return { "<map>": [...v] };
        if (v instanceof Set) return { "<set>": [...v] };
        if (typeof v === "object" && v !== null) {
          if (seen.has(v)) return "<circular>";
          seen.add(v);
        }
        return v;
      });
    } catch {
      return String(value);
    }
  })();
  const s = text ?? String(value);
  return s.length > 600 ? `${s.slice(0, 600)}… (${s.length} chars)` : s;
}
