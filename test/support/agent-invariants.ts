import { BLOCKED_PREFIX, DENIED_PREFIX } from "../../src/agent/gates.ts";
import type { AgentEvent, StopCause, Taint } from "../../src/agent/index.ts";
import { CANCELLED_PREFIX } from "../../src/agent/transcript.ts";
import type { Block, Message } from "../../src/models/message.ts";
import type { RunPlan } from "./adversarial-plan.ts";
import type { Observed } from "./adversarial-run.ts";
import { transcriptProblems } from "./model-transcript.ts";

/** Every stop cause, checked complete by the type checker. */
const STOP_CAUSES = Object.keys({
  done: true,
  paused: true,
  max_turns: true,
  cancelled: true,
  loop: true,
  compaction_stalled: true,
  no_output: true,
  length: true,
  content_filter: true,
  refusal: true,
  error: true,
} satisfies Record<StopCause, true>);

type ToolResultEvent = Extract<AgentEvent, { type: "tool_result" }>;

/**
 * Returns why a transcript is not one a provider accepts, strictly: `transcriptProblems`, plus
 * tool_use ids unique within their message, exactly one result per call in the next message,
 * and a user message first.
 *
 * @param messages The transcript.
 * @returns The problems; empty when none.
 */
export function strictTranscriptProblems(messages: readonly Message[]): string[] {
  const problems = transcriptProblems(messages);
  if (messages.length > 0 && messages[0]?.role !== "user") problems.push("0: not a user message");
  messages.forEach((message, index) => {
    const uses = message.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    if (new Set(uses).size !== uses.length) problems.push(`${index}: duplicate tool_use ids`);
    const next = messages[index + 1];
    for (const id of uses) {
      const answers = next?.content.filter((b) => b.type === "tool_result" && b.toolUseId === id);
      if ((answers?.length ?? 0) > 1) problems.push(`${index}: tool_use ${id} answered twice`);
    }
  });
  return problems;
}

function textOf(content: readonly { type: string; text?: string }[]): string {
  const first = content[0];
  return first?.type === "text" ? (first.text ?? "") : "";
}

function taintAtLeast(after: Taint, before: Taint): boolean {
  return (!before.private || after.private) && (!before.untrusted || after.untrusted);
}

/** Splits the events into model turns: each segment starts at a `turn_start`. */
function segments(events: readonly AgentEvent[]): AgentEvent[][] {
  const parts: AgentEvent[][] = [[]];
  for (const event of events) {
    if (event.type === "turn_start") parts.push([]);
    (parts.at(-1) as AgentEvent[]).push(event);
  }
  return parts;
}

/** A throwing listener is reported once per event it got, and never stops the others (A7). */
function listenerProblems(plan: RunPlan, observed: Observed): string[] {
  const type = plan.throwingListener;
  const expected = type ? observed.emitted.filter((event) => event.type === type) : [];
  const reported = observed.listenerFailures;
  if (reported.length === expected.length && reported.every((e, i) => e === expected[i])) {
    return [];
  }
  return [`${reported.length} listener failures reported for ${expected.length} ${type} events`];
}

