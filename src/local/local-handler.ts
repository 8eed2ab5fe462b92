import { isToolError, ToolError } from "../errors.ts";
import type { ToolHandlerBackend } from "../execution/backend.ts";
import type {
  StepOptions,
  ToolHandlerInput,
  ToolHandlerOutput,
  ToolLog,
  ToolProgress,
} from "../execution/handler-io.ts";
import { ToolResult } from "../execution/tool-result.ts";
import { checkInteractionRequest } from "../interaction/check-interaction-request.ts";
import {
  checkInteractionResponse,
  noPendingInteraction,
} from "../interaction/check-interaction-response.ts";
import {
  newInteractionId,
  type ToolInteractionKind,
  type ToolInteractionRequest,
} from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import { checkOutput, toResult } from "./complete-result.ts";
import type { Tool } from "./define-tool.ts";
import { type ContextPort, LocalContext } from "./local-context.ts";

type State = "ready" | "running" | "pending" | "finished";

// What the running tool tells the step that waits for it.
type Event =
  | { type: "done"; value: unknown }
  | { type: "failed"; error: unknown }
  | { type: "ask"; request: ToolInteractionRequest };

interface Pending {
  request: ToolInteractionRequest;
  resolve(content: unknown): void;
  reject(error: unknown): void;
}

/**
 * The local handler: one invocation of one local tool, as the state machine
 * ready → running ⇄ pending → finished. `cancel` is accepted in every state, even while
 * another step is in flight, and aborts `ctx.signal`; a cancel that arrives before the step in
 * flight has returned wins, so that step rejects with `cancelled` too. Progress and log
 * messages reach only the listeners of the step in flight; between and after steps they are
 * dropped.
 */
export class LocalHandler implements ToolHandlerBackend, ContextPort {
  readonly #tool: Tool;
  // Hint: created on first use; reading an AbortSignal costs microseconds and most calls never do.
  #controller: AbortController | undefined;
  #state: State = "ready";
  #busy = false;
  #callId: string | undefined;
  #waiter: { resolve(event: Event): void; reject(error: unknown): void } | undefined;
  #queued: Event | undefined;
  #pending: Pending | undefined;
  #stopped: ToolError | undefined;
  #onProgress: ((progress: ToolProgress) => void) | undefined;
  #onLog: ((log: ToolLog) => void) | undefined;

  /**
   * Creates a handler in the ready state.
   *
   * @param tool The tool this handler will call once.
   */
  constructor(tool: Tool) {
    this.#tool = tool;
  }

