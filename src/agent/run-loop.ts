import type { Conversation } from "../compaction/conversation.ts";
import type { Message } from "../models/message.ts";
import type { FinishReason, Model, ModelUsage } from "../models/model.ts";
import { isModelError } from "../models/model-error.ts";
import { raceAbort } from "../toolset/cancelled-error.ts";
import type { Toolset } from "../toolset/toolset.ts";
import { appendInput, appendUserContent } from "./append-input.ts";
import type { Approver } from "./approval.ts";
import type { CompactionStep } from "./compaction-step.ts";
import { type DispatchContext, dispatchCalls } from "./dispatch.ts";
import type { EmitEvent } from "./events.ts";
import type { InteractionAnswerer } from "./execute-call.ts";
import { answerFinally } from "./final-answer.ts";
import { armImageTaint, type InterlockPolicy } from "./interlock.ts";
import { streamModelTurn } from "./model-turn.ts";
import { addUsage, emptyUsage, type RunResult, type StopCause } from "./run-result.ts";
import { listToolCatalog, type ToolCatalog } from "./tool-specs.ts";
import { assistantMessage } from "./turn-message.ts";

/** How many empty turns in a row are retried with a nudge before the run gives up. */
export const MAX_EMPTY_TURNS = 3;

/** The nudge folded into the last user message after an empty turn. */
export const EMPTY_TURN_NUDGE =
  "Your last reply was empty. Give your answer now, or make the single next tool call.";

/**
 * Loop settings interface: an agent's fixed configuration, as one run reads it.
 */
export interface LoopSettings {
  /** The model. */
  model: Model;
  /** The tool sources, in registration order. */
  toolsets: readonly Toolset[];
  /** The system prompt. */
  instructions: string | undefined;
  /** Decides calls that need approval. */
  approver: Approver;
  /** What the interlock does with a sending call in a tainted turn. */
  interlock: InterlockPolicy;
  /** The most read-only calls running at once. */
  cap: number;
  /** Model turns before the final answer turn. */
  maxTurns: number;
  /** Whether untrusted output is wrapped as data. */
  markUntrustedOutput: boolean;
  /** Answers tool questions. */
  onInteraction: InteractionAnswerer | undefined;
  /** Creates the run's compaction step, or `undefined` when compaction is off. */
  compaction: ((model: Model) => CompactionStep) | undefined;
}

/**
 * Run input interface: what one run starts from.
 */
export interface RunInput {
  /** The user's text or messages, appended to the conversation first. */
  input: string | readonly Message[];
  /** The conversation to continue; updated in place and returned in the result. */
  conversation: Conversation;
  /** The run's signal. */
  signal: AbortSignal;
  /** Where events go. */
  emit: EmitEvent;
  /** Steering text queued by `AgentRun.steer`, drained by the loop. */
  steering: string[];
}

/**
 * Returns the outcome of one run: model turns until the model stops calling tools, a limit, a
 * cancellation or a provider failure. It never rejects, and it always leaves a transcript a
 * provider accepts (every `tool_use` answered, no two user messages in a row).
 *
 * @param settings The agent's configuration.
 * @param run The input, the conversation to continue (updated in place), signal and sinks.
 * @returns The result; `done` is the last event emitted.
 */
