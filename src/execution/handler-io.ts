import type { ToolInteractionRequest } from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import type { Observation } from "../observer.ts";
import type { CallJournal } from "./call-journal.ts";
import type { RemoteTaskHook } from "./remote-task-hook.ts";
import type { ToolResult } from "./tool-result.ts";

/**
 * One transition of a handler. Start with `invoke`, answer the pending
 * interaction with `interaction`, stop with `cancel` (valid in every state, including while
 * another step is in flight).
 */
export type ToolHandlerInput =
  | {
      type: "invoke";
      /** The caller's correlation id, seen by the tool as `ctx.callId`. */
      callId?: string;
      arguments: unknown;
      /** Who is calling (`CallOptions.auth`), seen by a local tool as `ctx.auth`. */
      auth?: unknown;
      /** The journal a local tool's `ctx.once` records into (`CallOptions["~journal"]`). */
      "~journal"?: CallJournal;
      /** The operation the call runs inside (`CallOptions["~observation"]`). */
      "~observation"?: Observation;
      /** Where a remote call that becomes a task records it (`CallOptions["~task"]`). */
      "~task"?: RemoteTaskHook;
    }
  | { type: "interaction"; response: ToolInteractionResponse }
  | { type: "cancel"; reason?: string };

/**
 * Completed (terminal) or suspended on a question for the caller. A tool that asks several
 * questions at once (`Promise.all`) gets them one step at a time: each `interaction` step
 * answers one and returns the next still open.
 */
export type ToolHandlerOutput =
  | { type: "completed"; result: ToolResult }
  | {
      type: "interaction";
      request: ToolInteractionRequest;
      /** Every question open now, `request` first, so `Toolset.call` can ask them together. */
      "~open"?: readonly ToolInteractionRequest[];
    };

/** A progress report from a running tool. */
export interface ToolProgress {
  /** Work done so far; increases over a call. */
  progress: number;
  /** Total work, when known. */
  total?: number;
  /** What is happening now. */
  message?: string;
}

/** The RFC 5424 severities MCP logging uses, least severe first. */
export type ToolLogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** One log message from a running tool. */
export interface ToolLog {
  /** How severe it is. */
  level: ToolLogLevel;
  /** What to log: a string or any JSON-serializable value. */
  data: unknown;
  /** The name of the logger that produced it, when the tool names one. */
  logger?: string;
}

/** Listeners for one step; each is dropped when that step settles. */
export interface StepOptions {
  /** Receives the tool's progress reports while this step runs. */
  onProgress?(progress: ToolProgress): void;
  /** Receives the tool's log messages while this step runs (an MCP server forwards them). */
  onLog?(log: ToolLog): void;
  /**
   * Whether the caller answers the tool's questions (the call has an `onInteraction`); on the
   * `invoke` step a remote handler then tells its server that it can ask (MCP 2026-07-28
   * declares form elicitation per request).
   */
  answers?: boolean;
}
