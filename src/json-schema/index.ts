/**
 * toolwire/json-schema — the JSON Schema interpreter, for programs that validate raw JSON
 * Schema documents. Nothing else in toolwire loads it: pass `jsonSchemaValidator` where a raw
 * schema is validated, and a program without such schemas ships and loads none of it.
 *
 * - `defineTool({ input: { jsonSchema }, jsonSchemaValidator, … })`: required for a raw input
 *   or output schema and for `interactions.formSchemaValidation`; without it `defineTool`
 *   throws `invalid_configuration`.
 * - `connectMcp({ url, jsonSchemaValidator })` (and `connectStdio`, `connectMcpServers`,
 *   `connectWebMcp`): checks remote tools' arguments, their `structuredContent` and form
 *   replies on this side too; without it the server (or the page's tool) is the one that
 *   validates.
 *
 * Drafts 4, 7 and 2019-09 are read from `$schema`; anything else is 2020-12. The schema is
 * interpreted without code generation, so it works under Workers and a strict CSP.
 *
 * @example
 * ```ts
 * import { defineTool } from "toolwire";
 * import { jsonSchemaValidator } from "toolwire/json-schema";
 *
 * const search = defineTool({
 *   name: "search", description: "Searches", readOnly: true,
 *   input: { jsonSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
 *   jsonSchemaValidator,
 *   call: (input) => `results for ${(input as { q: string }).q}`,
 * });
 * ```
 *
 * @module
 */
import { type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema";
import { errorText, ToolError } from "../errors.ts";
import { guardPatterns } from "../schema/guard-patterns.ts";
import {
  type JsonSchemaCheck,
  type JsonSchemaValidator,
  withForeignValidator,
} from "../schema/schema-input.ts";

// Units that only say "a child failed"; the child's own unit says what and where.
const AGGREGATE = new Set(["properties", "items", "prefixItems", "allOf", "$ref", "false"]);

const interpret: JsonSchemaValidator = (schema): JsonSchemaCheck => {
  let validator: Validator;
  try {
    validator = new Validator(schema as Schema | boolean, draftOf(schema), false);
  } catch (error) {
    throw cannotApply(error);
  }
  return (value) => {
    let outcome: ReturnType<Validator["validate"]>;
    try {
      outcome = validator.validate(value);
    } catch (error) {
      throw cannotApply(error);
    }
    const { valid, errors } = outcome;
    if (valid) return [];
    const leaves = errors.filter((unit) => !AGGREGATE.has(unit.keyword));
    return (leaves.length > 0 ? leaves : errors).map((unit) => ({
      path: unit.instanceLocation.replace(/^#/, ""),
      message: unit.error,
      keyword: unit.keyword,
    }));
  };
};

/**
 * Compiles a JSON Schema document into a check that returns JSON-pointer located issues
 * (`path`, `message`, `keyword`), empty when the value conforms.
 *
 * Schemas from a remote server (`connectMcp({ jsonSchemaValidator })`) go through a guarded
 * variant: a pattern that can backtrack exponentially, or a value too long for its patterns, is
 * left to the server, so no server can block the event loop through a regex. A validator of
 * your own gets foreign schemas as they are.
 *
 * @throws ToolError `invalid_configuration` (from the compile or from the check) for a schema
 * it cannot apply, such as an unresolvable `$ref`: a local tool's call fails with it, a remote
 * tool's schema is left to the server.
 */
export const jsonSchemaValidator: JsonSchemaValidator = withForeignValidator(
  interpret,
  guardPatterns(interpret),
);

function cannotApply(error: unknown): ToolError {
  return new ToolError(
    {
      type: "invalid_configuration",
      message: `the JSON Schema cannot be applied: ${errorText(error)}`,
    },
    { cause: error },
  );
}

function draftOf(schema: Record<string, unknown> | boolean): SchemaDraft {
  const uri = typeof schema === "object" ? String(schema.$schema ?? "") : "";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-07") || uri.includes("draft-06")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}
