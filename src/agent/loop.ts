// The turn loop (docs/design.md, "The agent loop"): list the tools once, then model turn,
// calls, results message, until the model answers without calling tools, a limit, a
// cancellation or a failure. Every way out leaves a transcript a provider accepts (A1).

import { raceSignal } from "../abort.ts";
import type { Conversation } from "../compaction/conversation.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { byName } from "../declaration/tool-name.ts";
import { errorText, ToolError, unreachable } from "../errors.ts";
import type { Message, ReasoningBlock, ServerToolBlock } from "../models/message.ts";
import type { FinishReason, Model, ModelRequest, ModelTool, ModelUsage } from "../models/model.ts";
import { isModelError, ModelError } from "../models/model-error.ts";
import type { Observation, Observer } from "../observer.ts";
import type { Toolset } from "../toolset/toolset.ts";
import { type CallContext, handleCalls, type InteractionAnswerer, type Route } from "./calls.ts";
import type { CompactionStep } from "./compaction-step.ts";
import type { EmitEvent } from "./events.ts";
import { type Approver, armImageTaint, type InterlockPolicy, judgedInfo } from "./gates.ts";
import { addUsage } from "./run.ts";
import type { RunResult, StopCause } from "./run-result.ts";
// Types only: the agent loads snapshot.ts on first use, for an agent with `snapshots`.
import type { RunDurability, SnapshotCall } from "./snapshot.ts";
import {
  appendAssistant,
  appendInput,
  appendUserContent,
  assistantMessage,
  type ModelToolCall,
} from "./transcript.ts";

/** How many empty turns in a row are retried with a nudge before the run gives up. */
export const MAX_EMPTY_TURNS = 3;

/** The nudge folded into the last user message after an empty turn. */
export const EMPTY_TURN_NUDGE =
  "Your last reply was empty. Give your answer now, or make the single next tool call.";

/** The nudge folded into the last user message before the final, tool-less answer turn. */
export const FINAL_ANSWER_NUDGE =
  "Your tool budget for this run is spent. Answer now without calling tools, and say plainly what you could not find or finish.";

/** An agent's fixed configuration, as one run reads it. */
export interface LoopSettings {
  model: Model;
  /** The tool sources, in registration order. */
  toolsets: readonly Toolset[];
  /** The system prompt. */
  instructions: string | undefined;
  approver: Approver;
  interlock: InterlockPolicy;
  /** The most read-only calls running at once. */
  cap: number;
  /** Model turns before the final answer turn. */
  maxTurns: number;
  markUntrustedOutput: boolean;
  onInteraction: InteractionAnswerer | undefined;
  /** How long a model turn may send nothing before it fails. */
  modelIdleTimeoutMs: number;
  /** Creates the run's compaction step, or `undefined` when compaction is off. */
  compaction: ((model: Model) => CompactionStep) | undefined;
  /** Told of the run, its model turns and its calls (`toolwire/otel`); none costs nothing. */
  observer: Observer | undefined;
}

/** What one run starts from. */
export interface RunInput {
  /** The user's text or messages, appended to the conversation first. */
  input: string | readonly Message[];
  /** The conversation to continue; updated in place and returned in the result. */
  conversation: Conversation;
  signal: AbortSignal;
  emit: EmitEvent;
  /** Steering text queued by `AgentRun.steer`, drained by the loop. */
  steering: string[];
  /** The run's snapshots, when the agent keeps them (snapshot.ts). */
  durability?: RunDurability | undefined;
}

/**
 * Runs one run to its end and returns its result, `done` being the last event emitted. It never
 * rejects.
 */
