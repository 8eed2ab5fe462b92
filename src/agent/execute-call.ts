import type { ToolInfo } from "../declaration/tool-info.ts";
import type { ToolInteractionRequest } from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import type { CallOptions, Toolset } from "../toolset/toolset.ts";
import {
  CANCELLED_PREFIX,
  type CallOutcome,
  callOutcome,
  errorOutcome,
  failureText,
  type ModelToolCall,
} from "./call-outcome.ts";
import type { EmitEvent } from "./events.ts";
import { markUntrusted } from "./mark-untrusted.ts";

/**
 * Interaction answerer type: answers a running tool's question, typically by asking the person
 * in front of the page. Aborting `signal` means the run was cancelled.
 */
export type InteractionAnswerer = (
  request: ToolInteractionRequest,
  signal: AbortSignal,
) => Promise<ToolInteractionResponse>;

/**
 * Execution context interface: what running one approved call needs.
 */
export interface ExecutionContext {
  /** The run's signal; it reaches the tool as `ctx.signal`. */
  signal: AbortSignal;
  /** Where events go. */
  emit: EmitEvent;
  /** Answers tool questions; without it a question fails the call. */
  onInteraction: InteractionAnswerer | undefined;
  /** Whether to wrap the output of `untrustedInput` tools as data. */
  markUntrustedOutput: boolean;
}

/**
 * Runs one approved call and returns its outcome; it never rejects. A thrown `ToolError`
 * becomes an error result the model can react to, and the run's cancellation a `Cancelled:`
 * result.
 *
 * @param call The call.
 * @param route The tool's declaration and toolset.
 * @param context Signal, events and interaction answerer.
 * @returns The outcome, and whether the tool started (its taint counts only then).
 */
export async function executeCall(
  call: ModelToolCall,
  route: { info: ToolInfo; toolset: Toolset },
  context: ExecutionContext,
): Promise<CallOutcome & { started: boolean }> {
  const { signal, emit } = context;
  if (signal.aborted) {
    const text = `${CANCELLED_PREFIX} the run was cancelled before this call started.`;
    return started(errorOutcome(call, text, "cancelled"), false);
  }
  const options: CallOptions = {
    signal,
    callId: call.id,
    onProgress: (progress) =>
      emit({ type: "tool_progress", callId: call.id, toolName: call.name, progress }),
  };
  const answer = context.onInteraction;
  if (answer) {
    options.onInteraction = async (request) => {
      emit({ type: "interaction_requested", callId: call.id, toolName: call.name, request });
      const response = await answer(request, signal);
      // Hint: an answer that comes after the abort is dropped with the call, which already
      // reported its `Cancelled:` result (and the run perhaps its `done`); announcing it
      // would put an event after the call's last word.
      if (!signal.aborted) {
        emit({ type: "interaction_resolved", callId: call.id, toolName: call.name, response });
      }
      return response;
    };
  }
  try {
    const result = await route.toolset.call(call.name, call.arguments, options);
    const untrusted = context.markUntrustedOutput && route.info.capabilities.untrustedInput;
    const content = untrusted ? markUntrusted(call.name, result.content) : result.content;
    return started(callOutcome(call, content, result.isError, "executed"), true);
  } catch (error) {
    if (signal.aborted) {
      const text = `${CANCELLED_PREFIX} the run was cancelled while this call ran.`;
      return started(errorOutcome(call, text, "cancelled"), true);
    }
    return started(errorOutcome(call, failureText(call.name, error), "executed"), true);
  }
}

// Hint: built field by field: a spread here was the costliest line of a call's outcome in profiles.
function started(outcome: CallOutcome, ran: boolean): CallOutcome & { started: boolean } {
  return { block: outcome.block, outcome: outcome.outcome, started: ran };
}
