import type { Taint } from "../compaction/conversation.ts";
import type { ExecutedCall } from "../compaction/loop-guard.ts";
import { resultText } from "../compaction/lossless.ts";
import { isReadOnly, type ToolInfo } from "../declaration/tool-info.ts";
import type { ToolResultBlock } from "../models/message.ts";
import { raceAbort } from "../toolset/cancelled-error.ts";
import type { Toolset } from "../toolset/toolset.ts";
import { type ApprovalDecision, type Approver, refusalText } from "./approval.ts";
import {
  CANCELLED_PREFIX,
  type CallOutcome,
  errorOutcome,
  type ModelToolCall,
} from "./call-outcome.ts";
import { runConcurrently } from "./concurrency.ts";
import { type ExecutionContext, executeCall } from "./execute-call.ts";
import {
  growTaint,
  type InterlockPolicy,
  interlockRefusal,
  isInterlocked,
  turnTaint,
} from "./interlock.ts";
import type { ToolCatalog } from "./tool-specs.ts";

/**
 * Dispatch context interface: what handling one turn's calls needs.
 */
export interface DispatchContext extends ExecutionContext {
  /** The run's tools. */
  catalog: ToolCatalog;
  /** The conversation's taint; grown in place by what ran. */
  taint: Taint;
  /** Decides writing calls. */
  approver: Approver;
  /** What to do with a sending call in a tainted turn. */
  interlock: InterlockPolicy;
  /** The most read-only calls running at once. */
  cap: number;
  /** The turn's number, for events. */
  turn: number;
}

/**
 * Dispatch outcome interface: a turn's results and what the run records about them.
 */
export interface DispatchOutcome {
  /** One result per call, in call order. */
  results: ToolResultBlock[];
  /** The calls that ran to completion (not refused, unknown or cancelled), in call order. */
  executed: ExecutedCall[];
  /** Sending calls the interlock refused. */
  blockedSends: number;
}

interface Approved {
  index: number;
  call: ModelToolCall;
  route: { info: ToolInfo; toolset: Toolset };
}

/**
 * Handles one turn's calls: for each call in call order the availability gate, the interlock
 * and (for calls that are not read-only) the approver, one call at a time; then every approved
 * call runs under the concurrency policy. It never rejects.
 *
 * @param calls The turn's calls, in the order the model made them.
 * @param context Tools, taint, approver, policies, events and the run's signal.
 * @returns The results in call order, the executed calls and the refused sends.
 */
export async function dispatchCalls(
  calls: readonly ModelToolCall[],
  context: DispatchContext,
): Promise<DispatchOutcome> {
  const { catalog, emit } = context;
  // Hint: plain loops rather than `flatMap`, which stood out in profiles of the per-turn path.
  const routes = calls.map((call) => catalog.routes.get(call.name));
  const known: ToolInfo[] = [];
  for (const route of routes) if (route) known.push(route.info);
  const taint = turnTaint(context.taint, known);
  const outcomes = new Array<CallOutcome>(calls.length);
  const approved: Approved[] = [];
  let blockedSends = 0;
  const settle = (index: number, outcome: CallOutcome) => {
    outcomes[index] = outcome;
    const { toolUseId, isError, content } = outcome.block;
    const toolName = (calls[index] as ModelToolCall).name;
    emit({
      type: "tool_result",
      callId: toolUseId,
      toolName,
      outcome: outcome.outcome,
      isError,
      content,
    });
  };

  for (const [index, call] of calls.entries()) {
    emit({
      type: "tool_call",
      turn: context.turn,
      callId: call.id,
      toolName: call.name,
      arguments: call.arguments,
    });
    const route = routes[index];
    if (!route) {
      settle(index, errorOutcome(call, unknownToolText(call.name, catalog), "unknown"));
      continue;
    }
    let forced = false;
    if (isInterlocked(route.info, taint)) {
      if (context.interlock === "block") {
        blockedSends += 1;
        settle(index, errorOutcome(call, interlockRefusal(call.name, catalog.infos), "refused"));
        continue;
      }
      forced = context.interlock === "ask";
    }
    if (isReadOnly(route.info) && !forced) {
      approved.push({ index, call, route });
      continue;
    }
    const decision = await decide(call, route.info, context);
    if (decision === undefined) {
      settle(index, cancelledOutcome(call, "while its approval was pending"));
      continue;
    }
    if (decision.type === "allow") approved.push({ index, call, route });
    else settle(index, errorOutcome(call, refusalText(decision), "refused"));
  }

  const started: ToolInfo[] = [];
  const finished = await runConcurrently(
    approved.map(({ index, call, route }) => ({
      readOnly: isReadOnly(route.info),
      run: async () => {
        const outcome = await executeCall(call, route, context);
        if (outcome.started) started.push(route.info);
        settle(index, outcome);
        return outcome;
      },
    })),
    context.cap,
  );
  // Hint: taint grows from what actually ran, errors included; the turn was already judged by
  // the declared taint of the whole batch.
  for (const info of started) growTaint(context.taint, info);
  const executed: ExecutedCall[] = [];
  for (const [i, { call }] of approved.entries()) {
    const done = finished[i];
    if (done?.outcome !== "executed") continue;
    executed.push({ name: call.name, arguments: call.arguments, result: resultText(done.block) });
  }
  return { results: outcomes.map((outcome) => outcome.block), executed, blockedSends };
}

async function decide(
  call: ModelToolCall,
  info: ToolInfo,
  context: DispatchContext,
): Promise<ApprovalDecision | undefined> {
  const { emit, signal } = context;
  if (signal.aborted) return undefined;
  const request = {
    toolName: call.name,
    callId: call.id,
    arguments: call.arguments,
    info,
    capabilities: info.capabilities,
  };
  emit({
    type: "approval_requested",
    callId: call.id,
    toolName: call.name,
    arguments: call.arguments,
    capabilities: info.capabilities,
  });
  let decision: ApprovalDecision;
  try {
    // Hint: `Promise.resolve` also takes an approver written in plain JS that answers at once.
    const answer = Promise.resolve(context.approver(request, signal));
    decision = checkDecision(await raceAbort(answer, call.name, signal));
  } catch {
    if (signal.aborted) return undefined;
    // Hint: fail closed; an approver that breaks must not let a call through.
    decision = { type: "block", reason: "approver failed" };
  }
  emit({ type: "approval_resolved", callId: call.id, toolName: call.name, decision });
  return decision;
}

function checkDecision(decision: ApprovalDecision): ApprovalDecision {
  // Hint: approvers are user code; anything but a well-formed decision counts as a failure.
  const { type, reason } = (decision ?? {}) as { type?: unknown; reason?: unknown };
  if (type === "allow") return { type: "allow" };
  if ((type === "deny" || type === "block") && typeof reason === "string") return { type, reason };
  throw new TypeError("not an approval decision");
}

function cancelledOutcome(call: ModelToolCall, when: string): CallOutcome {
  return errorOutcome(call, `${CANCELLED_PREFIX} the run was cancelled ${when}.`, "cancelled");
}

function unknownToolText(name: string, catalog: ToolCatalog): string {
  const names = catalog.infos.map((info) => `\`${info.name}\``);
  const available = names.length === 0 ? "none" : names.join(", ");
  return `Unknown tool \`${name}\`. Available tools: ${available}.`;
}
