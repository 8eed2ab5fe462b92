import { vi } from "vitest";
import {
  Agent,
  type AgentEvent,
  type AgentEventType,
  type AgentOptions,
  type AgentRun,
  type ApprovalDecision,
  type CompactionSettings,
  extractiveSummarizer,
  type RunResult,
} from "../../src/agent/index.ts";
import { isToolError } from "../../src/index.ts";
import type { Model, ModelRequest } from "../../src/models/model.ts";
import { ModelError } from "../../src/models/model-error.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/scripted-model.ts";
import type { PlannedCompaction, RunPlan } from "./adversarial-plan.ts";
import {
  adversarialAnswerer,
  adversarialApprover,
  adversarialTools,
  adversarialToolsets,
  sleep,
} from "./adversarial-tools.ts";
import { type CountingSignal, createCountingSignal } from "./counting-signal.ts";

/** Every agent event type, checked complete by the type checker. */
const EVENT_TYPES = Object.keys({
  turn_start: true,
  text_delta: true,
  reasoning_delta: true,
  model_retry: true,
  usage: true,
  tool_call: true,
  approval_requested: true,
  approval_resolved: true,
  interaction_requested: true,
  interaction_resolved: true,
  tool_progress: true,
  tool_input_delta: true,
  tool_result: true,
  compacted: true,
  error: true,
  done: true,
} satisfies Record<AgentEventType, true>) as AgentEventType[];

/** How long one run may take before the property fails it as hung. */
export const RUN_TIMEOUT_MS = 5000;

/** How long to wait after a run for uncooperative code (late answers, late progress). */
export const SETTLE_MS = 15;

/** What one adversarial run produced. */
export interface Observed {
  /** The run's result, as `run.result` resolved it. */
  result: RunResult;
  /** The events read from `run.events`. */
  streamed: AgentEvent[];
  /** The events the agent's emitter delivered, including any after `done`. */
  emitted: AgentEvent[];
  /** The caller's signal, when the plan used one. */
  signal: CountingSignal | undefined;
  /** What the approver meant, per approval request in call order (none for a hang). */
  intended: (ApprovalDecision["type"] | undefined)[];
  /** Whether the caller's signal had aborted when the result came. */
  aborted: boolean;
  /**
   * When the planned steering text was offered: queued before `done` was emitted, or refused
   * with `unsupported` from `done` on; `wrongly-*` when the run did otherwise.
   */
  steered: "before-done" | "after-done" | "wrongly-refused" | "wrongly-accepted" | undefined;
  /** The `abort` listeners still on the caller's signal once late work settled. */
  leftListeners: number;
  /** What `onError` received: the planned throwing listener's failures, with their events. */
  listenerFailures: AgentEvent[];
}

/**
 * Creates the plan's model: a scripted model answering the planned turns, then a plain answer
 * (or a failure); a turn may also make `stream()` itself throw.
 *
 * @param plan The plan.
 * @returns The model.
 */
export function planModel(plan: RunPlan): Model {
  let taken = 0;
  let current = 0;
  const script = (_request: ModelRequest): ScriptedTurn | Promise<ScriptedTurn> => {
    const planned = plan.turns[current];
    if (!planned) {
      if (plan.afterScript === "answer") return { text: "Final answer." };
      const message = "the script is spent";
      throw new ModelError({ type: "invalid_response", provider: "scripted", message });
    }
    if (planned.scriptThrows) throw new TypeError("script bug");
    const turn: ScriptedTurn = {};
    if (planned.text !== undefined) turn.text = planned.text;
    if (planned.toolCalls !== undefined) turn.toolCalls = planned.toolCalls;
    if (planned.usage !== undefined) turn.usage = planned.usage;
    if (planned.finish !== undefined) turn.finish = planned.finish;
    if (planned.error !== undefined) turn.error = planned.error;
    if (planned.stall !== undefined) turn.stall = planned.stall;
    return planned.delayMs === undefined ? turn : sleep(planned.delayMs).then(() => turn);
  };
  const inner = scriptedModel(script);
  const model: Model = {
    id: "adversarial",
    stream(request, options) {
      current = taken++;
      if (plan.turns[current]?.streamThrows) throw new Error("stream() threw");
      return inner.stream(request, options);
    },
  };
  if (plan.contextWindow !== undefined) model.contextWindow = plan.contextWindow;
  return model;
}

function compactionOf(planned: PlannedCompaction): CompactionSettings {
  const { summarizer, ...rest } = planned;
  return summarizer === "extractive" ? { ...rest, summarizer: extractiveSummarizer() } : rest;
}

/**
 * Creates the agent a plan describes.
 *
 * @param plan The plan.
 * @param intended Receives what the approver meant, per request.
 * @returns The agent.
 */
export function planAgent(
  plan: RunPlan,
  intended: (ApprovalDecision["type"] | undefined)[],
  listenerFailures: AgentEvent[] = [],
): Agent {
  const decisions = new Map<string, ApprovalDecision["type"]>();
  const approver = adversarialApprover(plan.approver, decisions);
  const options: AgentOptions = {
    model: planModel(plan),
    tools: adversarialTools(),
    toolsets: adversarialToolsets(),
    // Recorded per request in call order, since call ids repeat across turns.
    approver: (request, signal) => {
      decisions.delete(request.callId);
      const index = intended.length;
      intended.push(undefined);
      try {
        return approver(request, signal);
      } finally {
        intended[index] = decisions.get(request.callId);
      }
    },
    concurrency: plan.concurrency,
    maxTurns: plan.maxTurns,
    interlock: plan.interlock,
    markUntrustedOutput: plan.markUntrustedOutput,
    onError: (_error, event) => listenerFailures.push(event),
  };
  if (plan.answerer) options.onInteraction = adversarialAnswerer(plan.answerer);
  if (plan.instructions !== undefined) options.instructions = plan.instructions;
  if (plan.compaction !== undefined) {
    options.compaction = plan.compaction === false ? false : compactionOf(plan.compaction);
  }
  return new Agent(options);
}

