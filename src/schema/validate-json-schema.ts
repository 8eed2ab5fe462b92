import { type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema";
import type { ValidationIssue } from "../errors.ts";

/** Returns the issues found, empty when the value conforms. */
export type JsonSchemaCheck = (value: unknown) => ValidationIssue[];

// Units that only say "a child failed"; the child's own unit says what and where.
const AGGREGATE = new Set(["properties", "items", "prefixItems", "allOf", "$ref", "false"]);

/**
 * Creates a reusable validator for a JSON Schema document, interpreted without code generation
 * (safe under Workers and strict CSP).
 *
 * @param schema The schema document.
 * @returns A check returning JSON-pointer located issues.
 */
export function compileJsonSchema(schema: Record<string, unknown> | boolean): JsonSchemaCheck {
  const validator = new Validator(schema as Schema | boolean, draftOf(schema), false);
  return (value) => {
    const { valid, errors } = validator.validate(value);
    if (valid) return [];
    const leaves = errors.filter((unit) => !AGGREGATE.has(unit.keyword));
    return (leaves.length > 0 ? leaves : errors).map((unit) => ({
      path: unit.instanceLocation.replace(/^#/, ""),
      message: unit.error,
      keyword: unit.keyword,
    }));
  };
}

function draftOf(schema: Record<string, unknown> | boolean): SchemaDraft {
  const uri = typeof schema === "object" ? String(schema.$schema ?? "") : "";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-07") || uri.includes("draft-06")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}
