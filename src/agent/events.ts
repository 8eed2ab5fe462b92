import type { CompactedEvent, CompactionReason } from "../compaction/conversation.ts";
import type { Capabilities } from "../declaration/capabilities.ts";
import type { ToolProgress } from "../execution/handler-io.ts";
import type { ToolContent } from "../execution/tool-content.ts";
import type { ToolInteractionRequest } from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import type { ModelUsage } from "../models/model.ts";
import type { ApprovalDecision } from "./gates.ts";
import type { RunResult } from "./run.ts";

/**
 * How a tool call ended: `executed` (it ran; `isError` tells whether it failed), `refused`
 * (an approver or the interlock said no), `unknown` (no such tool), `cancelled` (the run was
 * cancelled before or while it ran), `interrupted` (a resumed run found it running when its run
 * stopped, and its tool is not idempotent: it was not run again).
 */
export type ToolCallOutcome = "executed" | "refused" | "unknown" | "cancelled" | "interrupted";

/**
 * One step of a run, discriminated by `type`; the same objects go to `run.events` and to the
 * `Agent`'s emitter, in the same order (docs/design.md, "The agent loop", A5).
 *
 * - `turn_start`: a model call begins; `final` marks the tool-less answer turn after a limit.
 * - `text_delta`: streamed assistant text.
 * - `reasoning_delta`: streamed model thinking, never part of the answer (a UI can fold it).
 * - `model_retry`: the model request failed before any output and is retried after
 *   `delayMs` (see the adapters' `retry` option).
 * - `usage`: the tokens a model turn used, as the provider reported them, right after the turn's
 *   stream ends (before its calls are handled); turns whose provider reports none have no such
 *   event. `inputTokens` is the size of the prompt just sent, so a UI can show the context
 *   filling up live; the run's `RunResult.usage` is the sum of these plus any summaries'.
 * - `tool_input_delta`: a piece of a call's arguments while the model writes them, before its
 *   `tool_call` (same `callId`); joined, a call's pieces are the JSON text of its arguments, so
 *   a UI can show a long argument (a file being written) as it streams. Models that send
 *   arguments whole send one piece; a call the turn drops (cancelled, failed) may leave pieces
 *   with no `tool_call`.
 * - `tool_call`: the loop starts handling a call (in call order, before its gates).
 * - `approval_requested` / `approval_resolved`: a call is put to the approver (`interlock` says
 *   why when the interlock escalated it); when the run is cancelled while it waits, no
 *   `approval_resolved` follows, only the call's `tool_result` with outcome `cancelled`. An
 *   approver that failed resolves as `block` with the failure in `error`.
 * - `interaction_requested` / `interaction_resolved`: a running tool asks the user for input
 *   (answered through the `onInteraction` option); when the run is cancelled before the answer
 *   comes, no `interaction_resolved` follows, only the call's `cancelled` `tool_result`.
 * - `tool_progress`: a running tool reports progress.
 * - `tool_result`: a call's result, as the model will read it.
 * - `compacted`: a compaction between turns changed the transcript, or stalled the run (sizes
 *   before and after, the `summary` installed); `summaryError` says why a summary was
 *   attempted and not installed, `overThreshold` why the prompt is still over the threshold
 *   (twice in a row, and the run stops with `compaction_stalled`).
 * - `error`: the provider failed (or the input was malformed); the run stops with `error`.
 * - `done`: the run ended; the last event.
 */
export type AgentEvent =
  | { type: "turn_start"; turn: number; final: boolean }
  | { type: "text_delta"; turn: number; text: string }
  | { type: "reasoning_delta"; turn: number; text: string }
  | {
      type: "model_retry";
      turn: number;
      attempt: number;
      delayMs: number;
      error: unknown;
      message: string;
    }
  | { type: "usage"; turn: number; usage: ModelUsage }
  | { type: "tool_input_delta"; turn: number; callId: string; toolName: string; text: string }
  | { type: "tool_call"; turn: number; callId: string; toolName: string; arguments: unknown }
  | {
      type: "approval_requested";
      callId: string;
      toolName: string;
      arguments: unknown;
      capabilities: Capabilities;
      interlock?: string;
    }
  | {
      type: "approval_resolved";
      callId: string;
      toolName: string;
      decision: ApprovalDecision;
      error?: unknown;
    }
  | {
      type: "interaction_requested";
      callId: string;
      toolName: string;
      request: ToolInteractionRequest;
    }
  | {
      type: "interaction_resolved";
      callId: string;
      toolName: string;
      response: ToolInteractionResponse;
    }
  | { type: "tool_progress"; callId: string; toolName: string; progress: ToolProgress }
  | {
      type: "tool_result";
      callId: string;
      toolName: string;
      outcome: ToolCallOutcome;
      isError: boolean;
      content: ToolContent[];
    }
  | (CompactedEvent & { reason: CompactionReason; summaryError?: string })
  | { type: "error"; error: unknown; message: string }
  | { type: "done"; result: RunResult };

/** The `type` of every agent event. */
export type AgentEventType = AgentEvent["type"];

/** The `Agent` emitter's event names, each with its one argument. */
export type AgentEventMap = {
  [K in AgentEventType]: [event: Extract<AgentEvent, { type: K }>];
};

/** Where the loop reports each event. */
export type EmitEvent = (event: AgentEvent) => void;