export async function runLoop(settings: LoopSettings, run: RunInput): Promise<RunResult> {
  const { conversation, signal, emit, steering } = run;
  const { messages } = conversation;
  const usage = emptyUsage();
  let turns = 0;
  let blockedSends = 0;
  let text = "";
  let failure: unknown;
  let finishReason: FinishReason | undefined;
  const finish = (stop: StopCause): RunResult => {
    if (steering.length > 0) appendUserContent(messages, drain(steering));
    const result: RunResult = { text, stop, turns, usage, conversation, blockedSends };
    if (failure !== undefined) result.error = failure;
    if (finishReason !== undefined) result.finishReason = finishReason;
    emit({ type: "done", result });
    return result;
  };
  const fail = (error: unknown): RunResult => {
    failure = error;
    emit({ type: "error", error, message: error instanceof Error ? error.message : String(error) });
    return finish("error");
  };
  const onUsage = (turnUsage: ModelUsage | undefined) => {
    if (turnUsage) addUsage(usage, turnUsage);
  };

  conversation.rewritten = [];
  appendInput(messages, run.input);
  armImageTaint(conversation);
  const step = settings.compaction?.(settings.model);
  let catalog: ToolCatalog;
  try {
    // Hint: a remote toolset may take long to list its tools; a cancellation must not wait.
    const toolsets = step ? [...settings.toolsets, ...step.toolsets] : settings.toolsets;
    catalog = await raceAbort(listToolCatalog(toolsets), "agent", signal);
  } catch (error) {
    return signal.aborted ? finish("cancelled") : fail(error);
  }
  // Hint: named fields, not a spread of the settings: copying every setting showed up in
  // profiles as the costliest line of a run's setup, and the calls read only these.
  const context: DispatchContext = {
    catalog,
    taint: conversation.taint,
    approver: settings.approver,
    interlock: settings.interlock,
    cap: settings.cap,
    turn: 0,
    signal,
    emit,
    onInteraction: settings.onInteraction,
    markUntrustedOutput: settings.markUntrustedOutput,
  };
  let empty = 0;
  let overflowRetried = false;
  for (;;) {
    if (signal.aborted) return finish("cancelled");
    if (steering.length > 0) appendUserContent(messages, drain(steering));
    if (step && !step.loopDetected) {
      await step.beforeTurn(conversation, { signal, emit, onUsage });
      if (signal.aborted) return finish("cancelled");
    }
    const limit = step?.loopDetected
      ? "loop"
      : turns >= settings.maxTurns
        ? "max_turns"
        : undefined;
    if (limit) {
      const answer = await answerFinally(settings, {
        messages,
        tools: catalog.specs,
        signal,
        emit,
        turns,
        cause: limit,
      });
      onUsage(answer.usage);
      text = answer.text;
      return finish(answer.cancelled ? "cancelled" : limit);
    }
    turns += 1;
    context.turn = turns;
    emit({ type: "turn_start", turn: turns, final: false });
    const request = { messages: messages.slice(), tools: catalog.specs };
    const sent =
      settings.instructions === undefined ? request : { ...request, system: settings.instructions };
    const turn = await streamModelTurn(settings.model, sent, { signal, emit, turn: turns });
    onUsage(turn.usage);
    step?.observe(turn.usage, request.messages);
    if (turn.text !== "") text = turn.text;
    if (turn.end !== "complete") {
      // Hint: keep what the user already saw stream; calls that never ran are dropped whole,
      // so no `tool_use` is left without its result.
      if (turn.text !== "")
        messages.push({ role: "assistant", content: [{ type: "text", text: turn.text }] });
      if (turn.end === "cancelled") return finish("cancelled");
      const overflow = isModelError(turn.error, "context_overflow");
      if (overflow && step && !overflowRetried && turn.text === "") {
        overflowRetried = true;
        turns -= 1;
        await step.recover(conversation, { signal, emit, onUsage });
        continue;
      }
      return fail(turn.error);
    }
    overflowRetried = false;
    finishReason = turn.finish;
    // models: a cut-off, filtered or refused answer ends the run with that cause; it is not
    // re-prompted as if the model had said nothing (docs/design.md, "Models", P2).
    const cause = turn.finish;
    if (
      turn.toolCalls.length === 0 &&
      (cause === "length" || cause === "content_filter" || cause === "refusal")
    ) {
      if (turn.text !== "" || turn.reasoning.length > 0) {
        messages.push(assistantMessage(turn.text, [], turn.reasoning));
      }
      return finish(cause);
    }
    if (turn.text === "" && turn.toolCalls.length === 0) {
      empty += 1;
      if (empty > MAX_EMPTY_TURNS) return finish("no_output");
      appendUserContent(messages, [{ type: "text", text: EMPTY_TURN_NUDGE }]);
      continue;
    }
    empty = 0;
    messages.push(assistantMessage(turn.text, turn.toolCalls, turn.reasoning));
    // Hint: a turn with calls is acted on whatever finish reason the provider reported.
    if (turn.toolCalls.length === 0) {
      if (steering.length > 0) continue;
      return finish("done");
    }
    const outcome = await dispatchCalls(turn.toolCalls, context);
    blockedSends += outcome.blockedSends;
    messages.push({ role: "user", content: outcome.results });
    step?.recordTurn(outcome.executed);
  }
}

function drain(steering: string[]): { type: "text"; text: string }[] {
  return steering.splice(0).map((text) => ({ type: "text", text }));
}