function eventProblems(plan: RunPlan, observed: Observed): string[] {
  const problems: string[] = [];
  const { streamed, emitted, result } = observed;
  if (streamed.length !== emitted.length) {
    problems.push(`stream saw ${streamed.length} events, emitter ${emitted.length}`);
  }
  let last = emitted.length - 1;
  while (last >= 0 && emitted[last]?.type !== "done") last -= 1;
  if (last !== emitted.length - 1) {
    const late = emitted.slice(last + 1).map((e) => e.type);
    problems.push(`events after done on the emitter: ${late.join(", ")}`);
  }
  streamed.forEach((event, i) => {
    if (emitted[i] !== event) problems.push(`event ${i} differs: ${event.type}`);
  });
  const dones = streamed.filter((e) => e.type === "done");
  if (dones.length !== 1 || streamed.at(-1)?.type !== "done") problems.push("done not once, last");
  const done = streamed.at(-1);
  if (done?.type === "done" && done.result !== result) problems.push("done.result is not result");
  if (!STOP_CAUSES.includes(result.stop)) problems.push(`bad stop ${String(result.stop)}`);
  if (result.stop === "cancelled" && !observed.aborted) problems.push("cancelled, never aborted");
  if (result.stop === "error") {
    if (result.error === undefined) problems.push("stop error without error");
    if (!streamed.some((e) => e.type === "error")) problems.push("stop error without event");
  }
  if (result.turns > plan.maxTurns) problems.push(`${result.turns} turns > ${plan.maxTurns}`);
  if (observed.steered?.startsWith("wrongly")) problems.push(`steer ${observed.steered}`);
  // Only a model summariser adds usage without a `usage` event.
  const { compaction } = plan;
  const summarizes = compaction === undefined || (compaction && compaction.summarizer === "model");
  const reported = streamed.reduce(
    (sum, e) => sum + (e.type === "usage" ? e.usage.inputTokens : 0),
    0,
  );
  if (!summarizes && reported !== result.usage.inputTokens) {
    problems.push(`usage events add up to ${reported}, result says ${result.usage.inputTokens}`);
  }
  for (const part of segments(streamed)) problems.push(...segmentProblems(part));
  problems.push(...approvalProblems(streamed, observed.intended));
  problems.push(...listenerProblems(plan, observed));
  return problems;
}

function segmentProblems(part: readonly AgentEvent[]): string[] {
  const problems: string[] = [];
  const calls = part.flatMap((e) => (e.type === "tool_call" ? [e] : []));
  const results = part.flatMap((e) => (e.type === "tool_result" ? [e] : []));
  const ids = calls.map((c) => c.callId);
  if (new Set(ids).size !== ids.length) problems.push(`duplicate call ids in a turn: ${ids}`);
  for (const call of calls) {
    const answers = results.filter((r) => r.callId === call.callId);
    if (answers.length !== 1) problems.push(`call ${call.callId}: ${answers.length} results`);
  }
  if (results.length !== calls.length) problems.push("results without calls");
  const resolved = new Map<string, string>();
  const settled = new Set<string>();
  for (const event of part) {
    // A call's result is its last word; nothing about it may follow.
    const callId = "callId" in event ? event.callId : undefined;
    if (callId !== undefined && settled.has(callId)) {
      problems.push(`${event.type} for ${callId} after its tool_result`);
    }
    if (event.type === "tool_result") settled.add(event.callId);
    if (event.type === "approval_resolved") resolved.set(event.callId, event.decision.type);
    if (event.type === "tool_result") problems.push(...resultProblems(event, resolved));
  }
  return problems;
}

function resultProblems(event: ToolResultEvent, resolved: Map<string, string>): string[] {
  const text = textOf(event.content);
  const decision = resolved.get(event.callId);
  const at = `${event.toolName}#${event.callId} (${event.outcome})`;
  switch (event.outcome) {
    case "refused": {
      const prefix = decision === "deny" ? DENIED_PREFIX : BLOCKED_PREFIX;
      return event.isError && text.startsWith(prefix) ? [] : [`${at}: not "${prefix}": ${text}`];
    }
    case "cancelled":
      return event.isError && text.startsWith(CANCELLED_PREFIX) ? [] : [`${at}: ${text}`];
    case "unknown":
      return event.isError && text.startsWith("Unknown tool") ? [] : [`${at}: ${text}`];
    case "executed": {
      // Fail closed: a writing tool runs only after an explicit allow.
      const writes = event.toolName === "write" || event.toolName === "send";
      return writes && decision !== "allow" ? [`${at}: ran without an allow`] : [];
    }
    default:
      return [`${at}: unknown outcome`];
  }
}

