import { ToolError } from "../errors.ts";
import { isToolResult, ToolResult } from "../execution/tool-result.ts";
import type { Tool } from "./define-tool.ts";

/**
 * Returns the result for what a tool's function returned, checked against its output schema:
 * a string becomes text, a `ToolResult.*` value is kept, anything else becomes structured
 * content with its JSON text.
 *
 * @param tool The tool that ran.
 * @param value What its function returned.
 * @returns The checked result.
 * @throws ToolError `invalid_output` when the value cannot be a result or misses the schema.
 */
export async function completeResult(tool: Tool, value: unknown): Promise<ToolResult> {
  return checkOutput(tool, toResult(tool, value));
}

/**
 * Returns a result checked against its tool's output schema; `isError` results are exempt.
 *
 * @param tool The tool that ran.
 * @param result The result it produced.
 * @returns The same result.
 * @throws ToolError `invalid_output` when `structuredContent` is missing or misses the schema.
 */
export async function checkOutput(tool: Tool, result: ToolResult): Promise<ToolResult> {
  const output = tool["~output"];
  if (result.isError || !output) return result;
  if (result.structuredContent === undefined) {
    throw new ToolError({
      type: "invalid_output",
      message: `${tool.name} declares an output schema but returned no structuredContent`,
      issues: [],
    });
  }
  const outcome = await output.validate(result.structuredContent);
  if (outcome.ok) return result;
  throw new ToolError({
    type: "invalid_output",
    message: `${tool.name} returned structuredContent that does not match its output schema`,
    issues: outcome.issues,
  });
}

/**
 * Returns the result for what a tool's function returned, unchecked: a string becomes text, a
 * `ToolResult.*` value is kept, anything else becomes structured content with its JSON text.
 *
 * @param tool The tool that ran.
 * @param value What its function returned.
 * @returns The result.
 * @throws ToolError `invalid_output` for `undefined`.
 */
export function toResult(tool: Tool, value: unknown): ToolResult {
  if (typeof value === "string") return ToolResult.text(value);
  if (isToolResult(value)) return value;
  if (value === undefined) {
    throw new ToolError({
      type: "invalid_output",
      message: `${tool.name} returned nothing`,
      issues: [],
    });
  }
  return ToolResult.of([{ type: "text", text: JSON.stringify(value) ?? String(value) }], {
    structuredContent: value,
  });
}
