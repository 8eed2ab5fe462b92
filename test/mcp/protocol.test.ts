import * as v from "valibot";
import { describe, expect, it } from "vitest";
import type { ToolInfo } from "../../src/index.ts";
import { defineTool, JsonSchema, ToolResult, toolName } from "../../src/index.ts";
import {
  negotiateProtocolVersion,
  toMcpCallToolResult,
  toMcpTool,
} from "../../src/mcp/protocol.ts";

describe("protocol", () => {
  it("negotiates: echoes a supported revision, else offers the newest", () => {
    expect(negotiateProtocolVersion("2025-06-18")).toBe("2025-06-18");
    expect(negotiateProtocolVersion("2025-11-25")).toBe("2025-11-25");
    expect(negotiateProtocolVersion("2024-11-05")).toBe("2025-11-25");
    expect(negotiateProtocolVersion(undefined)).toBe("2025-11-25");
  });

  it("renders a tool with its annotations, output schema and metadata", () => {
    const tool = defineTool({
      name: "t",
      title: "T",
      description: "d",
      readOnly: true,
      input: v.object({ q: v.string() }),
      output: v.object({ n: v.number() }),
      metadata: { k: 1 },
      call: () => ({ n: 1 }),
    });
    const wire = toMcpTool(tool.info);
    expect(wire).toMatchObject({
      name: "t",
      title: "T",
      description: "d",
      inputSchema: { type: "object", required: ["q"] },
      outputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
      _meta: { k: 1 },
    });
  });

  it("makes every input schema an object schema", () => {
    const base = (schema: Record<string, unknown> | boolean): ToolInfo =>
      ({
        name: toolName("x"),
        inputSchema: JsonSchema.unspecified(schema),
        annotations: {},
      }) as ToolInfo;
    expect(toMcpTool(base(true)).inputSchema).toEqual({ type: "object" });
    expect(toMcpTool(base({ properties: {} })).inputSchema).toEqual({
      type: "object",
      properties: {},
    });
    expect(toMcpTool(base({})).annotations).toBeUndefined();
  });

  it("maps every content kind, json as text, metadata as _meta", () => {
    const result = ToolResult.of(
      [
        { type: "text", text: "t", metadata: { m: 1 } },
        { type: "json", value: { a: 1 } },
        { type: "image", mimeType: "image/png", data: "AA==" },
        { type: "audio", mimeType: "audio/wav", data: "AA==" },
        { type: "resource_link", uri: "file:///a", title: "A" },
        { type: "embedded_resource", resource: { uri: "file:///b", blob: "AA==" } },
      ],
      { structuredContent: { s: 1 }, metadata: { r: 2 } },
    );
    expect(toMcpCallToolResult(result)).toEqual({
      content: [
        { type: "text", text: "t", _meta: { m: 1 } },
        { type: "text", text: '{"a":1}' },
        { type: "image", mimeType: "image/png", data: "AA==" },
        { type: "audio", mimeType: "audio/wav", data: "AA==" },
        { type: "resource_link", uri: "file:///a", name: "A", title: "A" },
        { type: "resource", resource: { uri: "file:///b", blob: "AA==" } },
      ],
      structuredContent: { s: 1 },
      isError: false,
      _meta: { r: 2 },
    });
  });
});
