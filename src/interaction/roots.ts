/**
 * A place the caller lets a tool work in, as MCP's `roots/list` names it: a URI (in MCP a
 * `file://` URI) and an optional name to show.
 */
export interface Root {
  /** Where the root is, e.g. `file:///home/me/project`. */
  uri: string;
  /** A name for people. */
  name?: string;
}

/** What a person is shown when a tool asks for the caller's roots. */
export const ROOTS_PROMPT = "Share your roots";

/**
 * Returns a clean copy of a list of roots (only `uri` and `name`), or `undefined` unless it is
 * an array of objects, each with a string `uri` and, if present, a string `name`.
 *
 * @param value The candidate: a tool's reply, or the `roots` of an MCP `ListRootsResult`.
 */
export function readRoots(value: unknown): Root[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const roots: Root[] = [];
  for (const item of value) {
    const { uri, name } = (item ?? {}) as Partial<Root>;
    if (typeof uri !== "string" || (name !== undefined && typeof name !== "string")) return;
    roots.push(name === undefined ? { uri } : { uri, name });
  }
  return roots;
}

/** Why a reply is not a list of roots. */
export const NOT_ROOTS = "must be an array of { uri, name? } strings";
