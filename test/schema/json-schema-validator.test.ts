import { describe, expect, test } from "vitest";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";

describe("jsonSchemaValidator", () => {
  const check = jsonSchemaValidator({
    type: "object",
    properties: {
      name: { type: "string", minLength: 1 },
      tags: { type: "array", items: { type: "string" } },
      address: {
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
      },
    },
    required: ["name"],
    additionalProperties: false,
  });

  test("returns no issues for a conforming value", () => {
    expect(check({ name: "Ada", tags: ["x"], address: { city: "Paris" } })).toEqual([]);
  });

  test("locates a wrong type by JSON pointer", () => {
    const issues = check({ name: 3 });
    expect(issues.map((i) => i.path)).toContain("/name");
    for (const issue of issues) expect(issue.message).toEqual(expect.any(String));
  });

  test("locates a nested array item by JSON pointer", () => {
    expect(check({ name: "a", tags: ["ok", 7] }).map((i) => i.path)).toContain("/tags/1");
  });

  test("locates a missing nested property at its parent object", () => {
    const issues = check({ name: "a", address: {} });
    expect(issues.map((i) => [i.path, i.keyword])).toContainEqual(["/address", "required"]);
  });

  test("reports a missing required property at the root as the empty pointer", () => {
    const issues = check({});
    expect(issues).toContainEqual(expect.objectContaining({ path: "", keyword: "required" }));
  });

  test("reports leaf issues rather than the aggregate ones above them", () => {
    const keywords = check({ name: "a", tags: [1] }).map((i) => i.keyword);
    expect(keywords).not.toContain("properties");
    expect(keywords).not.toContain("items");
  });

  test("honours the draft named by $schema", () => {
    const draft4 = jsonSchemaValidator({
      $schema: "http://json-schema.org/draft-04/schema#",
      type: "number",
      maximum: 5,
      exclusiveMaximum: true,
    });
    expect(draft4(5)).not.toEqual([]);
    expect(draft4(4)).toEqual([]);
  });

  test("accepts boolean schemas", () => {
    expect(jsonSchemaValidator(true)("anything")).toEqual([]);
    expect(jsonSchemaValidator(false)("anything")).not.toEqual([]);
  });
});
