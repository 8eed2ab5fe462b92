import { isJsonObject } from "../schema/is-json-object.ts";

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
export const ROOTS_PROMPT = "Which roots (directories or files) may this tool work in?";

/**
 * Returns a clean copy of a list of roots (only `uri` and `name`), or a phrase naming what is
 * wrong: an array of objects, each with a string `uri` and, if present, a string `name`.
 *
 * @param value The candidate: a tool's reply, or the `roots` of an MCP `ListRootsResult`.
 */
export function readRoots(value: unknown): Root[] | string {
  if (!Array.isArray(value)) return "the roots must be an array";
  const roots: Root[] = [];
  for (const [index, item] of value.entries()) {
    if (!isJsonObject(item) || typeof item.uri !== "string") {
      return `\`roots[${index}]\` must be an object with a string \`uri\``;
    }
    if (item.name !== undefined && typeof item.name !== "string") {
      return `\`roots[${index}].name\` must be a string`;
    }
    roots.push(item.name === undefined ? { uri: item.uri } : { uri: item.uri, name: item.name });
  }
  return roots;
}