/** Each approval request's resolution must match what the approver meant. */
function approvalProblems(
  events: readonly AgentEvent[],
  intended: readonly (string | undefined)[],
): string[] {
  const problems: string[] = [];
  let asked = 0;
  events.forEach((event, i) => {
    if (event.type !== "approval_requested") return;
    const meant = intended[asked++];
    const next = events
      .slice(i + 1)
      .find(
        (e) =>
          (e.type === "approval_resolved" || e.type === "tool_result") && e.callId === event.callId,
      );
    if (next?.type === "approval_resolved" && next.decision.type !== meant) {
      problems.push(`${event.callId}: approver meant ${meant}, got ${next.decision.type}`);
    }
  });
  if (asked !== intended.length) problems.push(`${intended.length} asks, ${asked} events`);
  return problems;
}

function transcriptOf(plan: RunPlan, observed: Observed): string[] {
  const { conversation } = observed.result;
  const { messages } = conversation;
  const problems = strictTranscriptProblems(messages).map((p) => `transcript ${p}`);
  const first: Block = plan.initial?.messages[0]?.content[0] ?? { type: "text", text: plan.task };
  const head = messages[0]?.content[0];
  if (JSON.stringify(head) !== JSON.stringify(first)) {
    problems.push(`message 0 does not start with the task: ${JSON.stringify(head)?.slice(0, 80)}`);
  }
  const start = plan.initial?.taint ?? { private: false, untrusted: false };
  if (!taintAtLeast(conversation.taint, start)) problems.push("taint decreased");
  const ran = (name: string) =>
    observed.streamed.some(
      (e) => e.type === "tool_result" && e.toolName === name && e.outcome === "executed",
    );
  if (ran("look") && !conversation.taint.private) problems.push("look ran, not private");
  if (ran("browse") && !conversation.taint.untrusted) problems.push("browse ran, not untrusted");
  if (ran("fetch") && !(conversation.taint.untrusted && conversation.taint.private)) {
    problems.push("the untrusted foreign fetch ran, the conversation not private and untrusted");
  }
  problems.push(...foreignProblems(observed.streamed, plan.markUntrustedOutput));
  const compacted = observed.streamed.some((e) => e.type === "compacted");
  if (observed.steered === "before-done" && !compacted && plan.steer) {
    const text = plan.steer.text;
    const delivered = messages.some(
      (m) => m.role === "user" && m.content.some((b) => b.type === "text" && b.text === text),
    );
    if (!delivered) problems.push("steering text lost");
  }
  if (plan.interlock === "block" && start.private && start.untrusted) {
    if (ran("send") || ran("ping")) problems.push("a send ran in a tainted conversation");
  }
  return problems;
}

/** An untrusted foreign tool runs only after an approver allowed it, and its output is marked. */
function foreignProblems(events: readonly AgentEvent[], marking: boolean): string[] {
  const problems: string[] = [];
  const allowed = new Set<string>();
  for (const event of events) {
    if (!("toolName" in event) || event.toolName !== "fetch") continue;
    if (event.type === "tool_call") allowed.delete(event.callId);
    if (event.type === "approval_resolved" && event.decision.type === "allow") {
      allowed.add(event.callId);
    }
    if (event.type !== "tool_result" || event.outcome !== "executed") continue;
    if (!allowed.has(event.callId)) problems.push(`fetch ${event.callId} ran without approval`);
    const first = event.content[0];
    const marked = first?.type === "text" && first.text.startsWith("<untrusted-content");
    if (marking && !marked) problems.push(`fetch ${event.callId} output not marked untrusted`);
  }
  return problems;
}

/**
 * Returns every broken promise of one adversarial run: the event stream and the emitter, the
 * stop cause, each call's result and prefix, approvals, the transcript, the taint, and the
 * listeners left on the caller's signal.
 *
 * @param plan The plan that ran.
 * @param observed What it produced.
 * @returns The problems; empty when the run kept every promise.
 */
export function runProblems(plan: RunPlan, observed: Observed): string[] {
  const problems = [...eventProblems(plan, observed), ...transcriptOf(plan, observed)];
  if (observed.leftListeners !== 0) {
    problems.push(`${observed.leftListeners} abort listeners left on the caller's signal`);
  }
  return problems;
}
