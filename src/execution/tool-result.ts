import { ToolError } from "../errors.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
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

// The fields a result may have: toolwire's, and MCP's `_meta` for `metadata`.
const RESULT_KEYS = new Set(["content", "isError", "structuredContent", "metadata", "_meta"]);

/**
 * Returns the result a tool's plain-object return value stands for when it has exactly a
 * result's shape, else `undefined` (the value is data). Two kinds of value qualify: a
 * `ToolResult` that lost its brand crossing `structuredClone` or `postMessage`, and an MCP
 * `CallToolResult` (code ported from the MCP SDK). The rule is strict, so user data that merely
 * has a `content` field stays data:
 *
 * - a plain object (prototype `Object.prototype` or `null`) with a boolean `isError`;
 * - no own fields but `content`, `isError`, `structuredContent`, `metadata` and `_meta`;
 * - `content` a non-empty array whose every item is a content item with its required fields:
 *   `text` (`text`), `json` (`value`), `image` or `audio` (`mimeType`, `data`), `resource_link`
 *   (`uri`), `embedded_resource` or MCP's `resource` (`resource.uri`).
 *
 * MCP's `resource` becomes `embedded_resource`, and `_meta` (of the result or an item)
 * `metadata`, as `connectMcp` reads them.
 *
 * @param value What a tool returned.
 * @returns The branded result, or `undefined`.
 */
export function resultFromShape(value: unknown): ToolResult | undefined {
  if (!isJsonObject(value) || isToolResult(value)) return undefined;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  if (typeof value.isError !== "boolean") return undefined;
  if (!Object.keys(value).every((key) => RESULT_KEYS.has(key))) return undefined;
  const { content, structuredContent, metadata, _meta } = value;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const items: ToolContent[] = [];
  for (const item of content) {
    const read = contentFromShape(item);
    if (read === undefined) return undefined;
    items.push(read);
  }
  const meta = isJsonObject(metadata) ? metadata : isJsonObject(_meta) ? _meta : undefined;
  return ToolResult.of(items, {
    isError: value.isError,
    ...("structuredContent" in value ? { structuredContent } : {}),
    ...(meta === undefined ? {} : { metadata: meta }),
  });
}

// Whether an item of each content kind has its required fields.
const ITEM_FIELDS: Record<string, (item: Record<string, unknown>) => boolean> = {
  text: (item) => typeof item.text === "string",
  json: (item) => "value" in item,
  image: (item) => typeof item.mimeType === "string" && typeof item.data === "string",
  audio: (item) => typeof item.mimeType === "string" && typeof item.data === "string",
  resource_link: (item) => typeof item.uri === "string",
  embedded_resource: (item) => isJsonObject(item.resource) && typeof item.resource.uri === "string",
  resource: (item) => isJsonObject(item.resource) && typeof item.resource.uri === "string",
};

function contentFromShape(item: unknown): ToolContent | undefined {
  if (!isJsonObject(item) || typeof item.type !== "string") return undefined;
  const check = Object.hasOwn(ITEM_FIELDS, item.type) ? ITEM_FIELDS[item.type] : undefined;
  if (!check?.(item)) return undefined;
  const { _meta, ...rest } = item;
  const read = (
    item.type === "resource" ? { ...rest, type: "embedded_resource" } : rest
  ) as ToolContent;
  if (read.metadata === undefined && isJsonObject(_meta)) read.metadata = _meta;
  return read;
}
