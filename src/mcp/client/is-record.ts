/**
 * Checks whether a value is a JSON object (not `null`, not an array).
 *
 * @param value The value.
 * @returns Whether it is.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