export async function runLoop(settings: LoopSettings, run: RunInput): Promise<RunResult> {
  const { conversation, signal, emit, steering } = run;
  const { messages } = conversation;
  const usage: ModelUsage = { inputTokens: 0, outputTokens: 0 };
  let turns = 0;
  let blockedSends = 0;
  let text = "";
  let failure: unknown;
  let finishReason: FinishReason | undefined;
  const { observer } = settings;
  const observed = observer?.start({
    type: "agent_run",
    model: settings.model.id,
    provider: settings.model.provider,
    input: run.input,
  });
  const finish = (stop: StopCause): RunResult => {
    if (steering.length > 0) appendUserContent(messages, drain(steering));
    const result: RunResult = { text, stop, turns, usage, conversation, blockedSends };
    if (failure !== undefined) result.error = failure;
    if (finishReason !== undefined) result.finishReason = finishReason;
    observed?.end({ type: "done", result });
    emit({ type: "done", result });
    return result;
  };
  const fail = (error: unknown): RunResult => {
    failure = error;
    emit({ type: "error", error, message: errorText(error) });
    return finish("error");
  };
  const onUsage = (turnUsage: ModelUsage | undefined) => {
    if (turnUsage) addUsage(usage, turnUsage);
  };

  conversation.rewritten = [];
  // A resumed turn's calls are open on purpose: they are settled below, not closed as never run.
  if (!run.durability?.resume) appendInput(messages, run.input);
  armImageTaint(conversation);
  const step = settings.compaction?.(settings.model);
  let catalog: ToolCatalog;
  try {
    // A remote toolset may take long to list its tools; a cancellation must not wait.
    const toolsets = step ? [...settings.toolsets, ...step.toolsets] : settings.toolsets;
    catalog = await raceSignal(listToolCatalog(toolsets), signal);
  } catch (error) {
    return signal.aborted ? finish("cancelled") : fail(error);
  }
  // Named fields, not a spread of the settings: copying every setting showed up in profiles as
  // the costliest line of a run's setup, and the calls read only these.
  const context: CallContext = {
    routes: catalog.routes,
    infos: catalog.infos,
    taint: conversation.taint,
    approver: settings.approver,
    interlock: settings.interlock,
    cap: settings.cap,
    turn: 0,
    signal,
    emit,
    onInteraction: settings.onInteraction,
    markUntrustedOutput: settings.markUntrustedOutput,
    observer,
    observed,
  };
  const { durability } = run;
  const position = () => ({ conversation, turns, blockedSends });
  const problem = await durability?.prepare(catalog.infos);
  if (problem) return fail(problem);
  const resumed = durability?.resume;
  if (durability && resumed) {
    // A paused turn: its recorded calls settle as recorded, the rest pass their gates (with
    // the app's decisions) and run, and the loop goes on from its results.
    turns = resumed.body.turns;
    blockedSends = resumed.body.blockedSends;
    context.turn = turns;
    context.decisions = resumed.decisions;
    context.durable = durability.beginResumed(position);
    const outcome = await handleCalls(resumed.body.calls.map(toolCallOf), context);
    durability.end();
    context.durable = context.decisions = undefined;
    blockedSends += outcome.blockedSends;
    messages.push({ role: "user", content: outcome.results });
    step?.recordTurn(outcome.executed);
  }
  let empty = 0;
  let overflowRetried = false;
  for (;;) {
    if (signal.aborted) return finish("cancelled");
    if (steering.length > 0) appendUserContent(messages, drain(steering));
    if (step && !step.loopDetected && !step.stalled) {
      await step.beforeTurn(conversation, { signal, emit, onUsage });
      if (signal.aborted) return finish("cancelled");
    }
    const limit = step?.loopDetected
      ? "loop"
      : step?.stalled
        ? "compaction_stalled"
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
        observed,
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
    const turn = await streamModelTurn(settings.model, sent, {
      signal,
      emit,
      turn: turns,
      idleTimeoutMs: settings.modelIdleTimeoutMs,
      observer,
      observed,
    });
    onUsage(turn.usage);
    step?.observe(turn.usage, request.messages);
    if (turn.text !== "") text = turn.text;
    if (turn.end !== "complete") {
      // Keep what the user already saw stream; calls that never ran are dropped whole, so no
      // `tool_use` is left without its result (A1).
      if (turn.text !== "")
        appendAssistant(messages, {
          role: "assistant",
          content: [{ type: "text", text: turn.text }],
        });
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
    // A cut-off, filtered or refused answer ends the run with that cause; it is not re-prompted
    // as if the model had said nothing (docs/design.md, "Models", P2).
    const cause = turn.finish;
    if (
      turn.toolCalls.length === 0 &&
      (cause === "length" || cause === "content_filter" || cause === "refusal")
    ) {
      if (turn.text !== "" || turn.before.length > 0) {
        appendAssistant(messages, assistantMessage(turn.text, [], turn.before));
      }
      return finish(cause);
    }
    if (
      turn.text === "" &&
      turn.toolCalls.length === 0 &&
      !turn.before.some((b) => b.type === "server_tool")
    ) {
      empty += 1;
      if (empty > MAX_EMPTY_TURNS) return finish("no_output");
      appendUserContent(messages, [{ type: "text", text: EMPTY_TURN_NUDGE }]);
      continue;
    }
    empty = 0;
    appendAssistant(messages, assistantMessage(turn.text, turn.toolCalls, turn.before));
    // A turn with calls is acted on whatever finish reason the provider reported. A paused one
    // (Anthropic's server tools ran long) goes back as it is, and the model carries on.
    if (turn.toolCalls.length === 0) {
      if (steering.length > 0 || turn.finish === "pause") continue;
      return finish("done");
    }
    if (durability) context.durable = durability.begin(turn.toolCalls, position);
    const outcome = await handleCalls(turn.toolCalls, context);
    durability?.end();
    context.durable = undefined;
    blockedSends += outcome.blockedSends;
    messages.push({ role: "user", content: outcome.results });
    step?.recordTurn(outcome.executed);
  }
}

function toolCallOf(call: SnapshotCall): ModelToolCall {
  const plain: ModelToolCall = { id: call.id, name: call.name, arguments: call.arguments };
  if (call.signature !== undefined) plain.signature = call.signature;
  if (call.providerMetadata !== undefined) plain.providerMetadata = call.providerMetadata;
  return plain;
}

function drain(steering: string[]): { type: "text"; text: string }[] {
  return steering.splice(0).map((text) => ({ type: "text", text }));
}

/** Every tool a run may call, listed once at the start of the run. */
export interface ToolCatalog {
  /** What the model is told, in name order. */
  specs: ModelTool[];
  /** Every declaration as the gates judge it, in name order. */
  infos: ToolInfo[];
  routes: Map<string, Route>;
}

/**
 * Lists the toolsets into the run's catalog. Specs are sorted by name once per run, so the
 * request prefix stays byte-identical from turn to turn and provider prompt caches keep
 * hitting. Two toolsets declaring the same name fail the run with `duplicate_name` (A6).
 */
export async function listToolCatalog(toolsets: readonly Toolset[]): Promise<ToolCatalog> {
  const listed = await Promise.all(toolsets.map((toolset) => toolset.listTools()));
  const routes = new Map<string, Route>();
  const duplicates = new Set<string>();
  listed.forEach((infos, index) => {
    const toolset = toolsets[index] as Toolset;
    for (const info of infos) {
      if (routes.has(info.name)) duplicates.add(info.name);
      routes.set(info.name, { info: judgedInfo(info), toolset });
    }
  });
  if (duplicates.size > 0) throw duplicateNames([...duplicates].sort());
  const infos = [...routes.values()].map((route) => route.info).sort(byName);
  return { specs: infos.map(toModelTool), infos, routes };
}

function duplicateNames(names: readonly string[]): ToolError {
  const list = names.map((name) => `\`${name}\``).join(", ");
  const error = new ToolError({ type: "duplicate_name", name: names.join(", ") });
  // The kind's own message names one tool; this one names them all and the usual fix.
  error.message = `${list} are declared by more than one toolset; give the toolsets namespaces (Toolset.merge(toolsets, { namespaces }), connectMcp({ namespace }))`;
  return error;
}

function toModelTool(info: ToolInfo): ModelTool {
  const { schema } = info.inputSchema;
  // `true` (anything goes) is not an object providers accept; an open object means the same.
  const inputSchema = typeof schema === "boolean" ? { type: "object" } : schema;
  const spec: ModelTool = { name: info.name, inputSchema };
  if (info.description !== undefined) spec.description = info.description;
  return spec;
}

/** What one model call produced, however it ended. */
interface ModelTurn {
  /** `complete`, `cancelled` (the run's signal aborted) or `failed` (see `error`). */
  end: "complete" | "cancelled" | "failed";
  /** The text streamed, complete or partial. */
  text: string;
  /** The tool calls, in the order the model made them. */
  toolCalls: ModelToolCall[];
  usage?: ModelUsage;
  finish?: FinishReason;
  /** Complete reasoning blocks, then the blocks of tools the provider ran itself (server tools),
   * kept in the assistant message before its text. */
  before: (ReasoningBlock | ServerToolBlock)[];
  /** The failure, for `failed`. */
  error?: unknown;
}

/**
 * Reads one model call's stream to its end. It never rejects: a failure or an abort is reported
 * in `end`, with the text streamed so far. When the model reported usage, a `usage` event is
 * emitted once the stream ends, however it ended, so the events add up to what the run counts.
 * On abort the reader is cancelled as well as the signal passed on, so a model that ignores its
 * signal still stops (cancelling the stream aborts its `fetch`).
 */
export async function streamModelTurn(
  model: Model,
  request: ModelRequest,
  options: {
    signal: AbortSignal;
    emit: EmitEvent;
    turn: number;
    idleTimeoutMs?: number;
    /** Told of the turn, inside the run's `observed` operation. */
    observer?: Observer | undefined;
    observed?: Observation | undefined;
  },
): Promise<ModelTurn> {
  const { signal, emit, turn, idleTimeoutMs = Number.POSITIVE_INFINITY } = options;
  const result: ModelTurn = { end: "complete", text: "", toolCalls: [], before: [] };
  if (signal.aborted) {
    result.end = "cancelled";
    return result;
  }
  const observed = options.observer?.start(
    {
      type: "model_turn",
      model: model.id,
      provider: model.provider,
      turn,
      messages: request.messages,
      system: request.system,
    },
    options.observed,
  );
  let reader: ReadableStreamDefaultReader | undefined;
  // Model id → the run's id of each call whose arguments are streaming and not complete yet.
  let streaming: Map<string, string> | undefined;
  const onAbort = () => {
    reader?.cancel(signal.reason).catch(() => {});
  };
  signal.addEventListener("abort", onAbort, { once: true });
  // A turn that sends nothing for `idleTimeoutMs` is cancelled like an abort (cancelling the
  // stream aborts its fetch) and fails with the timeout, so a silent endpoint cannot hang a run.
  let idle: ReturnType<typeof setTimeout> | undefined;
  let timedOut: ModelError | undefined;
  const arm = () => {
    if (!Number.isFinite(idleTimeoutMs)) return;
    clearTimeout(idle);
    idle = setTimeout(() => {
      timedOut = new ModelError({
        type: "stream",
        provider: model.id,
        code: "idle_timeout",
        message: `the model sent nothing for ${idleTimeoutMs} ms (Agent option modelIdleTimeoutMs)`,
      });
      reader?.cancel(timedOut).catch(() => {});
    }, idleTimeoutMs);
  };
  try {
    arm();
    const stream = model.stream(request, { signal });
    const events = stream.getReader();
    reader = events;
    if (signal.aborted) onAbort();
    for (let read = await events.read(); !read.done; read = await events.read()) {
      if (timedOut) break;
      arm();
      const event = read.value;
      switch (event.type) {
        case "text_delta":
          if (event.text === "") break;
          result.text += event.text;
          emit({ type: "text_delta", turn, text: event.text });
          break;
        case "tool_input_delta": {
          if (event.text === "") break;
          // The call's id is settled at its first piece, so its pieces and its `tool_call` name
          // the same call; the map exists only in turns whose model streams arguments.
          streaming ??= new Map();
          let id = streaming.get(event.id);
          if (id === undefined) {
            id = callId(event.id, result.toolCalls, streaming, turn);
            streaming.set(event.id, id);
          }
          emit({
            type: "tool_input_delta",
            turn,
            callId: id,
            toolName: event.name,
            text: event.text,
          });
          break;
        }
        case "tool_call": {
          const streamed = streaming?.get(event.id);
          if (streamed !== undefined) streaming?.delete(event.id);
          const id = streamed ?? callId(event.id, result.toolCalls, streaming, turn);
          const call: ModelToolCall = { id, name: event.name, arguments: event.arguments };
          if (event.signature !== undefined) call.signature = event.signature;
          if (event.providerMetadata) call.providerMetadata = event.providerMetadata;
          result.toolCalls.push(call);
          break;
        }
        // Reasoning streams apart from text and is kept whole for the transcript; a retry
        // before any output is reported as it happens (docs/design.md, "Models", P3, P8).
        case "reasoning_delta":
          if (event.text !== "") emit({ type: "reasoning_delta", turn, text: event.text });
          break;
        // A tool the provider ran (Anthropic's web search, …) is kept as it came, never run
        // here (docs/design.md, "Models", P4).
        case "reasoning":
        case "server_tool":
          result.before.push(event.block);
          break;
        case "retry":
          emit({
            type: "model_retry",
            turn,
            attempt: event.attempt,
            delayMs: event.delayMs,
            error: event.error,
            message: errorText(event.error),
          });
          break;
        case "usage": {
          const { type: _, ...usage } = event;
          result.usage = usage;
          break;
        }
        case "finish":
          result.finish = event.reason;
          break;
        default:
          return unreachable(event);
      }
    }
  } catch (error) {
    if (!signal.aborted) {
      result.end = "failed";
      result.error = timedOut ?? error;
    }
  } finally {
    clearTimeout(idle);
    signal.removeEventListener("abort", onAbort);
  }
  if (timedOut && !signal.aborted) {
    result.end = "failed";
    result.error = timedOut;
  }
  if (signal.aborted && result.end === "complete") result.end = "cancelled";
  observed?.end({ type: "done", result });
  // A copy, so a listener that edits the event cannot change the run's totals.
  if (result.usage) emit({ type: "usage", turn, usage: { ...result.usage } });
  return result;
}

/**
 * Returns the run's id for a call the model named `id`: every `tool_use` needs an id its
 * result can echo, and one no other call of the turn has (completed or still streaming); some
 * local servers send none, or the same one for every call. A made-up id is checked too: the
 * model may itself have sent `call_1_2` already.
 */
function callId(
  id: string,
  calls: readonly ModelToolCall[],
  streaming: ReadonlyMap<string, string> | undefined,
  turn: number,
): string {
  const taken = (candidate: string) =>
    calls.some((call) => call.id === candidate) ||
    (streaming !== undefined && [...streaming.values()].includes(candidate));
  let out = id;
  for (let n = calls.length + (streaming?.size ?? 0) + 1; !out || taken(out); n++) {
    out = `call_${turn}_${n}`;
  }
  return out;
}

/**
 * Makes one extra model call in which calling tools is forbidden, when a run hits a limit, so
 * the caller never gets an empty answer. The call is not counted as a turn; its failure is
 * swallowed (a fixed explanation stands in), and any call the model makes anyway is dropped, so
 * no `tool_use` is left without a result. The tools are still declared, with `toolChoice:
 * "none"`: the Anthropic API rejects a transcript holding `tool_use` / `tool_result` blocks when
 * the request defines no tools.
 */
export async function answerFinally(
  settings: { model: Model; instructions: string | undefined; observer?: Observer | undefined },
  state: {
    messages: Message[];
    tools: ModelTool[];
    signal: AbortSignal;
    emit: EmitEvent;
    turns: number;
    cause: "max_turns" | "loop" | "compaction_stalled";
    observed?: Observation | undefined;
  },
): Promise<{ text: string; usage?: ModelUsage; cancelled: boolean }> {
  const { messages, signal, emit, turns } = state;
  appendUserContent(messages, [{ type: "text", text: FINAL_ANSWER_NUDGE }]);
  emit({ type: "turn_start", turn: turns + 1, final: true });
  const request: ModelRequest = { messages: messages.slice(), tools: state.tools };
  if (request.tools.length > 0) request.toolChoice = "none";
  if (settings.instructions !== undefined) request.system = settings.instructions;
  const turn = await streamModelTurn(settings.model, request, {
    signal,
    emit,
    turn: turns + 1,
    observer: settings.observer,
    observed: state.observed,
  });
  const cancelled = turn.end === "cancelled";
  const text = turn.end === "failed" ? "" : turn.text;
  if (text !== "") messages.push({ role: "assistant", content: [{ type: "text", text }] });
  const why =
    state.cause === "loop"
      ? "was stopped in a loop"
      : state.cause === "compaction_stalled"
        ? "could not compact its transcript under the threshold"
        : "reached its turn limit";
  const answer: { text: string; usage?: ModelUsage; cancelled: boolean } = {
    text: text || `No answer was produced: the run ${why} after ${turns} turns.`,
    cancelled,
  };
  if (turn.usage) answer.usage = turn.usage;
  return answer;
}
