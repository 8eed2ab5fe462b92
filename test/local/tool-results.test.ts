import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { ToolResult } from "../../src/execution/tool-result.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import type { SchemaInput } from "../../src/schema/schema-input.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { caught } from "../support/caught.ts";

// What a local tool's return value becomes (design.md T4, T5): the call a user makes.
function returning(value: unknown, output?: SchemaInput): Promise<ToolResult> {
  const tool = defineTool({
    name: "t",
    description: "Returns a fixed value",
    input: v.object({}),
    jsonSchemaValidator,
    ...(output === undefined ? {} : { output }),
    call: () => value,
  });
  return Toolset.local([tool]).call("t", {});
}

const TOTAL = v.object({ total: v.number() });

describe("what a tool returns", () => {
  test("a string becomes a text result", async () => {
    expect(await returning("hi")).toEqual(ToolResult.text("hi"));
  });

  test("a ToolResult is kept as is", async () => {
    const result = ToolResult.of([{ type: "audio", mimeType: "audio/wav", data: "AA" }]);
    expect(await returning(result)).toBe(result);
  });

  test("a plain value becomes structuredContent plus its JSON text", async () => {
    expect(await returning({ a: 1 })).toEqual({
      content: [{ type: "text", text: '{"a":1}' }],
      structuredContent: { a: 1 },
      isError: false,
    });
    expect(await returning(0)).toMatchObject({ content: [{ text: "0" }], structuredContent: 0 });
  });

  test("nothing fails the call with invalid_output", async () => {
    expect((await caught(returning(undefined))).type).toBe("invalid_output");
  });
});

// Issue 22, item 6: a result that lost its brand, or an MCP-shaped one, is still a result.
describe("a plain object with exactly a result's shape", () => {
  test("an MCP CallToolResult with isError: true stays an error, its content kept", async () => {
    const result = await returning({
      content: [{ type: "text", text: "City not found", _meta: { source: "geo" } }],
      isError: true,
    });
    expect(result).toEqual({
      content: [{ type: "text", text: "City not found", metadata: { source: "geo" } }],
      isError: true,
    });
  });

  test("a ToolResult that crossed structuredClone keeps isError, content and structuredContent", async () => {
    const failed = structuredClone(ToolResult.error("disk full"));
    expect(await returning(failed)).toEqual(ToolResult.error("disk full"));
    const sum = structuredClone(ToolResult.json({ total: 3 }));
    const result = await returning(sum, TOTAL);
    expect(result).toEqual(ToolResult.json({ total: 3 }));
  });

  test("MCP resource items become embedded_resource, _meta becomes metadata", async () => {
    const result = await returning({
      content: [{ type: "resource", resource: { uri: "file:///a.txt", text: "A" } }],
      isError: false,
      _meta: { trace: "t1" },
    });
    expect(result).toEqual({
      content: [{ type: "embedded_resource", resource: { uri: "file:///a.txt", text: "A" } }],
      isError: false,
      metadata: { trace: "t1" },
    });
  });

  test.each([
    ["no isError", { content: [{ type: "text", text: "hello" }] }],
    ["a non-boolean isError", { content: [{ type: "text", text: "x" }], isError: "yes" }],
    ["a field a result has not", { content: [{ type: "text", text: "x" }], isError: false, id: 7 }],
    ["an item of no content kind", { content: [{ type: "paragraph", text: "x" }], isError: true }],
    ["an item without its fields", { content: [{ type: "image" }], isError: true }],
    ["empty content", { content: [], isError: true }],
    ["content that is not a list", { content: "text", isError: true }],
  ])("user data with %s stays data", async (_, value) => {
    const result = await returning(value);
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual(value);
  });

  test("a class instance with a result's fields stays data", async () => {
    class Page {
      content = [{ type: "text", text: "x" }];
      isError = true;
    }
    const result = await returning(new Page());
    expect(result.isError).toBe(false);
  });
});

describe("output that cannot be serialised fails with invalid_output, never a TypeError", () => {
  const cyclic: Record<string, unknown> = { name: "loop" };
  cyclic.self = cyclic;

  test.each([
    ["a bigint", 10n],
    ["a cyclic object", cyclic],
    ["an object holding a bigint", { n: 10n }],
    ["a function", () => 1],
    ["a symbol", Symbol("s")],
    ["ToolResult.json of a bigint", ToolResult.json(10n)],
    ["ToolResult.json of a cyclic object", ToolResult.json(cyclic)],
    [
      "a result whose structuredContent is cyclic",
      ToolResult.of([{ type: "text", text: "x" }], { structuredContent: cyclic }),
    ],
  ])("%s", async (_label, value) => {
    const error = await caught(returning(value));
    expect(error.type).toBe("invalid_output");
    expect(error.message).toContain("t returned");
  });
});

describe("an output schema", () => {
  test("fails a result without structuredContent", async () => {
    expect((await caught(returning(ToolResult.text("3"), TOTAL))).type).toBe("invalid_output");
  });

  test("checks structuredContent null too", async () => {
    const result = ToolResult.of([{ type: "text", text: "null" }], { structuredContent: null });
    const error = await caught(returning(result, TOTAL));
    expect(error.type).toBe("invalid_output");
    expect(error.issues?.length).toBeGreaterThan(0);
  });

  test("reports issues by JSON pointer", async () => {
    const error = await caught(returning(ToolResult.json({ total: "3" }), TOTAL));
    expect(error.issues).toEqual([expect.objectContaining({ path: "/total" })]);
  });

  test("exempts isError results", async () => {
    const result = ToolResult.error("record not found");
    expect(await returning(result, TOTAL)).toBe(result);
  });

  test("passes a conforming result, returned as a plain object or as json", async () => {
    expect((await returning({ total: 3 }, TOTAL)).structuredContent).toEqual({ total: 3 });
    expect((await returning(ToolResult.json({ total: 4 }), TOTAL)).isError).toBe(false);
  });

  test("may be a raw JSON Schema", async () => {
    const raw = { jsonSchema: { type: "object", required: ["ok"] } };
    expect((await caught(returning({ nope: 1 }, raw))).type).toBe("invalid_output");
    expect((await returning({ ok: true }, raw)).structuredContent).toEqual({ ok: true });
  });
});
