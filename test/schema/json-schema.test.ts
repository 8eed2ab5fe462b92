import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { defineTool, Toolset } from "../../src/index.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { JsonSchema } from "../../src/schema/json-schema.ts";

const doc = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };

describe("JsonSchema", () => {
  test.each([
    ["strict", JsonSchema.strict, "strict"],
    ["bestEffort", JsonSchema.bestEffort, "best_effort"],
    ["unspecified", JsonSchema.unspecified, "unspecified"],
  ] as const)("%s wraps the document unchanged and sets its strictness", (_n, wrap, strictness) => {
    const wrapped = wrap(doc);
    expect(wrapped.schema).toBe(doc);
    expect(wrapped.strictness).toBe(strictness);
    expect(doc).toEqual({ type: "object", properties: { q: { type: "string" } }, required: ["q"] });
  });

  test("does not reject an invalid schema at construction", () => {
    const nonsense = { type: 42, properties: "nope" } as Record<string, unknown>;
    expect(JsonSchema.strict(nonsense).schema).toBe(nonsense);
    expect(JsonSchema.bestEffort(false).schema).toBe(false);
  });

  test("never changes validation outcomes, whatever the strictness", async () => {
    // A backend that publishes the same document with each strictness; the outcome of a
    // call depends on the local tool's schema only.
    const outcomes: string[] = [];
    for (const wrap of [JsonSchema.strict, JsonSchema.bestEffort, JsonSchema.unspecified]) {
      const tool = defineTool({
        jsonSchemaValidator,
        name: "search",
        description: "Searches",
        input: { jsonSchema: wrap(doc).schema },
        call: (input) => String((input as { q: string }).q),
      });
      const tools = Toolset.local([tool]);
      const ok = await tools.call("search", { q: "x" });
      const bad = await tools.call("search", { q: 1 }).catch((e: { type: string }) => e.type);
      outcomes.push(`${ok.isError}/${bad}`);
    }
    expect(outcomes).toEqual([
      "false/invalid_arguments",
      "false/invalid_arguments",
      "false/invalid_arguments",
    ]);
  });

  test("a valibot tool publishes its schema as unspecified", () => {
    const tool = defineTool({ name: "t", description: "d", input: v.object({}), call: () => "ok" });
    expect(tool.info.inputSchema.strictness).toBe("unspecified");
  });
});
