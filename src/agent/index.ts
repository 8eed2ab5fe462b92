/**
 * toolwire/agent — a provider-neutral agent loop over toolwire toolsets.
 *
 * An `Agent` sends the transcript to a `Model`, gates the calls it makes (unknown tools, the
 * capability interlock, the approver for every tool that is not read-only), runs them under a
 * concurrency policy, and sends all of a turn's results back as one message, until the model
 * answers without calling tools. Runs stream `AgentEvent`s, can be cancelled with an
 * `AbortSignal` at any stage, compact their transcript between turns, and end with a
 * JSON-serialisable `Conversation` to resume from.
 *
 * @example
 * ```ts
 * import * as v from "valibot";
 * import { defineTool } from "toolwire";
 * import { Agent, modeApprover } from "toolwire/agent";
 * import { scriptedModel } from "toolwire/models";
 *
 * const add = defineTool({
 *   name: "add", description: "Adds two numbers", readOnly: true,
 *   input: v.object({ a: v.number(), b: v.number() }),
 *   call: ({ a, b }) => String(a + b),
 * });
 * const model = scriptedModel([
 *   { toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }] },
 *   { text: "1 + 2 = 3" },
 * ]);
 * const agent = new Agent({ model, tools: [add], approver: modeApprover("read-only") });
 * const run = agent.run("What is 1 + 2?");
 * for await (const event of run) if (event.type === "text_delta") console.log(event.text);
 * const { text, stop, conversation } = await run.result; // "1 + 2 = 3", "done"
 * ```
 *
 * @module
 */

export {
  type CompactOptions,
  type CompactResult,
  compact,
  type SummaryFailure,
} from "../compaction/compact.ts";
export {
  type CompactedEvent,
  type CompactionReason,
  type Conversation,
  emptyConversation,
  type Taint,
  type TranscriptSize,
} from "../compaction/conversation.ts";
export { extractiveSummarizer } from "../compaction/extractive-summarizer.ts";
export {
  CARRIED_STATE_HEADER,
  isCarriedBlock,
  isSummaryBlock,
  SUMMARY_MARKER,
} from "../compaction/head.ts";
export { type ModelSummarizerOptions, modelSummarizer } from "../compaction/model-summarizer.ts";
export { estimateTokens } from "../compaction/pressure.ts";
export type { Summarizer, Summary, SummaryRequest } from "../compaction/summarizer.ts";
export type {
  Block,
  ImageBlock,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolResultMark,
  ToolUseBlock,
} from "../models/message.ts";
export {
  Agent,
  type AgentOptions,
  type AgentResumeOptions,
  type AgentRunOptions,
} from "./agent.ts";
export type { Concurrency, InteractionAnswerer } from "./calls.ts";
export type { CompactionSettings } from "./compaction-step.ts";
export type { AgentEvent, AgentEventMap, AgentEventType } from "./events.ts";
export {
  type ApprovalDecision,
  type ApprovalMode,
  type ApprovalRequest,
  type Approver,
  type InterlockPolicy,
  modeApprover,
} from "./gates.ts";
export type { AgentRun } from "./run.ts";
export type { RunResult, StopCause } from "./run-result.ts";
export type {
  ResumeDecisions,
  RunSnapshot,
  RunSnapshotBody,
  SnapshotCall,
  SnapshotSettings,
} from "./snapshot.ts";
export type { ToolCallOutcome } from "./transcript.ts";
