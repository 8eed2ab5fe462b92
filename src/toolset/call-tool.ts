import { isToolError, ToolError } from "../errors.ts";
import type { ToolHandlerBackend } from "../execution/backend.ts";
import type { StepOptions, ToolLog, ToolProgress } from "../execution/handler-io.ts";
import type { ToolResult } from "../execution/tool-result.ts";
import type { ToolInteractionRequest } from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import { cancelledError } from "./cancelled-error.ts";

/** Call options interface: how `Toolset.call` is driven. */
export interface CallOptions {
  /** Aborting sends `cancel` to the handler and rejects with `cancelled`. */
  signal?: AbortSignal;
  /** Caller-owned correlation id, passed to the tool as `ctx.callId`. */
  callId?: string;
  /** Receives the tool's progress reports. */
  onProgress?(progress: ToolProgress): void;
  /** Receives the tool's log messages (`ctx.log`). */
  onLog?(log: ToolLog): void;
  /**
   * Answers the tool's questions; without it, a question fails the call with `unsupported`.
   * Should it throw something other than a `ToolError`, the call fails with
   * `invalid_interaction` (the thrown value as `cause`); a malformed reply fails it the same
   * way. Either way the tool is cancelled.
   */
  onInteraction?(
    request: ToolInteractionRequest,
    signal: AbortSignal,
  ): Promise<ToolInteractionResponse>;
  /**
   * Who is calling, as the host established it (an MCP server passes what its `authorize`
   * returned). The tool sees it as `ctx.auth`; toolwire never reads it.
   */
  auth?: unknown;
}

/**
 * Drives one handler from `invoke` to completion: answers interactions through
 * `onInteraction`, forwards progress, and turns an abort into `cancel`.
 *
 * @param name The tool, for error messages.
 * @param handler A fresh handler for it.
 * @param args The arguments.
 * @param options Signal, call id and listeners.
 * @returns The completed result.
 * @throws ToolError whatever the handler throws, or `cancelled` when the signal aborts.
 */
export async function driveHandler(
  name: string,
  handler: ToolHandlerBackend,
  args: unknown,
  options: CallOptions,
): Promise<ToolResult> {
  const { signal } = options;
  if (signal?.aborted) throw cancelledError(name, signal);
  // Hint: one listener per call, not one per await: it sends `cancel` to the handler and
  // rejects whatever the call is waiting for (a step or the caller's answer).
  let onAbort: (() => void) | undefined;
  const aborted =
    signal &&
    new Promise<never>((_, reject) => {
      onAbort = () => {
        const error = cancelledError(name, signal);
        const { reason } = error;
        handler
          .step(reason === undefined ? { type: "cancel" } : { type: "cancel", reason })
          .catch(() => {});
        reject(error);
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
  aborted?.catch(() => {});
  const guard = <T>(promise: Promise<T>): Promise<T> =>
    aborted ? Promise.race([promise, aborted]) : promise;
  const stepOptions = stepOptionsOf(options);
  try {
    const invoke =
      options.callId === undefined
        ? ({ type: "invoke", arguments: args } as const)
        : ({ type: "invoke", callId: options.callId, arguments: args } as const);
    let output = await guard(handler.step(invoke, stepOptions));
    while (output.type === "interaction") {
      if (!options.onInteraction) {
        await handler.step({ type: "cancel", reason: "nobody can answer" }).catch(() => {});
        throw new ToolError({
          type: "unsupported",
          operation: `${name} asked for input but the call has no onInteraction`,
        });
      }
      const response = await guard(answer(options.onInteraction, output.request, signal));
      output = await guard(handler.step({ type: "interaction", response }, stepOptions));
    }
    return output.result;
  } catch (error) {
    // Hint: never leave a tool suspended on a question nobody will answer.
    handler.step({ type: "cancel", reason: "the call failed" }).catch(() => {});
    throw error;
  } finally {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

// Hint: the caller's callback may throw synchronously, return a bare value or fail untyped.
function answer(
  onInteraction: NonNullable<CallOptions["onInteraction"]>,
  request: ToolInteractionRequest,
  signal: AbortSignal | undefined,
): Promise<ToolInteractionResponse> {
  return Promise.resolve()
    .then(() => onInteraction(request, signal ?? new AbortController().signal))
    .catch((error: unknown) => {
      if (isToolError(error)) throw error;
      const why = error instanceof Error ? error.message : String(error);
      throw new ToolError(
        { type: "invalid_interaction", id: request.id, message: `onInteraction failed: ${why}` },
        { cause: error },
      );
    });
}

function stepOptionsOf({ onProgress, onLog }: CallOptions): StepOptions | undefined {
  if (!onProgress && !onLog) return undefined;
  const step: StepOptions = {};
  if (onProgress) step.onProgress = onProgress;
  if (onLog) step.onLog = onLog;
  return step;
}
