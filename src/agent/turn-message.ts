import type { Block, Message, ReasoningBlock, ToolUseBlock } from "../models/message.ts";
import type { ModelToolCall } from "./call-outcome.ts";

/**
 * Creates the assistant message of a turn: its reasoning blocks, its text, then one `tool_use`
 * block per call (with the provider's signature, when it sent one).
 *
 * @param text The turn's text; left out when empty.
 * @param calls The turn's calls, in order.
 * @returns The message.
 */
export function assistantMessage(
  text: string,
  calls: readonly ModelToolCall[],
  reasoning: readonly ReasoningBlock[] = [],
): Message {
  // Reasoning first: Anthropic requires a thinking turn's blocks before its text and calls.
  const content: Block[] = [...reasoning];
  if (text !== "") content.push({ type: "text", text });
  for (const call of calls) {
    const block: ToolUseBlock = {
      type: "tool_use",
      id: call.id,
      name: call.name,
      input: call.arguments,
    };
    if (call.signature !== undefined) block.signature = call.signature;
    if (call.providerMetadata) block.providerMetadata = call.providerMetadata;
    content.push(block);
  }
  return { role: "assistant", content };
}
