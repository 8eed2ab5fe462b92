import { unreachable } from "../errors.ts";
import type { ToolContent } from "../execution/tool-content.ts";

/**
 * Returns the text a provider gets for one item of a tool result, for the kinds (or the
 * providers) that take no native form: JSON is stringified, links and resources name their
 * URI, and media the provider cannot take in a tool result become a short placeholder.
 *
 * @param content One item of a tool result.
 * @returns Its text rendering.
 */
export function toolContentText(content: ToolContent): string {
  switch (content.type) {
    case "text":
      return content.text;
    case "json":
      return JSON.stringify(content.value) ?? "null";
    case "image":
      return `[image: ${content.mimeType}]`;
    case "audio":
      return `[audio: ${content.mimeType}]`;
    case "resource_link":
      return content.title ? `${content.title} <${content.uri}>` : content.uri;
    case "embedded_resource": {
      const { uri, text, mimeType } = content.resource;
      if (text !== undefined) return text;
      return `[resource: ${uri}${mimeType ? ` (${mimeType})` : ""}]`;
    }
    default:
      return unreachable(content);
  }
}
