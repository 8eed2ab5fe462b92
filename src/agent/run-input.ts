import { type Conversation, emptyConversation } from "../compaction/conversation.ts";
import { ToolError } from "../errors.ts";
import type { Message } from "../models/message.ts";
import { appendInput } from "./append-input.ts";

/**
 * Returns a run's own copy of the conversation it continues, after checking its shape, so a
 * conversation parsed from storage that is not one fails clearly instead of midway through the
 * run (or in a provider's 400).
 *
 * Hint: messages are never edited in place (a changed message is replaced), so a shallow copy
 * keeps the caller's saved conversation intact. A missing `rewritten` (saved by code that
 * dropped it to save space) reads as empty: the run clears it anyway.
 *
 * @param conversation The conversation to continue, or `undefined` for a new one.
 * @returns The copy.
 * @throws ToolError `invalid_configuration` naming the first part that is not well-formed.
 */
export function copyConversation(conversation: Conversation | undefined): Conversation {
  if (conversation === undefined) return emptyConversation();
  const value = conversation as Partial<Record<keyof Conversation, unknown>>;
  if (typeof value !== "object" || value === null) throw invalid("conversation", "an object");
  const taint = value.taint as Partial<Record<string, unknown>> | undefined;
  if (typeof taint?.private !== "boolean" || typeof taint.untrusted !== "boolean") {
    throw invalid("conversation.taint", "{ private: boolean, untrusted: boolean }");
  }
  if (value.rewritten !== undefined && !Array.isArray(value.rewritten)) {
    throw invalid("conversation.rewritten", "an array");
  }
  return {
    messages: checkMessages(value.messages, "conversation.messages").slice(),
    taint: { private: taint.private, untrusted: taint.untrusted },
    rewritten: (value.rewritten ?? []).slice() as Message[][],
  };
}

/**
 * Checks a run's input: a string, or a list of well-formed messages.
 *
 * @param input What the caller passed to `run`.
 * @returns The input.
 * @throws ToolError `invalid_configuration` naming the first part that is not well-formed.
 */
export function checkInput(input: unknown): string | readonly Message[] {
  if (typeof input === "string") return input;
  return checkMessages(input, "input");
}

/**
 * Checks that a run has something to answer: once its input is folded into the conversation,
 * at least one user message. Providers refuse a request without one, so an empty input on a
 * new conversation fails here instead of in a provider's 400.
 *
 * Hint: an empty input on a conversation that has a user message is fine; it is the way to
 * ask the same turn again (`run("", { conversation })`).
 *
 * @param conversation The run's copy of the conversation, before the input is folded in.
 * @param input The checked input.
 * @throws ToolError `invalid_configuration` when no user message would be sent.
 */
export function checkSomethingToAnswer(
  conversation: Conversation,
  input: string | readonly Message[],
): void {
  const has = (messages: readonly Message[]) => messages.some((m) => m.role === "user");
  if (has(conversation.messages)) return;
  // Hint: folding a copy is exact (a user message with no blocks adds nothing; open calls get
  // results) and cheap: a conversation without a user message is short.
  const folded = conversation.messages.slice();
  appendInput(folded, input);
  if (!has(folded)) {
    throw invalid("input", "non-empty text or hold a user message (the conversation has none)");
  }
}

function checkMessages(value: unknown, where: string): Message[] {
  if (!Array.isArray(value)) throw invalid(where, "an array of messages");
  value.forEach((message: unknown, index) => {
    const at = `${where}[${index}]`;
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (role !== "user" && role !== "assistant")
      throw invalid(`${at}.role`, '"user" or "assistant"');
    if (!Array.isArray(content)) throw invalid(`${at}.content`, "an array of blocks");
    content.forEach((block: unknown, i) => {
      checkBlock(block, `${at}.content[${i}]`);
    });
  });
  return value as Message[];
}

function checkBlock(block: unknown, at: string): void {
  const b = (block ?? {}) as Record<string, unknown>;
  const ok = (() => {
    // Hint: `b.type` is untrusted input, not one of our unions, hence a `default` that refuses.
    switch (b.type) {
      case "text":
        return typeof b.text === "string";
      case "tool_use":
        return typeof b.id === "string" && typeof b.name === "string";
      case "tool_result":
        return (
          typeof b.toolUseId === "string" &&
          typeof b.isError === "boolean" &&
          Array.isArray(b.content) &&
          b.content.every((item) => typeof (item as { type?: unknown })?.type === "string")
        );
      case "image":
        return typeof b.mimeType === "string" && typeof b.data === "string";
      case "reasoning":
        return typeof b.text === "string";
      default:
        return false;
    }
  })();
  if (!ok) throw invalid(at, "a text, tool_use, tool_result or image block with its fields");
}

function invalid(where: string, expected: string): ToolError {
  return new ToolError({
    type: "invalid_configuration",
    message: `${where} must be ${expected}`,
  });
}
