/**
 * Checks whether a value is a JSON object: not `null`, not an array.
 *
 * Decoded JSON (an MCP message, a model's tool arguments, a sampling reply) is checked
 * with this one guard in every layer, so "object" means the same everywhere.
 *
 * @param value The value.
 * @returns Whether it is.
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
