import type { ToolResultBlock } from "../models/message.ts";
import { toolContentText } from "../models/tool-content-text.ts";

/**
 * Returns the text of a tool result, each content item rendered as text (media as a short
 * placeholder) and the items joined by newlines.
 *
 * @param result The tool result block.
 * @returns Its text.
 */
export function resultText(result: ToolResultBlock): string {
  if (result.content.length === 1 && result.content[0]?.type === "text") {
    return result.content[0].text;
  }
  return result.content.map(toolContentText).join("\n");
}
