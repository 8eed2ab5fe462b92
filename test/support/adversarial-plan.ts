import fc from "fast-check";
import type { AgentEventType, Concurrency, InterlockPolicy, Taint } from "../../src/agent/index.ts";
import type { Message } from "../../src/models/message.ts";
import type { FinishReason, ModelUsage } from "../../src/models/model.ts";
import { FINISH_REASONS } from "../../src/models/model.ts";
import type { ModelErrorData } from "../../src/models/model-error.ts";
import { validTranscript } from "../compaction/fixtures.ts";
import {
  ANSWERER_ACTS,
  type AnswererAct,
  APPROVAL_TOOLS,
  APPROVER_ACTS,
  type ApproverAct,
  KNOWN_TOOLS,
  TOOL_ACTS,
} from "./adversarial-tools.ts";

/** One tool call a planned model turn makes. */
export interface PlannedCall {
  id?: string;
  name: string;
  arguments: unknown;
}

/** One planned model turn. */
export interface PlannedTurn {
  text?: string | undefined;
  toolCalls?: PlannedCall[] | undefined;
  usage?: ModelUsage | undefined;
  finish?: FinishReason | undefined;
  error?: ModelErrorData | undefined;
  /** Stops the stream until the signal aborts. */
  stall?: boolean | undefined;
  /** The script answers after this many milliseconds (a promise). */
  delayMs?: number | undefined;
  /** The script function throws a plain `TypeError` for this turn. */
  scriptThrows?: boolean | undefined;
  /** `model.stream()` itself throws for this turn. */
  streamThrows?: boolean | undefined;
}

/** Compaction settings of a plan (the summariser is built from `summarizer`). */
export interface PlannedCompaction {
  thresholdTokens?: number;
  contextWindow?: number;
  keepRecent?: number;
  compactTool?: boolean;
  summarizer: "extractive" | "model";
}

/** One adversarial run: the agent's options, the model's script, the caller's behaviour. */
export interface RunPlan {
  task: string;
  initial?: { messages: Message[]; taint: Taint } | undefined;
  turns: PlannedTurn[];
  /** What the model answers once the script is spent: a plain answer, or a failure. */
  afterScript: "answer" | "fail";
  approver: ApproverAct[];
  answerer?: AnswererAct[] | undefined;
  concurrency: Concurrency;
  maxTurns: number;
  interlock: InterlockPolicy;
  markUntrustedOutput: boolean;
  instructions?: string;
  compaction?: PlannedCompaction | false;
  contextWindow?: number;
  useSignal: boolean;
  abortAfterEvents?: number | undefined;
  abortAfterMs?: number | undefined;
  steer?: { afterEvents: number; text: string };
  /** A listener on the agent for this event type throws every time (design.md A7). */
  throwingListener?: AgentEventType;
}

const lone = fc
  .integer({ min: 0xd800, max: 0xdfff })
  .map((code) => `a${String.fromCharCode(code)}b`);

/** Text of every kind: empty, ASCII, any Unicode, lone surrogates, huge. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constant("") },
  { weight: 4, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 24 }) },
  { weight: 1, arbitrary: lone },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }).map((n) => "lorem ".repeat(n * 8000)) },
);

/** Undefined most of the time, `arbitrary` once in `1 + rest` draws. */
function rarely<T>(arbitrary: fc.Arbitrary<T>, rest: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: rest, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** One of `acts`, where `hang` (which forces the run to be aborted) is drawn rarely. */
function rareHang<T extends string>(acts: readonly T[]): fc.Arbitrary<T> {
  const others = acts.filter((act) => act !== "hang");
  return fc.oneof(
    { weight: 40, arbitrary: fc.constantFrom(...others) },
    { weight: 1, arbitrary: fc.constant("hang" as T) },
  );
}

const validArguments = fc.record(
  {
    act: rareHang(TOOL_ACTS),
    ms: fc.integer({ min: 0, max: 5 }),
    size: fc.constantFrom(0, 1, 7, 300, 40_000),
  },
  { requiredKeys: ["act"] },
);

const anyArguments: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: validArguments },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, "{not json", [], 0, "", true) },
  { weight: 1, arbitrary: fc.constant({ act: "ok", blob: "z".repeat(50_000) }) },
);

const call: fc.Arbitrary<PlannedCall> = fc.record(
  {
    id: fc.constantFrom("", "a", "dup", "call_1_1", "call_1_2", "call_2_1", "call_2", "c0"),
    name: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...KNOWN_TOOLS) },
      { weight: 2, arbitrary: fc.constantFrom("nope", "", "Look", "💥", "compact") },
    ),
    arguments: anyArguments,
  },
  { requiredKeys: ["name", "arguments"] },
);

const usage: fc.Arbitrary<ModelUsage> = fc.record(
  {
    inputTokens: fc.oneof(fc.nat(2000), fc.nat(300_000)),
    outputTokens: fc.nat(5000),
    cacheReadTokens: fc.nat(1000),
  },
  { requiredKeys: ["inputTokens", "outputTokens"] },
);

const modelError: fc.Arbitrary<ModelErrorData> = fc.oneof(
  fc.constant({ type: "stream", provider: "scripted", message: "connection reset" } as const),
  fc.constant({ type: "http", provider: "scripted", status: 500, message: "upstream" } as const),
  fc.constant({ type: "http", provider: "scripted", message: "fetch failed" } as const),
  fc.record({
    type: fc.constant("rate_limit" as const),
    provider: fc.constant("scripted"),
    status: fc.constant(429),
    retryAfterMs: fc.nat(5000),
    message: fc.constant("slow down"),
  }),
  fc.constant({
    type: "context_overflow",
    provider: "scripted",
    status: 400,
    message: "prompt is too long",
  } as const),
);

