/** How deep and how large a JSON value is. */
export interface JsonMeasure {
  /** Nesting of objects and arrays: `1` for `{}` or `[1]`, `0` for a scalar. */
  depth: number;
  /**
   * About the length of its JSON text: each string counts its UTF-16 length plus quotes,
   * each number its decimal form, plus the punctuation. Exact for ASCII without escapes.
   */
  bytes: number;
}

/**
 * Returns how deep and how large a value parsed from JSON is, without recursion: a foreign
 * value nested 100,000 levels (which `JSON.parse` reads, but `JSON.stringify`, a validator or
 * a model request overflow the stack on) is measured like any other, in time linear in its size.
 */
export function measureJson(value: unknown): JsonMeasure {
  let depth = 0;
  let bytes = 0;
  const nodes: unknown[] = [value];
  const levels: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const level = levels.pop() as number;
    if (typeof node === "string") {
      bytes += node.length + 2;
      continue;
    }
    if (typeof node !== "object" || node === null) {
      bytes += String(node).length;
      continue;
    }
    const inner = level + 1;
    if (inner > depth) depth = inner;
    if (Array.isArray(node)) {
      bytes += 1 + Math.max(node.length, 1);
      for (const item of node) {
        nodes.push(item);
        levels.push(inner);
      }
      continue;
    }
    const keys = Object.keys(node);
    bytes += 1 + Math.max(keys.length, 1);
    for (const key of keys) {
      bytes += key.length + 3;
      nodes.push((node as Record<string, unknown>)[key]);
      levels.push(inner);
    }
  }
  return { depth, bytes };
}
