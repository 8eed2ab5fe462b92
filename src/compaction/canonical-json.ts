/**
 * Returns the canonical JSON text of a value: object keys sorted, no whitespace, so two equal
 * argument objects written in a different key order give the same text.
 *
 * Hint: `undefined`, functions and symbols are dropped inside objects and become `null` in
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
