import { describe, expect, test } from "vitest";
import { isToolResult, resultFromShape, ToolResult } from "../../src/execution/tool-result.ts";
import { caught } from "../support/caught.ts";

describe("ToolResult", () => {
  test("text has one text item and is not an error", () => {
    expect(ToolResult.text("x")).toEqual({
      content: [{ type: "text", text: "x" }],
      isError: false,
    });
  });

  test("json sets structuredContent to the value", () => {
    const value = { total: 3 };
    const result = ToolResult.json(value);
    expect(result.structuredContent).toBe(value);
    expect(result.content).toEqual([{ type: "json", value }]);
    expect(result.isError).toBe(false);
  });

  test("error has one text item and isError set", () => {
    expect(ToolResult.error("not found")).toEqual({
      content: [{ type: "text", text: "not found" }],
      isError: true,
    });
  });

  test("of fails with invalid_output for an empty content list", async () => {
    const error = await caught(() => ToolResult.of([]));
    expect(error.data).toMatchObject({ type: "invalid_output", issues: [] });
  });

  test("of keeps content, structuredContent (even null), isError and metadata", () => {
    const result = ToolResult.of(
      [
        { type: "image", mimeType: "image/png", data: "AAAA" },
        { type: "resource_link", uri: "file:///a", metadata: { k: 1 } },
      ],
      { structuredContent: null, isError: true, metadata: { trace: "t" } },
    );
    expect(result).toEqual({
      content: [
        { type: "image", mimeType: "image/png", data: "AAAA" },
        { type: "resource_link", uri: "file:///a", metadata: { k: 1 } },
      ],
      structuredContent: null,
      isError: true,
      metadata: { trace: "t" },
    });
    expect("structuredContent" in ToolResult.of([{ type: "text", text: "x" }])).toBe(false);
  });
});

describe("isToolResult", () => {
  test("recognises results made by ToolResult and nothing else", () => {
    expect(isToolResult(ToolResult.text("x"))).toBe(true);
    expect(isToolResult({ content: [{ type: "text", text: "x" }], isError: false })).toBe(false);
    expect(isToolResult(null)).toBe(false);
  });

  test("keeps the brand out of JSON", () => {
    expect(JSON.parse(JSON.stringify(ToolResult.text("x")))).toEqual({
      content: [{ type: "text", text: "x" }],
      isError: false,
    });
  });
});

describe("resultFromShape", () => {
  test("brands a result that crossed structuredClone, a null-prototype one too", () => {
    const read = resultFromShape(structuredClone(ToolResult.error("no")));
    expect(isToolResult(read)).toBe(true);
    expect(read).toEqual(ToolResult.error("no"));
    const bare = Object.assign(Object.create(null), {
      content: [{ type: "image", mimeType: "image/png", data: "AA" }],
      isError: false,
    });
    expect(resultFromShape(bare)?.content).toEqual([
      { type: "image", mimeType: "image/png", data: "AA" },
    ]);
  });

  test("leaves branded results, arrays and other values alone", () => {
    expect(resultFromShape(ToolResult.text("x"))).toBeUndefined();
    expect(resultFromShape([{ content: [], isError: true }])).toBeUndefined();
    expect(resultFromShape("text")).toBeUndefined();
    expect(resultFromShape(null)).toBeUndefined();
  });

  test("refuses an item kind by an inherited name", () => {
    const value = { content: [{ type: "toString" }], isError: true };
    expect(resultFromShape(value)).toBeUndefined();
  });
});
