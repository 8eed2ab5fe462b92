import { isToolError } from "../errors.ts";
import type { ToolContent } from "../execution/tool-content.ts";
import type { ToolResultBlock } from "../models/message.ts";
import type { ToolCallOutcome } from "./events.ts";

/** The prefix of the result of a call the run's cancellation stopped or never started. */
export const CANCELLED_PREFIX = "Cancelled:";

/**
 * Model tool call interface: one call the model made in a turn.
 */
export interface ModelToolCall {
  /** The provider's call id. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments, as the model sent them. */
  arguments: unknown;
  /** The provider's opaque token for this call, sent back with it (models: P5). */
  signature?: string;
  /** Provider data sent back with this call (`toolwire/ai-sdk`). */
  providerMetadata?: Record<string, Record<string, unknown>>;
}

/**
 * Call outcome interface: a call's result block plus how it came about.
 */
export interface CallOutcome {
  /** What goes back to the model. */
  block: ToolResultBlock;
  /** How the call ended. */
  outcome: ToolCallOutcome;
}

/**
 * Creates the outcome of a call from its content.
 *
 * @param call The call.
 * @param content What the model reads.
 * @param isError Whether it failed.
 * @param outcome How it ended.
 * @returns The outcome.
 */
export function callOutcome(
  call: ModelToolCall,
  content: ToolContent[],
  isError: boolean,
  outcome: ToolCallOutcome,
): CallOutcome {
  return { block: { type: "tool_result", toolUseId: call.id, content, isError }, outcome };
}

/**
 * Creates an error outcome carrying one text item.
 *
 * @param call The call.
 * @param text What the model reads.
 * @param outcome How it ended.
 * @returns The outcome.
 */
export function errorOutcome(
  call: ModelToolCall,
  text: string,
  outcome: ToolCallOutcome,
): CallOutcome {
  return callOutcome(call, [{ type: "text", text }], true, outcome);
}

/**
 * Returns the text the model reads when a call could not be executed.
 *
 * @param name The tool.
 * @param error Why: a `ToolError`, or whatever a foreign backend threw.
 * @returns The text, with every validation issue on its own line.
 */
export function failureText(name: string, error: unknown): string {
  if (!isToolError(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return `Tool \`${name}\` failed: ${message}`;
  }
  const issues = (error.issues ?? []).map((issue) => `\n- ${issue.path || "/"}: ${issue.message}`);
  return `Tool \`${name}\` failed: ${error.message}${issues.join("")}`;
}
