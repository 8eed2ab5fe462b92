import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { ToolResult } from "../../src/execution/tool-result.ts";
import { completeResult } from "../../src/local/complete-result.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import { caught } from "../support/caught.ts";

const plain = defineTool({ name: "plain", description: "d", input: v.object({}), call: () => "" });
const typed = defineTool({
  name: "typed",
  description: "d",
  input: v.object({}),
  output: v.object({ total: v.number() }),
  call: () => "",
});

describe("completeResult", () => {
  test("turns a string into a text result", async () => {
    expect(await completeResult(plain, "hi")).toEqual(ToolResult.text("hi"));
  });

  test("keeps a ToolResult as is", async () => {
    const result = ToolResult.of([{ type: "audio", mimeType: "audio/wav", data: "AA" }]);
    expect(await completeResult(plain, result)).toBe(result);
  });

  test("turns a plain object into structuredContent plus its JSON text", async () => {
    expect(await completeResult(plain, { a: 1 })).toEqual({
      content: [{ type: "text", text: '{"a":1}' }],
      structuredContent: { a: 1 },
      isError: false,
    });
  });

  test("fails with invalid_output when the tool returned nothing", async () => {
    expect((await caught(completeResult(plain, undefined))).type).toBe("invalid_output");
  });

  test("fails with invalid_output when a declared output schema gets no structuredContent", async () => {
    const error = await caught(completeResult(typed, ToolResult.text("3")));
    expect(error.type).toBe("invalid_output");
  });

  test("validates structuredContent null against the output schema", async () => {
    const error = await caught(
      completeResult(
        typed,
        ToolResult.of([{ type: "text", text: "null" }], { structuredContent: null }),
      ),
    );
    expect(error.type).toBe("invalid_output");
    expect(error.issues?.length).toBeGreaterThan(0);
  });

  test("reports output issues by JSON pointer", async () => {
    const error = await caught(completeResult(typed, ToolResult.json({ total: "3" })));
    expect(error.issues).toEqual([expect.objectContaining({ path: "/total" })]);
  });

  test("exempts isError results from the output schema", async () => {
    const result = ToolResult.error("record not found");
    expect(await completeResult(typed, result)).toBe(result);
  });

  test("completes a conforming result, returned as a plain object or as json", async () => {
    expect((await completeResult(typed, { total: 3 })).structuredContent).toEqual({ total: 3 });
    expect((await completeResult(typed, ToolResult.json({ total: 4 }))).isError).toBe(false);
  });

  test("validates a raw JSON Schema output too", async () => {
    const raw = defineTool({
      name: "raw",
      description: "d",
      input: { jsonSchema: {} },
      output: { jsonSchema: { type: "object", required: ["ok"] } },
      call: () => "",
    });
    expect((await caught(completeResult(raw, { nope: 1 }))).type).toBe("invalid_output");
    expect((await completeResult(raw, { ok: true })).structuredContent).toEqual({ ok: true });
  });
});
