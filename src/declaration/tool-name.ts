import { ToolError } from "../errors.ts";

/** A string checked by `toolName`: 1-128 characters of `A-Z a-z 0-9 _ - .`. */
export type ToolName = string & { readonly __toolName: unique symbol };

/** Longest accepted tool name, in bytes (all accepted characters are one byte). */
const MAX_TOOL_NAME_BYTES = 128;

/** Separator between a namespace and a tool's own name: `repo__echo`. */
export const NAMESPACE_SEPARATOR = "__";

// What MCP 2025-11-25 allows in a tool name (design.md T13).
const ALLOWED = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Checks a tool name: 1-128 characters of letters, digits, `_`, `-` and `.` (what MCP
 * 2025-11-25 allows, so `repo.search` is a name). A model adapter whose provider is stricter
 * maps names on its own side.
 *
 * @returns The same string, typed as a `ToolName`.
 * @throws ToolError `invalid_configuration` when the name is empty, too long or has other
 * characters.
 * @example
 * ```ts
 * const info = { name: toolName("repo.search"), ... };
 * ```
 */
export function toolName(value: string): ToolName {
  if (typeof value !== "string" || !ALLOWED.test(value)) {
    throw new ToolError({
      type: "invalid_configuration",
      message: `tool name ${JSON.stringify(value)} must be 1-${MAX_TOOL_NAME_BYTES} characters of A-Z, a-z, 0-9, _, - or .`,
    });
  }
  return value as ToolName;
}

/**
 * Creates the namespaced name `namespace__name`.
 *
 * @param namespace The namespace, itself a valid tool name.
 * @param name The tool's own name.
 * @returns The rendered name.
 * @throws ToolError `invalid_configuration` when either part or the result is not a valid name.
 */
export function namespacedName(namespace: string, name: string): ToolName {
  return toolName(`${toolName(namespace)}${NAMESPACE_SEPARATOR}${name}`);
}

/** Orders declarations by name, by UTF-16 code unit (the order `listTools` returns). */
export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
