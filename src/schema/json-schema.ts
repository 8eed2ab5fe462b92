/** How strictly a downstream provider should hold a model to a schema. */
export type SchemaStrictness = "strict" | "best_effort" | "unspecified";

/**
 * A passive wrapper around a schema document. Strictness is only a
 * rendering preference for providers; it never changes how values are validated.
 */
export interface JsonSchema {
  /** The JSON Schema document, unchanged. */
  schema: Record<string, unknown> | boolean;
  /** The rendering preference. */
  strictness: SchemaStrictness;
}

/* @__NO_SIDE_EFFECTS__ */
function wrap(strictness: SchemaStrictness) {
  return (schema: Record<string, unknown> | boolean): JsonSchema => ({ schema, strictness });
}

/**
 * Creates JSON Schema wrappers. Construction neither compiles nor checks the document.
 *
 * @example
 * ```ts
 * const schema = JsonSchema.strict({ type: "object", properties: { q: { type: "string" } } });
 * ```
 */
export const JsonSchema = {
  /** Wraps a schema a source should adhere to exactly where it can. */
  strict: wrap("strict"),
  /** Wraps a schema a source is asked, not required, to follow. */
  bestEffort: wrap("best_effort"),
  /** Wraps a schema with no strictness preference. */
  unspecified: wrap("unspecified"),
} as const;
