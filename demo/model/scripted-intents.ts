import { estimateTokens } from "../../src/agent/index.ts";
import {
  type Message,
  type ModelRequest,
  type ScriptedModel,
  type ScriptedToolCall,
  type ScriptedTurn,
  scriptedModel,
} from "../../src/models/index.ts";
import { unreachable } from "../unreachable.ts";
import { type Intent, parseIntent } from "./intent.ts";
import { answerResults } from "./result-answer.ts";

/** The label the page shows for the offline model; it is not an AI, and says so. */
export const OFFLINE_MODEL_LABEL = "Offline scripted model (no AI)";

/** What the offline model answers to a message it does not recognise. */
export const HELP_TEXT = [
  "I am the offline scripted model: not an AI, just a few patterns, so the demo works without a network or a key.",
  "Try one of the suggested prompts, for example “calculate 2+3*4”, “add a note buy oat milk”, “add todos: draft, review, ship”, “what time is it”, “ask me my favourite colour” or “run the slow task”.",
  "Switch to a real model in Settings for free-form chat.",
].join(" ");

/**
 * Scripted intents options interface.
 */
export interface ScriptedIntentsOptions {
  /** Makes a fresh tool call id; a random one by default (ids must stay unique across reloads). */
  newId?: () => string;
}

/**
 * Returns the offline model's turn for a request: after tool results, a short answer that
 * summarises them; otherwise the tool call that the last user message asks for, or a help text.
 * It reports an estimated usage (a quarter of the transcript's JSON size), so compaction
 * triggers as it would with a real provider.
 *
 * @param request The model request.
 * @param options How call ids are made.
 * @returns The turn.
 */
export function scriptedIntents(
  request: ModelRequest,
  options: ScriptedIntentsOptions = {},
): ScriptedTurn {
  const { messages } = request;
  const turn = nextTurn(
    request,
    options.newId ?? (() => `call_${crypto.randomUUID().slice(0, 8)}`),
  );
  const output = JSON.stringify(turn).length;
  return {
    ...turn,
    usage: { inputTokens: estimateTokens(messages), outputTokens: Math.ceil(output / 4) },
  };
}

/**
 * Creates the page's default model: the offline scripted model over `scriptedIntents`.
 *
 * @returns The model.
 */
export function offlineModel(): ScriptedModel {
  return scriptedModel((request) => scriptedIntents(request), { id: "offline-scripted" });
}

function nextTurn(request: ModelRequest, newId: () => string): ScriptedTurn {
  const last = request.messages.at(-1);
  const hasText = last?.content.some((block) => block.type === "text") ?? false;
  // Text folded in after tool results (a new message after a stopped run, or steering)
  // is a new request; results alone are answered.
  if (last && !hasText && last.content.some((block) => block.type === "tool_result")) {
    return { text: answerResults(request.messages) };
  }
  const text = lastUserText(request.messages);
  const intent = parseIntent(text);
  const call = toolCall(intent);
  if (call === undefined) return { text: textAnswer(intent) };
  if (!request.tools.some((tool) => tool.name === call.name)) {
    return {
      text:
        request.tools.length === 0
          ? "I cannot call tools in this turn, so I will stop here."
          : `I would call \`${call.name}\`, but no tool of that name is connected.`,
    };
  }
  return { toolCalls: [{ ...call, id: newId() }] };
}

function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as Message;
    if (message.role !== "user") continue;
    const texts = message.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
    if (texts.length > 0) return texts.at(-1) as string;
  }
  return "";
}

function toolCall(intent: Intent): ScriptedToolCall | undefined {
  switch (intent.type) {
    case "calculate":
      return { name: "calculator", arguments: { expression: intent.expression } };
    case "save_note":
      return { name: "save_note", arguments: { text: intent.text } };
    case "list_notes":
      return { name: "list_notes", arguments: {} };
    case "add_todos":
      return { name: "todo", arguments: { action: "add", items: intent.items } };
    case "update_todo":
      return { name: "todo", arguments: { action: intent.action, id: intent.id } };
    case "list_todos":
      return { name: "todo", arguments: { action: "list" } };
    case "clock":
      return { name: "clock", arguments: intent.timeZone ? { timeZone: intent.timeZone } : {} };
    case "ask_user":
      return { name: "ask_user", arguments: { question: intent.question } };
    case "slow_task":
      return { name: "slow_task", arguments: {} };
    case "compact":
      return { name: "compact", arguments: { reason: "the user asked" } };
    case "call_tool":
      return { name: intent.name, arguments: intent.arguments };
    case "greeting":
    case "help":
      return undefined;
    default:
      return unreachable(intent);
  }
}

function textAnswer(intent: Intent): string {
  return intent.type === "greeting" ? `Hello! ${HELP_TEXT}` : HELP_TEXT;
}
