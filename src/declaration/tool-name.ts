import { ToolError } from "../errors.ts";

/** Tool name type: a string checked by `toolName`, safe for every provider and MCP client. */
export type ToolName = string & { readonly __toolName: unique symbol };

/** Longest accepted tool name, in bytes (all accepted characters are one byte). */
export const MAX_TOOL_NAME_BYTES = 128;

/** Separator between a namespace and a tool's own name: `repo__echo`. */
export const NAMESPACE_SEPARATOR = "__";

const PORTABLE = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Creates a tool name, checking it against the portable subset `^[A-Za-z0-9_-]{1,128}$`.
 *
 * @param value The candidate name.
 * @returns The same string, typed as a `ToolName`.
 * @throws ToolError `invalid_configuration` when the name is empty, too long or has other characters.
 */
export function toolName(value: string): ToolName {
  if (typeof value !== "string" || !PORTABLE.test(value)) {
    throw new ToolError({
      type: "invalid_configuration",
      message: `tool name ${JSON.stringify(value)} must be 1-${MAX_TOOL_NAME_BYTES} characters of A-Z, a-z, 0-9, _ or -`,
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
 * @throws ToolError `invalid_configuration` when either part or the result is not portable.
 */
export function namespacedName(namespace: string, name: string): ToolName {
  return toolName(`${toolName(namespace)}${NAMESPACE_SEPARATOR}${name}`);
}

/** Orders declarations by name, by UTF-16 code unit (the order `listTools` returns). */
export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
