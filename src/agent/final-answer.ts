import type { Message } from "../models/message.ts";
import type { Model, ModelRequest, ModelTool, ModelUsage } from "../models/model.ts";
import { appendUserContent } from "./append-input.ts";
import type { EmitEvent } from "./events.ts";
import { streamModelTurn } from "./model-turn.ts";

/** The nudge folded into the last user message before the final, tool-less answer turn. */
export const FINAL_ANSWER_NUDGE =
  "Your tool budget for this run is spent. Answer now without calling tools, and say plainly what you could not find or finish.";

/**
 * Final answer interface: what the tool-less answer turn produced.
 */
export interface FinalAnswer {
  /** The answer; a fixed explanation when the model gave none. */
  text: string;
  /** The turn's usage, when reported. */
  usage?: ModelUsage;
  /** Whether the run's signal aborted during the turn. */
  cancelled: boolean;
}

/**
 * Returns the answer of one extra model call in which calling tools is forbidden, made when a
 * run hits a limit, so the caller never gets an empty answer. The call is not counted as a
 * turn; its failure is swallowed (the fixed explanation stands in), and any call the model
 * makes anyway is dropped, so no `tool_use` is left without a result.
 *
 * Hint: the tools are still declared, with `toolChoice: "none"`: the Anthropic API rejects a
 * transcript holding `tool_use` / `tool_result` blocks when the request defines no tools.
 *
 * @param settings The model and system prompt.
 * @param state The transcript (updated in place), the run's tool specs, signal, event sink,
 *   turns taken and cause.
 * @returns The answer.
 */
export async function answerFinally(
  settings: { model: Model; instructions: string | undefined },
  state: {
    messages: Message[];
    tools: ModelTool[];
    signal: AbortSignal;
    emit: EmitEvent;
    turns: number;
    cause: "max_turns" | "loop" | "compaction_stalled";
  },
): Promise<FinalAnswer> {
  const { messages, signal, emit, turns } = state;
  appendUserContent(messages, [{ type: "text", text: FINAL_ANSWER_NUDGE }]);
  emit({ type: "turn_start", turn: turns + 1, final: true });
  const request: ModelRequest = { messages: messages.slice(), tools: state.tools };
  if (request.tools.length > 0) request.toolChoice = "none";
  if (settings.instructions !== undefined) request.system = settings.instructions;
  const turn = await streamModelTurn(settings.model, request, { signal, emit, turn: turns + 1 });
  const cancelled = turn.end === "cancelled";
  const text = turn.end === "failed" ? "" : turn.text;
  if (text !== "") messages.push({ role: "assistant", content: [{ type: "text", text }] });
  const why =
    state.cause === "loop"
      ? "was stopped in a loop"
      : state.cause === "compaction_stalled"
        ? "could not compact its transcript under the threshold"
        : "reached its turn limit";
  const answer: FinalAnswer = {
    text: text || `No answer was produced: the run ${why} after ${turns} turns.`,
    cancelled,
  };
  if (turn.usage) answer.usage = turn.usage;
  return answer;
}