  /**
   * Performs one transition.
   *
   * @param input `invoke`, `interaction` or `cancel`.
   * @param options Progress and log listeners for this step.
   * @returns The completed result or the pending interaction.
   * @throws ToolError `invalid_arguments`, `invalid_output`, `invalid_interaction` (still
   * pending), `interaction_declined`, `undeclared_interaction`, `cancelled`, `invalid_configuration`
   * (a schema that cannot be applied), `unsupported` (unknown input, reuse, overlapping steps).
   */
  async step(input: ToolHandlerInput, options?: StepOptions): Promise<ToolHandlerOutput> {
    const type = typeof input === "object" && input !== null ? input.type : undefined;
    if (type === "cancel") throw this.#cancel((input as { reason?: unknown }).reason);
    if (type !== "invoke" && type !== "interaction") {
      throw unsupported(
        `step input ${JSON.stringify(type) ?? typeof input} (expected invoke, interaction or cancel)`,
      );
    }
    if (this.#busy) throw unsupported("a step while another step of this handler is in flight");
    this.#busy = true;
    this.#onProgress = options?.onProgress;
    this.#onLog = options?.onLog;
    try {
      if (input.type === "invoke") return await this.#invoke(input.arguments, input.callId);
      return await this.#answer((input as { response: ToolInteractionResponse }).response);
    } finally {
      this.#busy = false;
      // Hint: a tool still running after its step settled must not reach that caller's listeners.
      this.#onProgress = undefined;
      this.#onLog = undefined;
    }
  }

  async #invoke(args: unknown, callId: unknown): Promise<ToolHandlerOutput> {
    if (this.#state !== "ready")
      throw unsupported(`invoke on a ${this.#state} handler (one handler runs one call)`);
    this.#state = "running";
    if (typeof callId === "string") this.#callId = callId;
    const tool = this.#tool;
    let outcome: Awaited<ReturnType<Tool["~input"]["validate"]>>;
    try {
      outcome = await tool["~input"].validate(args);
    } catch (error) {
      this.#state = "finished";
      throw error;
    }
    if (this.#stopped) throw this.#stopped;
    if (!outcome.ok) {
      this.#state = "finished";
      const first = outcome.issues[0];
      throw new ToolError({
        type: "invalid_arguments",
        tool: tool.name,
        message: `${first.path || "/"}: ${first.message}${outcome.issues.length > 1 ? ` (and ${outcome.issues.length - 1} more)` : ""}`,
        issues: outcome.issues,
      });
    }
    const ctx = new LocalContext(
      this,
      tool.name,
      this.#callId,
      tool.info.interactions.formSchemaValidation,
    );
    const value = outcome.value;
    const run = tool["~run"] ?? tool.call;
    // Hint: the tool starts on a microtask, so the waiter below is in place before it can report.
    Promise.resolve()
      .then(() => run(value, ctx))
      .then(
        (value) => this.#emit({ type: "done", value }),
        (error: unknown) => this.#emit({ type: "failed", error }),
      );
    // Hint: `return await` settles in one tick; returning the bare promise would take three.
    return await this.#next();
  }

  async #answer(response: ToolInteractionResponse): Promise<ToolHandlerOutput> {
    const pending = this.#pending;
    if (this.#state !== "pending" || !pending) {
      if (this.#stopped) throw this.#stopped;
      throw noPendingInteraction(response, this.#state);
    }
    try {
      await checkInteractionResponse(pending.request, response);
    } catch (error) {
      if (this.#stopped) throw this.#stopped;
      // Hint: a bad reply leaves the question open; a broken request schema is the tool's to handle.
      if (isToolError(error, "invalid_interaction")) throw error;
      return await this.#resume(() => pending.reject(error));
    }
    if (this.#stopped) throw this.#stopped;
    if (response.type === "cancel") throw this.#cancel(response.reason);
    return await this.#resume(() =>
      response.type === "submit"
        ? pending.resolve(response.content)
        : pending.reject(declined(this.#tool.name, response.reason)),
    );
  }

  #resume(settle: () => void): Promise<ToolHandlerOutput> {
    this.#state = "running";
    this.#pending = undefined;
    settle();
    return this.#next();
  }

  async #next(): Promise<ToolHandlerOutput> {
    let event = this.#queued;
    this.#queued = undefined;
    event ??= await new Promise<Event>((resolve, reject) => (this.#waiter = { resolve, reject }));
    this.#waiter = undefined;
    // Hint: a cancel that landed while this step was resuming wins over what the tool produced.
    if (this.#stopped) throw this.#stopped;
    if (event.type === "ask") {
      this.#state = "pending";
      return { type: "interaction", request: event.request };
    }
    this.#state = "finished";
    if (event.type === "failed") {
      if (isToolError(event.error)) throw event.error;
      const message = event.error instanceof Error ? event.error.message : String(event.error);
      return { type: "completed", result: ToolResult.error(message) };
    }
    const tool = this.#tool;
    let result = toResult(tool, event.value);
    if (tool["~output"]) {
      result = await checkOutput(tool, result);
      if (this.#stopped) throw this.#stopped;
    }
    return { type: "completed", result };
  }

  #emit(event: Event): void {
    if (this.#state === "finished") return;
    if (this.#waiter) this.#waiter.resolve(event);
    else this.#queued = event;
  }

  #cancel(reason: unknown): ToolError {
    const tool = this.#tool.name;
    const error = new ToolError(
      typeof reason === "string"
        ? { type: "cancelled", tool, reason }
        : { type: "cancelled", tool },
    );
    this.#stop(error);
    return error;
  }

  // Ends the call from outside the tool's own flow: the step in flight and the tool's open
  // question reject with `error`, `ctx.signal` aborts, and later replies replay it.
  #stop(error: ToolError): void {
    this.#stopped ??= error;
    if (this.#state === "finished") return;
    this.#state = "finished";
    this.#queued = undefined;
    this.#controller?.abort(error);
    this.#waiter?.reject(error);
    this.#pending?.reject(error);
    this.#waiter = undefined;
    this.#pending = undefined;
  }

  /** Returns the call's signal, creating it on first use. */
  "~signal"(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#stopped) this.#controller.abort(this.#stopped);
    }
    return this.#controller.signal;
  }

  /** Forwards a progress report to the step in flight, if any. */
  "~progress"(update: ToolProgress): void {
    notify(this.#onProgress, update);
  }

  /** Forwards a log message to the step in flight, if any. */
  "~log"(log: ToolLog): void {
    notify(this.#onLog, log);
  }

  /** Suspends the call on a question for the caller. */
  "~ask"(prompt: string, kind: ToolInteractionKind): Promise<unknown> {
    if (this.#state === "finished")
      return Promise.reject(this.#stopped ?? unsupported("asking after the call finished"));
    const tool = this.#tool;
    const problem = checkInteractionRequest(tool.name, tool.info.interactions, kind);
    if (problem) {
      // Hint: an undeclared kind ends the call; a malformed request fails only this question.
      if (problem.type === "undeclared_interaction") this.#stop(problem);
      return Promise.reject(problem);
    }
    if (this.#pending)
      return Promise.reject(unsupported("a second interaction while one is pending"));
    const request: ToolInteractionRequest = {
      id: newInteractionId(),
      toolName: tool.name,
      prompt: String(prompt),
      kind,
    };
    if (this.#callId !== undefined) request.callId = this.#callId;
    return new Promise((resolve, reject) => {
      this.#pending = { request, resolve, reject };
      this.#emit({ type: "ask", request });
    });
  }
}

function notify<T>(listener: ((value: T) => void) | undefined, value: T): void {
  try {
    listener?.(value);
  } catch {
    // Hint: the listener belongs to the caller; its bug must not fail the call.
  }
}

function unsupported(operation: string): ToolError {
  return new ToolError({ type: "unsupported", operation });
}

function declined(tool: string, reason: string | undefined): ToolError {
  return new ToolError(
    reason === undefined
      ? { type: "interaction_declined", tool }
      : { type: "interaction_declined", tool, reason },
  );
}
