import type { ToolContent } from "../../execution/tool-content.ts";
import type { ToolResult } from "../../execution/tool-result.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { protocolError } from "./session-error.ts";

/**
 * Returns the tool result for a `tools/call` result: content blocks become tool content
 * (`resource` → `embedded_resource`, `_meta` → `metadata`), `structuredContent`, `isError` and
 * `_meta` are kept. A remote `isError: true` stays a result. An empty `content` list, which MCP
 * allows and toolwire does not, gets one item: the structured content as JSON, else empty text.
 *
 * @param value The JSON-RPC result.
 * @param tool The tool, for error messages.
 * @returns The result.
 * @throws ToolError `protocol` when the result or one of its blocks is malformed.
 */
export function resultFromMcp(value: Record<string, unknown>, tool: string): ToolResult {
  const { content, structuredContent, isError, _meta } = value;
  if (!Array.isArray(content)) throw protocolError(`\`${tool}\` returned no \`content\` array`);
  if (isError !== undefined && typeof isError !== "boolean") {
    throw protocolError(`\`${tool}\` returned a non-boolean \`isError\``);
  }
  const items = content.map((block, index) => contentFromMcp(block, `${tool} content[${index}]`));
  if (items.length === 0) {
    items.push(
      structuredContent === undefined
        ? { type: "text", text: "" }
        : { type: "json", value: structuredContent },
    );
  }
  const result: ToolResult = { content: items, isError: isError === true };
  if (structuredContent !== undefined) result.structuredContent = structuredContent;
  if (isJsonObject(_meta)) result.metadata = _meta;
  return result;
}

function contentFromMcp(block: unknown, where: string): ToolContent {
  if (!isJsonObject(block) || typeof block.type !== "string") {
    throw protocolError(`${where} is not a content block`);
  }
  const item = itemOf(block, where);
  if (isJsonObject(block._meta)) item.metadata = block._meta;
  return item;
}

function itemOf(block: Record<string, unknown>, where: string): ToolContent {
  const text = (key: string): string => {
    const field = block[key];
    if (typeof field !== "string") throw protocolError(`${where} needs a string \`${key}\``);
    return field;
  };
  const kind: unknown = block.type;
  switch (kind) {
    case "text":
      return { type: "text", text: text("text") };
    case "image":
    case "audio":
      return { type: kind, mimeType: text("mimeType"), data: text("data") };
    case "resource_link": {
      const link: ToolContent = { type: "resource_link", uri: text("uri") };
      // Hint: MCP's required `name` is the link's label when it has no `title`.
      const title = typeof block.title === "string" ? block.title : block.name;
      if (typeof title === "string") link.title = title;
      if (typeof block.mimeType === "string") link.mimeType = block.mimeType;
      return link;
    }
    case "resource": {
      const source = block.resource;
      if (!isJsonObject(source) || typeof source.uri !== "string") {
        throw protocolError(`${where} needs a \`resource\` with a string \`uri\``);
      }
      const resource: { uri: string; mimeType?: string; text?: string; blob?: string } = {
        uri: source.uri,
      };
      if (typeof source.mimeType === "string") resource.mimeType = source.mimeType;
      if (typeof source.text === "string") resource.text = source.text;
      if (typeof source.blob === "string") resource.blob = source.blob;
      return { type: "embedded_resource", resource };
    }
    default:
      // Hint: a block type from a newer revision is kept, as data, rather than failing the call.
      return { type: "json", value: block };
  }
}
