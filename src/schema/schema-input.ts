import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { errorText, ToolError, type ValidationIssue } from "../errors.ts";
import { jsonPointer } from "./json-pointer.ts";

/** Returns the issues found in a value, empty when it conforms. */
export type JsonSchemaCheck = (value: unknown) => ValidationIssue[];

/**
 * Compiles a raw JSON Schema document into a check. toolwire's own is `jsonSchemaValidator`
 * from `toolwire/json-schema`; any function of this shape works (one wrapping Ajv where code
 * generation is allowed, say). For a schema it cannot apply (an unresolvable `$ref`), it or the
 * check it returns throws, preferably a `ToolError` `invalid_configuration` as toolwire's does;
 * a local tool's call then fails with that error, a remote tool's check is skipped.
 */
export type JsonSchemaValidator = (schema: Record<string, unknown> | boolean) => JsonSchemaCheck;

// Where a validator keeps its variant for foreign schemas (toolwire's guards their regex work,
// `guardPatterns`); a registry symbol, so a second copy of toolwire finds it too. The variant
// lives with the interpreter, so a client without `jsonSchemaValidator` ships neither.
const FOREIGN = Symbol.for("toolwire.foreignSchemaValidator");

/**
 * The variant of `validator` to run on schemas a remote server wrote: toolwire's own guards
 * their regular expressions; a validator of another kind is used as it is.
 */
export function foreignValidator(validator: JsonSchemaValidator): JsonSchemaValidator {
  return (validator as { [FOREIGN]?: JsonSchemaValidator })[FOREIGN] ?? validator;
}

/** Gives `validator` the variant `foreignValidator` returns for it. */
export function withForeignValidator(
  validator: JsonSchemaValidator,
  foreign: JsonSchemaValidator,
): JsonSchemaValidator {
  Object.defineProperty(validator, FOREIGN, { value: foreign });
  return validator;
}

/** A schema given as a document rather than a valibot schema. */
export interface RawJsonSchemaInput {
  /** The JSON Schema document. */
  jsonSchema: Record<string, unknown> | boolean;
}

/** Any valibot schema, sync or async. */
export type ValibotSchema =
  | v.BaseSchema<unknown, unknown, v.BaseIssue<unknown>>
  | v.BaseSchemaAsync<unknown, unknown, v.BaseIssue<unknown>>;

/** A valibot schema or a raw JSON Schema document. */
export type SchemaInput = ValibotSchema | RawJsonSchemaInput;

/** The value a schema input produces once validated. */
export type SchemaOutput<S> = S extends ValibotSchema ? v.InferOutput<S> : unknown;

/** The (possibly transformed) value, or the issues found. */
export type ValidationOutcome =
  | { ok: true; value: unknown }
  | { ok: false; issues: [ValidationIssue, ...ValidationIssue[]] };

/** The JSON Schema to publish and the check to run. */
export interface PreparedSchema {
  /** The JSON Schema a model or MCP client sees. */
  jsonSchema: Record<string, unknown> | boolean;
  /**
   * Validates a value, returning the parsed value or JSON-pointer located issues. A valibot
   * schema that throws (a `transform` or `check` failing on this value) yields an issue at `""`.
   *
   * @throws what the validator throws for a raw JSON Schema it cannot apply (an unresolvable
   * `$ref`, say): `invalid_configuration` from toolwire's.
   */
  validate(value: unknown): Promise<ValidationOutcome>;
}

/**
 * Checks whether a value is a valibot schema (recognised by shape, so any valibot 1.x copy works).
 *
 * @param value The value to check.
 * @returns Whether it is.
 */
export function isValibotSchema(value: unknown): value is ValibotSchema {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { kind?: unknown }).kind === "schema" &&
    "~run" in value
  );
}

/**
 * Creates the published JSON Schema and the validator for a schema input, once per tool.
 *
 * @param input A valibot schema or `{ jsonSchema }`.
 * @param validator What interprets a raw JSON Schema; a raw one without it is refused.
 * @param label What a raw schema is, for that error (`tool search's JSON Schema input`).
 * @returns The prepared schema.
 * @throws ToolError `invalid_configuration` when the input is neither, or is raw and there is
 * no validator.
 */
export function prepareSchema(
  input: SchemaInput,
  validator: JsonSchemaValidator | undefined,
  label: string,
): PreparedSchema {
  if (isValibotSchema(input)) return prepareValibot(input);
  const jsonSchema = (input as Partial<RawJsonSchemaInput> | undefined)?.jsonSchema;
  if (typeof jsonSchema !== "boolean" && (typeof jsonSchema !== "object" || jsonSchema === null)) {
    // valibot before 1.0 made schemas of the same kind without the `~run` method 1.x has.
    const old = (input as { kind?: unknown } | null)?.kind === "schema" && "_run" in input;
    throw new ToolError({
      type: "invalid_configuration",
      message: old
        ? "this schema comes from valibot 0.x; toolwire needs valibot 1.x (npm install valibot@1)"
        : "a schema must be a valibot schema or { jsonSchema: object | boolean }",
    });
  }
  if (typeof validator !== "function") {
    throw new ToolError({
      type: "invalid_configuration",
      message: `${label} needs jsonSchemaValidator from "toolwire/json-schema"`,
    });
  }
  return prepareRaw(jsonSchema, validator);
}

// What valibot's `~standard.validate` returns: its own run's dataset (what `v.safeParse` reads
// too), so each issue keeps valibot's `type` and its `{ key }` path items.
type StandardResult = { value?: unknown; issues?: readonly v.BaseIssue<unknown>[] };

function prepareValibot(schema: ValibotSchema): PreparedSchema {
  const jsonSchema = toJsonSchema(schema as v.GenericSchema, { errorMode: "ignore" }) as Record<
    string,
    unknown
  >;
  delete jsonSchema.$schema;
  return {
    jsonSchema,
    async validate(value) {
      // Through the schema's Standard Schema interface rather than `v.safeParse` and
      // `v.safeParseAsync`: the same run with the global config, one path for sync and async
      // schemas, and neither helper in the bundle (60 bytes gzip).
      let result: StandardResult;
      try {
        result = (await (schema as v.GenericSchema)["~standard"].validate(value)) as StandardResult;
      } catch (error) {
        // A throwing transform (`JSON.parse` of a bad string) is a problem with this value.
        const message = `validation threw: ${errorText(error)}`;
        return { ok: false, issues: [{ path: "", message }] };
      }
      if (!result.issues) return { ok: true, value: result.value };
      const issues = result.issues.map((issue) => ({
        path: jsonPointer((issue.path ?? []).map((item) => item.key as string | number)),
        message: issue.message,
        keyword: issue.type,
      }));
      return { ok: false, issues: issues as [ValidationIssue, ...ValidationIssue[]] };
    },
  };
}

function prepareRaw(
  jsonSchema: Record<string, unknown> | boolean,
  validator: JsonSchemaValidator,
): PreparedSchema {
  // Compiled on the first call, not at definition: a program defining many tools starts
  // without interpreting schemas it may never use. A schema the validator cannot apply throws
  // its `invalid_configuration` on every call.
  let check: JsonSchemaCheck | undefined;
  return {
    jsonSchema,
    async validate(value) {
      check ??= validator(jsonSchema);
      const issues = check(value);
      return issues.length === 0
        ? { ok: true, value }
        : { ok: false, issues: issues as [ValidationIssue, ...ValidationIssue[]] };
    },
  };
}