// Failures are rare, so most runs get past their first turns.
const plannedTurn: fc.Arbitrary<PlannedTurn> = fc.record({
  text: fc.option(anyText, { nil: undefined }),
  toolCalls: fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 8, arbitrary: fc.array(call, { minLength: 1, maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(call, { minLength: 5, maxLength: 16 }) },
  ),
  usage: fc.option(usage, { nil: undefined }),
  finish: fc.option(fc.constantFrom(...FINISH_REASONS), { nil: undefined }),
  error: rarely(modelError, 12),
  stall: rarely(fc.constant(true), 50),
  delayMs: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  scriptThrows: rarely(fc.constant(true), 60),
  streamThrows: rarely(fc.constant(true), 60),
});

const compaction: fc.Arbitrary<PlannedCompaction | false | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant(false as const),
  fc.record(
    {
      thresholdTokens: fc.integer({ min: 20, max: 20_000 }),
      contextWindow: fc.integer({ min: 100, max: 50_000 }),
      keepRecent: fc.integer({ min: 0, max: 8 }),
      compactTool: fc.boolean(),
      summarizer: fc.constantFrom("extractive" as const, "model" as const),
    },
    { requiredKeys: ["summarizer"] },
  ),
);

const initial = fc.record({
  messages: validTranscript,
  taint: fc.record({ private: fc.boolean(), untrusted: fc.boolean() }),
});

/**
 * Checks whether a plan can leave something waiting forever for an abort: a stalled stream, a
 * hanging tool, approver or answerer.
 *
 * @param plan The plan.
 * @returns Whether it needs an abort to end.
 */
export function canHang(plan: RunPlan): boolean {
  if (plan.turns.some((t) => t.stall)) return true;
  const calls = plan.turns.flatMap((t) => t.toolCalls ?? []);
  const acts = calls.map((c) => (c.arguments as { act?: unknown } | null)?.act);
  if (acts.includes("hang")) return true;
  // A hanging approver or answerer matters only when something reaches it; `compact`
  // (the compaction tool) never asks.
  const asks = calls.some((c) => APPROVAL_TOOLS.includes(c.name));
  if (asks && plan.approver.includes("hang")) return true;
  const questions = acts.includes("ask") || acts.includes("form");
  return questions && plan.answerer?.includes("hang") === true;
}

/**
 * Makes a plan one that must end, in place: the abort settings only with a signal, and a plan
 * that can hang gets a signal that aborts after a few milliseconds (or when it planned to).
 *
 * @param plan The plan.
 * @returns The same plan.
 */
export function endable(plan: RunPlan): RunPlan {
  if (!plan.useSignal) {
    delete plan.abortAfterEvents;
    delete plan.abortAfterMs;
  }
  if (canHang(plan)) {
    plan.useSignal = true;
    plan.abortAfterMs ??= 3;
  }
  return plan;
}

/**
 * Arbitrary adversarial run plans. A plan that can hang always aborts after a few
 * milliseconds, so every run must end.
 */
export const runPlan: fc.Arbitrary<RunPlan> = fc
  .record(
    {
      task: fc.oneof(
        anyText.filter((t) => t !== ""),
        fc.constant("TASK: go"),
      ),
      initial: rarely(initial, 1),
      turns: fc.array(plannedTurn, { maxLength: 8 }),
      afterScript: fc.constantFrom("answer" as const, "fail" as const),
      approver: fc.array(rareHang(APPROVER_ACTS), { maxLength: 4 }),
      answerer: fc.option(fc.array(rareHang(ANSWERER_ACTS), { maxLength: 4 }), {
        nil: undefined,
        freq: 3,
      }),
      concurrency: fc.oneof(
        fc.constantFrom("sequential" as const, "read-only-parallel" as const),
        fc.integer({ min: 1, max: 4 }),
      ),
      maxTurns: fc.oneof(
        { weight: 1, arbitrary: fc.constant(0) },
        { weight: 8, arbitrary: fc.integer({ min: 1, max: 8 }) },
      ),
      interlock: fc.constantFrom("block" as const, "ask" as const, "allow" as const),
      markUntrustedOutput: fc.boolean(),
      instructions: anyText,
      compaction,
      contextWindow: fc.integer({ min: 100, max: 50_000 }),
      useSignal: fc.boolean(),
      abortAfterEvents: rarely(fc.integer({ min: 0, max: 60 }), 1),
      abortAfterMs: rarely(fc.integer({ min: 0, max: 12 }), 2),
      steer: fc.record({ afterEvents: fc.nat(30), text: anyText }),
      throwingListener: fc.constantFrom<AgentEventType>(
        "turn_start",
        "text_delta",
        "tool_call",
        "approval_requested",
        "tool_result",
        "done",
      ),
    },
    {
      requiredKeys: [
        "task",
        "initial",
        "turns",
        "afterScript",
        "approver",
        "answerer",
        "concurrency",
        "maxTurns",
        "interlock",
        "markUntrustedOutput",
        "useSignal",
        "abortAfterEvents",
        "abortAfterMs",
      ],
    },
  )
  .map((generated) => {
    // A copy, since fast-check shrinks from the value it generated.
    const { compaction, ...rest } = generated;
    const plan: RunPlan = rest;
    if (compaction !== undefined) plan.compaction = compaction;
    return endable(plan);
  });
