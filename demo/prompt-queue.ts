import type { ApprovalDecision, ApprovalRequest } from "../src/agent/index.ts";
import type { ToolInteractionRequest, ToolInteractionResponse } from "../src/index.ts";

/**
 * Pending prompt type: a question the page must put to the person, discriminated by `type`.
 */
export type PendingPrompt =
  | { type: "approval"; request: ApprovalRequest; answer(decision: ApprovalDecision): void }
  | {
      type: "interaction";
      request: ToolInteractionRequest;
      answer(response: ToolInteractionResponse): void;
    };

/**
 * Prompt queue interface: approvals and tool questions waiting for the person, shown one at a
 * time, oldest first.
 */
export interface PromptQueue {
  /** The prompt on screen, if any. */
  current(): PendingPrompt | undefined;
  /** Asks for an approval; a stopped run gets `deny`. */
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
  /** Asks a tool's question; a stopped run gets `cancel`. */
  interact(request: ToolInteractionRequest, signal: AbortSignal): Promise<ToolInteractionResponse>;
}

/**
 * Creates the prompt queue.
 *
 * @param onChange Called whenever the prompt on screen changes.
 * @returns The queue.
 */
export function createPromptQueue(
  onChange: (prompt: PendingPrompt | undefined) => void,
): PromptQueue {
  const queue: PendingPrompt[] = [];
  const settle = (prompt: PendingPrompt) => {
    const index = queue.indexOf(prompt);
    if (index === -1) return false;
    queue.splice(index, 1);
    if (index === 0) onChange(queue[0]);
    return true;
  };
  const enqueue = <T>(
    make: (answer: (value: T) => void) => PendingPrompt,
    signal: AbortSignal,
    onStop: T,
  ): Promise<T> => {
    if (signal.aborted) return Promise.resolve(onStop);
    return new Promise<T>((resolve) => {
      const onAbort = () => answer(onStop);
      const answer = (value: T) => {
        signal.removeEventListener("abort", onAbort);
        if (settle(prompt)) resolve(value);
      };
      const prompt = make(answer);
      signal.addEventListener("abort", onAbort, { once: true });
      queue.push(prompt);
      if (queue.length === 1) onChange(prompt);
    });
  };
  return {
    current: () => queue[0],
    approve: (request, signal) =>
      enqueue<ApprovalDecision>((answer) => ({ type: "approval", request, answer }), signal, {
        type: "deny",
        reason: "the run was stopped before anyone answered",
      }),
    interact: (request, signal) =>
      enqueue<ToolInteractionResponse>(
        (answer) => ({ type: "interaction", request, answer }),
        signal,
        { type: "cancel", id: request.id, reason: "the run was stopped" },
      ),
  };
}