/**
 * Runs `work` on virtual time: every `setTimeout` / `setInterval` / `setImmediate` / `Date` of
 * the run (tool and model delays, the planned abort, the settle pause, the hang bound of
 * `within`) is faked, and the clock only moves to the next due timer once nothing else can
 * happen. A run's events then depend on the plan alone, never on how busy the machine is, so a
 * failing seed replays exactly (docs/design.md, "The agent loop": replaying a seed).
 */
export async function onVirtualTime<T>(work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({
    toFake: [
      "setTimeout",
      "clearTimeout",
      "setInterval",
      "clearInterval",
      "setImmediate",
      "clearImmediate",
      "Date",
    ],
  });
  try {
    let settled = false;
    const done = work().finally(() => {
      settled = true;
    });
    // Observed at once, though awaited only after the clock loop: otherwise a run that fails
    // (a hung run's `within` bound firing, say) is first an unhandled rejection, which the
    // property blames on whichever later plan is running when Node reports it, so fast-check
    // shrinks towards an innocent plan.
    done.catch(() => {});
    // Each step first lets every pending promise and stream callback run; a run that waits on
    // nothing but a timer then gets its next one. A hung run still ends: `within`'s bound is a
    // timer too.
    while (!settled) await vi.advanceTimersToNextTimerAsync();
    return await done;
  } finally {
    vi.useRealTimers();
  }
}

/**
 * Returns `promise`'s value, or throws when it takes longer than `ms` (on virtual time under
 * `onVirtualTime`).
 *
 * @param promise The work.
 * @param ms The bound.
 * @param what What is waited for, for the error.
 * @returns The value.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function readAll(stream: ReadableStream<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    events.push(read.value);
  }
  return events;
}

/**
 * When a run's stream (taken at once) is first read: at once, once the result came, or only
 * after late work settled (events until then wait in the stream's queue).
 */
export const READ_MODES = ["now", "after-result", "after-settle"] as const;

/** When `executePlan` starts reading `run.events`. */
export type ReadMode = (typeof READ_MODES)[number];

/**
 * Runs a plan: starts the run, aborts and steers it as planned, reads its stream (see
 * `ReadMode`), waits for its result (bounded), then lets late work settle.
 *
 * @param plan The plan.
 * @param read When the stream is read.
 * @returns What the run produced.
 * @throws Error when the run or its stream does not settle in time.
 */
export async function executePlan(plan: RunPlan, read: ReadMode): Promise<Observed> {
  const intended: (ApprovalDecision["type"] | undefined)[] = [];
  const listenerFailures: AgentEvent[] = [];
  const agent = planAgent(plan, intended, listenerFailures);
  // Registered first, so the recording listeners after it show the others still get the event.
  if (plan.throwingListener) {
    agent.on(plan.throwingListener, () => {
      throw new Error("listener bug");
    });
  }
  const signal = plan.useSignal ? createCountingSignal() : undefined;
  const emitted: AgentEvent[] = [];
  let run: AgentRun | undefined;
  let steered: Observed["steered"];
  const onEvent = (event: AgentEvent) => {
    emitted.push(event);
    if (signal && plan.abortAfterEvents === emitted.length) signal.controller.abort();
    if (run && plan.steer?.afterEvents === emitted.length && plan.steer.text !== "") {
      const ended = event.type === "done";
      try {
        run.steer(plan.steer.text);
        steered = ended ? "wrongly-accepted" : "before-done";
      } catch (error) {
        steered = ended && isToolError(error, "unsupported") ? "after-done" : "wrongly-refused";
      }
    }
  };
  for (const type of EVENT_TYPES) agent.on(type, onEvent);
  const timer =
    signal && plan.abortAfterMs !== undefined
      ? setTimeout(() => signal.controller.abort(new Error("user stop")), plan.abortAfterMs)
      : undefined;
  const options: Parameters<Agent["run"]>[1] = {};
  if (signal) options.signal = signal.signal;
  // A copy, so the plan (which fast-check may shrink from) is never edited.
  if (plan.initial) options.conversation = structuredClone({ ...plan.initial, rewritten: [] });
  run = agent.run(plan.task, options);
  // Taken at once, read later as the mode says: with listeners on the agent (as here) a stream
  // taken only after the run would hold nothing (design.md A8).
  const events = run.events;
  const stream = () => within(readAll(events), RUN_TIMEOUT_MS, "run.events");
  const reading = read === "now" ? stream() : undefined;
  try {
    const result = await within(run.result, RUN_TIMEOUT_MS, "run.result");
    const aborted = signal?.signal.aborted ?? false;
    const early = read === "after-result" ? await stream() : await reading;
    await sleep(SETTLE_MS);
    const streamed = early ?? (await stream());
    const leftListeners = signal?.active() ?? 0;
    return {
      result,
      streamed,
      emitted,
      signal,
      intended,
      aborted,
      steered,
      leftListeners,
      listenerFailures,
    };
  } finally {
    clearTimeout(timer);
    // Counted above; aborting now only frees whatever a failed run left waiting.
    signal?.controller.abort();
  }
}
