import { describe, expect, it } from "vitest";
import { ToolError } from "../../../src/index.ts";
import {
  TOOL_ERROR_META_KEY,
  thrownOutcome,
  toolErrorOutcome,
} from "../../../src/mcp/server/tool-error-outcome.ts";

describe("toolErrorOutcome", () => {
  it("answers an unknown tool with -32602 and a shut-down toolset with -32603", () => {
    expect(toolErrorOutcome(new ToolError({ type: "unknown_tool", name: "nope" }))).toMatchObject({
      type: "error",
      code: -32602,
      message: "Unknown tool: nope",
    });
    expect(
      toolErrorOutcome(new ToolError({ type: "closed", operation: "tools/call" })),
    ).toMatchObject({
      type: "error",
      code: -32603,
    });
  });

  it("makes invalid arguments an isError result listing every issue (SEP-1303)", () => {
    const error = new ToolError({
      type: "invalid_arguments",
      tool: "add",
      message: "bad",
      issues: [
        { path: "/a", message: "expected number" },
        { path: "", message: "extra key" },
      ],
    });
    const outcome = toolErrorOutcome(error);
    expect(outcome).toEqual({
      type: "result",
      result: {
        content: [
          {
            type: "text",
            text: "Invalid arguments for tool add:\n- /a: expected number\n- /: extra key",
          },
        ],
        isError: true,
        _meta: { [TOOL_ERROR_META_KEY]: error.toJSON() },
      },
    });
  });

  it("makes every other ToolError an isError result carrying its JSON shape", () => {
    const error = new ToolError({ type: "timeout", tool: "slow", timeoutMs: 1000 });
    const outcome = toolErrorOutcome(error);
    expect(outcome.type).toBe("result");
    if (outcome.type !== "result") return;
    expect(outcome.result.isError).toBe(true);
    expect(outcome.result._meta?.[TOOL_ERROR_META_KEY]).toEqual(error.toJSON());
  });
});

describe("thrownOutcome", () => {
  it("reports a foreign throw's message, or a default, without metadata", () => {
    expect(thrownOutcome(new Error("kaput"))).toEqual({
      type: "result",
      result: { content: [{ type: "text", text: "kaput" }], isError: true },
    });
    expect(thrownOutcome("")).toEqual({
      type: "result",
      result: { content: [{ type: "text", text: "the tool failed" }], isError: true },
    });
  });
});
