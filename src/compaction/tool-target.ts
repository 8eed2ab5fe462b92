import { isJsonObject } from "../schema/is-json-object.ts";
import { canonicalJson } from "./canonical-json.ts";

/**
 * Returns the key of what a tool call acts on, so a later call on the same target supersedes an
 * earlier one.
 *
 * Hint: a string `path` argument makes the key path-based and shared across tools, so a write
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
