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
import { checkInteractionResponse } from "../interaction/check-interaction-response.ts";
import {
  newInteractionId,
  type ToolInteractionKind,
  type ToolInteractionRequest,
} from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import { completeResult } from "./complete-result.ts";
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
 * another step is in flight, and aborts `ctx.signal`.
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
  #cancelled: ToolError | undefined;
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
   * @param options Progress listener for this step.
   * @returns The completed result or the pending interaction.
   * @throws ToolError `invalid_arguments`, `invalid_output`, `invalid_interaction` (the handler
   * stays pending), `interaction_declined`, `undeclared_interaction`, `cancelled`, or
   * `unsupported` for a second invoke, a step after completion or overlapping steps.
   */
  async step(input: ToolHandlerInput, options?: StepOptions): Promise<ToolHandlerOutput> {
    if (input?.type === "cancel") throw this.#cancel(input.reason);
    if (this.#busy) throw unsupported("a step while another step of this handler is in flight");
    this.#busy = true;
    try {
      if (input?.type === "invoke")
        return await this.#invoke(input.arguments, input.callId, options);
      if (input?.type === "interaction") return await this.#answer(input.response, options);
      throw unsupported(`step input ${JSON.stringify((input as { type?: unknown })?.type)}`);
    } finally {
      this.#busy = false;
    }
  }

  async #invoke(
    args: unknown,
    callId: string | undefined,
    options?: StepOptions,
  ): Promise<ToolHandlerOutput> {
    if (this.#state !== "ready")
      throw unsupported(`invoke on a ${this.#state} handler (one handler runs one call)`);
    this.#state = "running";
    this.#callId = callId;
    const outcome = await this.#tool["~input"].validate(args);
    if (this.#cancelled) throw this.#cancelled;
    if (!outcome.ok) {
      this.#state = "finished";
      const first = outcome.issues[0];
      throw new ToolError({
        type: "invalid_arguments",
        tool: this.#tool.name,
        message: `${first.path || "/"}: ${first.message}${outcome.issues.length > 1 ? ` (and ${outcome.issues.length - 1} more)` : ""}`,
        issues: outcome.issues,
      });
    }
    Promise.resolve()
      .then(() =>
        this.#tool.call(
          outcome.value,
          new LocalContext(
            this,
            this.#tool.name,
            this.#callId,
            this.#tool.info.interactions.formSchemaValidation,
          ),
        ),
      )
      .then(
        (value) => this.#emit({ type: "done", value }),
        (error: unknown) => this.#emit({ type: "failed", error }),
      );
    return this.#next(options);
  }

  async #answer(
    response: ToolInteractionResponse,
    options?: StepOptions,
  ): Promise<ToolHandlerOutput> {
    const pending = this.#pending;
    if (this.#state !== "pending" || !pending) {
      throw new ToolError({
        type: "invalid_interaction",
        id: String(response?.id),
        message: `no interaction is pending (the handler is ${this.#state})`,
      });
    }
    await checkInteractionResponse(pending.request, response);
    if (this.#cancelled) throw this.#cancelled;
    if (response.type === "cancel") throw this.#cancel(response.reason);
    this.#state = "running";
    this.#pending = undefined;
    if (response.type === "submit") pending.resolve(response.content);
    else pending.reject(declined(this.#tool.name, response.reason));
    return this.#next(options);
  }

  async #next(options?: StepOptions): Promise<ToolHandlerOutput> {
    this.#onProgress = options?.onProgress;
    this.#onLog = options?.onLog;
    const queued = this.#queued;
    this.#queued = undefined;
    const event =
      queued ??
      (await new Promise<Event>((resolve, reject) => (this.#waiter = { resolve, reject })));
    this.#waiter = undefined;
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
    return { type: "completed", result: await completeResult(this.#tool, event.value) };
  }

  #emit(event: Event): void {
    if (this.#state === "finished") return;
    if (this.#waiter) this.#waiter.resolve(event);
    else this.#queued = event;
  }

  #cancel(reason: string | undefined): ToolError {
    const error = new ToolError(
      reason === undefined
        ? { type: "cancelled", tool: this.#tool.name }
        : { type: "cancelled", tool: this.#tool.name, reason },
    );
    if (this.#state !== "finished") this.#fail(error);
    this.#cancelled ??= error;
    return error;
  }

  #fail(error: ToolError): void {
    this.#state = "finished";
    this.#cancelled = error;
    this.#controller?.abort(error);
    this.#waiter?.reject(error);
    this.#pending?.reject(error);
    this.#waiter = undefined;
    this.#pending = undefined;
  }

  /** Returns the call's signal, creating it on first use. */
  "~signal"(): AbortSignal {
    return this.#abortSignal().signal;
  }

  /** Forwards a progress report to the step in flight; a faulty listener never breaks the tool. */
  "~progress"(update: ToolProgress): void {
    try {
      this.#onProgress?.(update);
    } catch {
      // Hint: the listener belongs to the caller; its bug must not fail the call.
    }
  }

  /** Forwards a log message to the step in flight; a faulty listener never breaks the tool. */
  "~log"(log: ToolLog): void {
    try {
      this.#onLog?.(log);
    } catch {
      // Hint: as with progress, the listener's bug must not fail the call.
    }
  }

  /** Suspends the call on a question for the caller. */
  "~ask"(prompt: string, kind: ToolInteractionKind): Promise<unknown> {
    return this.#ask(prompt, kind);
  }

  #abortSignal(): AbortController {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#cancelled) this.#controller.abort(this.#cancelled);
    }
    return this.#controller;
  }

  #ask(prompt: string, kind: ToolInteractionKind): Promise<unknown> {
    if (this.#state === "finished")
      return Promise.reject(this.#cancelled ?? unsupported("asking after the call finished"));
    const declared = this.#tool.info.interactions;
    const name = kind.type === "form" ? "form" : kind.multiline ? "multiline_text" : "text";
    const allowed =
      kind.type === "form"
        ? declared.form
        : kind.multiline
          ? declared.multilineText
          : declared.text;
    if (!allowed) {
      const error = new ToolError({
        type: "undeclared_interaction",
        tool: this.#tool.name,
        kind: name,
      });
      this.#emit({ type: "failed", error });
      this.#abortSignal().abort(error);
      return Promise.reject(error);
    }
    if (this.#pending)
      return Promise.reject(unsupported("a second interaction while one is pending"));
    const request: ToolInteractionRequest = {
      id: newInteractionId(),
      toolName: this.#tool.name,
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
