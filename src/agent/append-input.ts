import type { Block, Message } from "../models/message.ts";
import { CANCELLED_PREFIX } from "./call-outcome.ts";

/**
 * Appends user content to a transcript, in place: folded into a trailing user message, or as a
 * new user message after an assistant one. Providers reject two user messages in a row.
 *
 * Hint: the trailing message is replaced, not edited, so a request already handed to a model
 * (or an event listener) never changes under it.
 *
 * @param messages The transcript.
 * @param content The blocks to add; nothing happens when empty.
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
 * Appends a run's input to a transcript, in place, keeping it valid: a trailing assistant
 * message whose calls have no results gets `Cancelled:` results first, and user input folds
 * into a trailing user message.
 *
 * @param messages The transcript, possibly resumed from storage.
 * @param input A user text (empty adds nothing), or messages to append.
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
          },
        ]
      : [],
  );
  if (results.length > 0) messages.push({ role: "user", content: results });
}
