import type { Message } from "../../src/agent/index.ts";
import { unreachable } from "../unreachable.ts";
import { contentText } from "./tool-call-card.ts";

/**
 * Returns a transcript as readable text, one tagged entry per block, for the expandable
 * pre-rewrite transcripts of the compaction log.
 *
 * @param messages The transcript.
 * @returns The text.
 */
export function transcriptText(messages: readonly Message[]): string {
  const lines: string[] = [];
  messages.forEach((message, index) => {
    for (const block of message.content) {
      const tag = `${String(index).padStart(2, " ")} ${message.role}`;
      switch (block.type) {
        case "text":
          lines.push(`${tag}: ${block.text}`);
          break;
        case "tool_use":
          lines.push(`${tag} → ${block.name} ${JSON.stringify(block.input)}`);
          break;
        case "tool_result":
          lines.push(`${tag} ← ${block.isError ? "error: " : ""}${contentText(block.content)}`);
          break;
        case "image":
          lines.push(`${tag}: [image ${block.mimeType}]`);
          break;
        case "reasoning":
          lines.push(`${tag} (thinking): ${block.text}`);
          break;
        case "server_tool":
          lines.push(`${tag} (${block.provider} server tool): ${JSON.stringify(block.data)}`);
          break;
        default:
          unreachable(block);
      }
    }
  });
  return lines.join("\n");
}
