import { ToolError } from "../errors.ts";
import type { ToolContent } from "./tool-content.ts";

/**
 * A completed call. `isError: true` is the tool's own, model-visible
 * failure; could-not-execute is a thrown `ToolError` instead.
 */
export interface ToolResult {
  /** What the model reads; never empty. */
  content: ToolContent[];
  /** Structured output; required on success when the tool declares an output schema. */
  structuredContent?: unknown;
  /** Whether the tool failed. */
  isError: boolean;
  /** Uninterpreted extra metadata. */
  metadata?: Record<string, unknown>;
}

// A registry-wide symbol, so results made by another copy of toolwire are recognised too.
const MADE = Symbol.for("toolwire.ToolResult");

// The brand sits on a shared prototype rather than on each result: defining a property
// per result is measurably slower, and results must stay cheap to make.
const BRANDED: object = /* @__PURE__ */ Object.defineProperty({}, MADE, { value: true });

function made(content: ToolContent[], isError: boolean): ToolResult {
  const result = Object.create(BRANDED) as ToolResult;
  result.content = content;
  result.isError = isError;
  return result;
}

/**
 * Checks whether a value was made by `ToolResult.*` (and so is used as is when a tool returns it).
 *
 * @param value The value to check.
 * @returns Whether it was.
 */
export function isToolResult(value: unknown): value is ToolResult {
  return typeof value === "object" && value !== null && MADE in value;
}

/**
 * Creates tool results.
 *
 * @example
 * ```ts
 * return ToolResult.json({ total: 3 });
 * ```
 */
export const ToolResult = {
  /** A successful result with one text item. */
  text: (text: string): ToolResult => made([{ type: "text", text }], false),
  /** A successful result whose structured content is `value`, also rendered as a JSON item. */
  json: (value: unknown): ToolResult => {
    const result = made([{ type: "json", value }], false);
    result.structuredContent = value;
    return result;
  },
  /** A failed result with one text item the model can react to. */
  error: (text: string): ToolResult => made([{ type: "text", text }], true),
  /**
   * A result from explicit content.
   *
   * @throws ToolError `invalid_output` when `content` is empty.
   */
  of: (
    content: ToolContent[],
    options: {
      structuredContent?: unknown;
      isError?: boolean;
      metadata?: Record<string, unknown>;
    } = {},
  ): ToolResult => {
    if (!Array.isArray(content) || content.length === 0) {
      throw new ToolError({
        type: "invalid_output",
        message: "a result needs at least one content item",
        issues: [],
      });
    }
    const result = made(content, options.isError === true);
    if ("structuredContent" in options) result.structuredContent = options.structuredContent;
    if (options.metadata) result.metadata = options.metadata;
    return result;
  },
} as const;
