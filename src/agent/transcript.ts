// The transcript a run keeps valid for every provider (docs/design.md, "The agent loop", A1):
// a run's input is checked and folded in, every `tool_use` gets its result, and no two user
// messages follow each other.

import { type Conversation, emptyConversation } from "../compaction/conversation.ts";
import { ToolError } from "../errors.ts";
import {
  type Block,
  type Message,
  type ReasoningBlock,
  type ServerToolBlock,
  TOOL_RESULT_MARKS,
  type ToolUseBlock,
} from "../models/message.ts";
import { isJsonObject } from "../schema/is-json-object.ts";

/** The prefix of the result of a call the run's cancellation stopped or never started. */
export const CANCELLED_PREFIX = "Cancelled:";

/** The prefix of the result of a call a resumed run found running when its run stopped. */
export const INTERRUPTED_PREFIX = "Interrupted:";

/**
 * How a tool call ended: `executed` (it ran; `isError` tells whether it failed), `refused`
 * (an approver or the interlock said no), `unknown` (no such tool), `cancelled` (the run was
 * cancelled before or while it ran), `interrupted` (a resumed run found it running when its run
 * stopped, and its tool is not idempotent: it was not run again).
 */
export type ToolCallOutcome = "executed" | "refused" | "unknown" | "cancelled" | "interrupted";

/** One call the model made in a turn. */
export interface ModelToolCall {
  /** The call id, unique within the turn. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments, as the model sent them. */
  arguments: unknown;
  /** The provider's opaque token for this call, sent back with it (docs/design.md, P5). */
  signature?: string;
  /** Provider data sent back with this call (`toolwire/ai-sdk`). */
  providerMetadata?: Record<string, Record<string, unknown>>;
}

/**
 * The assistant message of a turn: the blocks that go before its text (reasoning first, as
 * Anthropic requires, then the provider's server tool blocks), its text (left out when empty),
 * then one `tool_use` per call with the provider's signature if any.
 */
export function assistantMessage(
  text: string,
  calls: readonly ModelToolCall[],
  before: readonly (ReasoningBlock | ServerToolBlock)[] = [],
): Message {
  const content: Block[] = [...before];
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

/**
 * Appends a turn's assistant message to a transcript, in place: merged into a trailing assistant
 * message (a turn the provider paused, which this one carries on), so no two assistant messages
 * follow each other. The trailing message is replaced, not edited.
 */
export function appendAssistant(messages: Message[], message: Message): void {
  const last = messages.at(-1);
  if (last?.role === "assistant") {
    messages[messages.length - 1] = {
      role: "assistant",
      content: [...last.content, ...message.content],
    };
  } else {
    messages.push(message);
  }
}

/**
 * Appends user content to a transcript, in place: folded into a trailing user message, or as a
 * new user message after an assistant one (providers reject two user messages in a row). The
 * trailing message is replaced, not edited, so a request already handed to a model (or an
 * event listener) never changes under it. Empty content adds nothing.
 */
export function appendUserContent(messages: Message[], content: readonly Block[]): void {
  if (content.length === 0) return;
  const last = messages.at(-1);
  if (last?.role === "user") {
    messages[messages.length - 1] = { role: "user", content: [...last.content, ...content] };
  } else {
    messages.push({ role: "user", content: [...content] });
  }
}

/**
 * Appends a run's input (a user text, empty adding nothing, or messages) to a transcript, in
 * place, keeping it valid: a trailing assistant message whose calls have no results gets
 * `Cancelled:` results first, and user input folds into a trailing user message.
 */
export function appendInput(messages: Message[], input: string | readonly Message[]): void {
  closeOpenCalls(messages);
  if (typeof input === "string") {
    if (input !== "") appendUserContent(messages, [{ type: "text", text: input }]);
    return;
  }
  for (const message of input) {
    if (message.role === "user") appendUserContent(messages, message.content);
    else messages.push({ role: "assistant", content: [...message.content] });
  }
}

function closeOpenCalls(messages: Message[]): void {
  const last = messages.at(-1);
  if (last?.role !== "assistant") return;
  const results: Block[] = last.content.flatMap((block) =>
    block.type === "tool_use"
      ? [
          {
            type: "tool_result" as const,
            toolUseId: block.id,
            content: [{ type: "text" as const, text: `${CANCELLED_PREFIX} this call never ran.` }],
            isError: true,
            mark: "cancelled" as const,
          },
        ]
      : [],
  );
  if (results.length > 0) messages.push({ role: "user", content: results });
}

/**
 * Returns a run's own copy of the conversation it continues, after checking its shape, so a
 * conversation parsed from storage that is not one fails clearly instead of midway through the
 * run (or in a provider's 400).
 * Messages are never edited in place (a changed message is replaced), so a shallow copy keeps
 * the caller's saved conversation intact. A missing `rewritten` (saved by code that dropped it
 * to save space) reads as empty. Throws `ToolError` `invalid_configuration` naming the first
 * part that is not well-formed.
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

/** Checks a run's input: a string, or a list of well-formed messages (else `invalid_configuration`). */
export function checkInput(input: unknown): string | readonly Message[] {
  if (typeof input === "string") return input;
  return checkMessages(input, "input");
}

/**
 * Checks that a run has something to answer: once its input is folded into the conversation,
 * at least one user message. Providers refuse a request without one, so an empty input on a
 * new conversation fails here (`invalid_configuration`) instead of in a provider's 400. An
 * empty input on a conversation that has a user message is fine: it asks the same turn again.
 */
export function checkSomethingToAnswer(
  conversation: Conversation,
  input: string | readonly Message[],
): void {
  const has = (messages: readonly Message[]) => messages.some((m) => m.role === "user");
  if (has(conversation.messages)) return;
  // Folding a copy is exact (a user message with no blocks adds nothing; open calls get
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
    // `b.type` is untrusted input, not one of our unions, hence a `default` that refuses.
    switch (b.type) {
      case "text":
        return typeof b.text === "string";
      case "tool_use":
        return typeof b.id === "string" && typeof b.name === "string";
      case "tool_result":
        return (
          typeof b.toolUseId === "string" &&
          typeof b.isError === "boolean" &&
          (b.mark === undefined || (TOOL_RESULT_MARKS as readonly unknown[]).includes(b.mark)) &&
          Array.isArray(b.content) &&
          b.content.every((item) => typeof (item as { type?: unknown })?.type === "string")
        );
      case "image":
        return typeof b.mimeType === "string" && typeof b.data === "string";
      case "reasoning":
        return typeof b.text === "string";
      case "server_tool":
        return typeof b.provider === "string" && isJsonObject(b.data);
      default:
        return false;
    }
  })();
  if (!ok) {
    const kinds = "a text, tool_use, tool_result, image, reasoning or server_tool block";
    throw invalid(at, `${kinds} with its fields`);
  }
}

function invalid(where: string, expected: string): ToolError {
  return new ToolError({
    type: "invalid_configuration",
    message: `${where} must be ${expected}`,
  });
}
