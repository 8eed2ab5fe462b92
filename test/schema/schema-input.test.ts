import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { isValibotSchema, prepareSchema, type SchemaInput } from "../../src/schema/schema-input.ts";

const prepare = (input: SchemaInput) => prepareSchema(input, jsonSchemaValidator, "the input");

describe("isValibotSchema", () => {
  test("recognises valibot schemas, sync and async, by shape", () => {
    expect(isValibotSchema(v.string())).toBe(true);
    expect(isValibotSchema(v.objectAsync({}))).toBe(true);
  });

  test("rejects raw JSON Schema inputs and other values", () => {
    expect(isValibotSchema({ jsonSchema: { type: "string" } })).toBe(false);
    expect(isValibotSchema({ kind: "schema" })).toBe(false);
    expect(isValibotSchema(null)).toBe(false);
  });
});

describe("prepareSchema", () => {
  test("publishes a valibot schema as JSON Schema without $schema", () => {
    const prepared = prepare(v.object({ a: v.number() }));
    expect(prepared.jsonSchema).toEqual({
      type: "object",
      properties: { a: { type: "number" } },
      required: ["a"],
    });
  });

  test("returns the transformed value of a valibot schema", async () => {
    const prepared = prepare(v.object({ n: v.pipe(v.string(), v.transform(Number)) }));
    expect(await prepared.validate({ n: "42" })).toEqual({ ok: true, value: { n: 42 } });
  });

  test("locates valibot issues by JSON pointer, nested paths included", async () => {
    const prepared = prepare(
      v.object({ user: v.object({ tags: v.array(v.string()) }), age: v.number() }),
    );
    const outcome = await prepared.validate({ user: { tags: ["a", 2] }, age: "x" });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.issues.map((i) => i.path).sort()).toEqual(["/age", "/user/tags/1"]);
    for (const issue of outcome.issues) expect(issue.message.length).toBeGreaterThan(0);
  });

  test("reports a root-level valibot issue at the empty pointer", async () => {
    const outcome = await prepare(v.object({})).validate("nope");
    expect(outcome).toMatchObject({ ok: false, issues: [{ path: "" }] });
  });

  test("runs async valibot schemas", async () => {
    const prepared = prepare(
      v.pipeAsync(
        v.string(),
        v.checkAsync(async (s) => s === "yes", "must be yes"),
      ),
    );
    expect(await prepared.validate("yes")).toEqual({ ok: true, value: "yes" });
    expect(await prepared.validate("no")).toMatchObject({
      ok: false,
      issues: [{ path: "", message: "must be yes" }],
    });
  });

  test("publishes a raw JSON Schema unchanged and validates with it", async () => {
    const doc = { type: "object", properties: { a: { type: "integer" } }, required: ["a"] };
    const prepared = prepare({ jsonSchema: doc });
    expect(prepared.jsonSchema).toBe(doc);
    expect(await prepared.validate({ a: 1 })).toEqual({ ok: true, value: { a: 1 } });
    expect(await prepared.validate({ a: 1.5 })).toMatchObject({
      ok: false,
      issues: [{ path: "/a" }],
    });
  });

  test("reuses one compiled raw validator across calls", async () => {
    const prepared = prepare({ jsonSchema: { type: "string" } });
    const results = await Promise.all([prepared.validate("a"), prepared.validate(1)]);
    expect(results.map((r) => r.ok)).toEqual([true, false]);
  });
});

describe("prepareSchema at the edges", () => {
  test.each([
    ["undefined", undefined],
    ["a number", 3],
    ["an object without jsonSchema", { type: "object" }],
    ["a jsonSchema that is no document", { jsonSchema: "object" }],
  ])("rejects %s with invalid_configuration", (_label, input) => {
    expect(() => prepare(input as never)).toThrow(
      expect.objectContaining({ type: "invalid_configuration" }),
    );
  });

  test("turns a throwing valibot transform into one issue at the root", async () => {
    const prepared = prepare(
      v.pipe(
        v.string(),
        v.transform((s) => JSON.parse(s)),
      ),
    );
    expect(await prepared.validate("{oops")).toEqual({
      ok: false,
      issues: [{ path: "", message: expect.stringMatching(/^validation threw: /) }],
    });
  });

  test("fails a raw schema it cannot interpret with invalid_configuration, on every use", async () => {
    const prepared = prepare({
      jsonSchema: { type: "object", properties: { a: { $ref: "#/nowhere" } } },
    });
    for (let i = 0; i < 2; i++) {
      await expect(prepared.validate({ a: 1 })).rejects.toMatchObject({
        type: "invalid_configuration",
      });
    }
  });

  test("refuses a raw schema without a validator, naming the import", () => {
    let error: unknown;
    try {
      prepareSchema(
        { jsonSchema: { type: "object" } },
        undefined,
        "tool search's JSON Schema input",
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ type: "invalid_configuration" });
    expect(String((error as Error).message)).toMatch(
      /tool search's JSON Schema input needs jsonSchemaValidator from "toolwire\/json-schema"$/,
    );
  });

  test("needs no validator for a valibot schema", async () => {
    const prepared = prepareSchema(v.string(), undefined, "the input");
    expect(await prepared.validate("a")).toEqual({ ok: true, value: "a" });
  });

  test("accepts the boolean schemas true and false", async () => {
    expect((await prepare({ jsonSchema: true }).validate(1)).ok).toBe(true);
    expect((await prepare({ jsonSchema: false }).validate(1)).ok).toBe(false);
  });
});
