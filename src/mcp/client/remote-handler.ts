import type { ToolName } from "../../declaration/tool-name.ts";
import { ToolError, unreachable } from "../../errors.ts";
import type { ToolHandlerBackend } from "../../execution/backend.ts";
import type {
  StepOptions,
  ToolHandlerInput,
  ToolHandlerOutput,
  ToolLog,
  ToolProgress,
} from "../../execution/handler-io.ts";
import type { ToolResult } from "../../execution/tool-result.ts";
import {
  checkInteractionResponse,
  noPendingInteraction,
} from "../../interaction/check-interaction-response.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from "../json-rpc.ts";
import type { McpSession, ServerMessage } from "./mcp-session.ts";
import {
  createIdleTimer,
  type IdleTimer,
  logFromMcp,
  type RemoteCallPlan,
  resultFromMcp,
} from "./remote-tool.ts";
import { handleServerRequest, replyToServer } from "./server-request.ts";

type State = "ready" | "running" | "pending" | "finished";

// What the in-flight `tools/call` tells the step that waits for it.
type Event =
  | { type: "done"; result: ToolResult }
  | { type: "failed"; error: unknown }
  | { type: "ask"; request: ToolInteractionRequest; questionId: JsonRpcRequest["id"] };

/**
 * The remote handler: one `tools/call` on an MCP server, as the same state machine as a local
 * handler (ready → running ⇄ pending → finished). Progress notifications reach `onProgress`,
 * log messages on the call's stream reach `onLog`, `elicitation/create` on it becomes a form
 * interaction and `sampling/createMessage` a sampling interaction (each when enabled), and
 * `cancel` (or the idle deadline) sends `notifications/cancelled` upstream before aborting the
 * request.
 */
export class RemoteHandler implements ToolHandlerBackend {
  readonly #session: McpSession;
  readonly #plan: RemoteCallPlan;
  readonly #controller = new AbortController();
  readonly #timer: IdleTimer;
  readonly #events: Event[] = [];
  #state: State = "ready";
  #busy = false;
  #requestId: number | undefined;
  #callId: string | undefined;
  #waiter: { resolve(event: Event): void; reject(error: unknown): void } | undefined;
  #pending: Extract<Event, { type: "ask" }> | undefined;
  #failure: ToolError | undefined;
  #onProgress: ((progress: ToolProgress) => void) | undefined;
  #onLog: ((log: ToolLog) => void) | undefined;

  /**
   * Creates a handler in the ready state.
   *
   * @param session The client session.
   * @param plan The tool's declaration, native name, compiled checks and deadline.
   */
  constructor(session: McpSession, plan: RemoteCallPlan) {
    this.#session = session;
    this.#plan = plan;
    this.#timer = createIdleTimer(plan.timeoutMs, () => this.#expire());
  }

  get #name(): ToolName {
    return this.#plan.tool.info.name;
  }

  /**
   * Performs one transition.
   *
   * @param input `invoke`, `interaction` or `cancel`.
   * @param options Progress listener for this step.
   * @returns The completed result or the pending form or sampling interaction.
   * @throws ToolError `invalid_arguments` (nothing is sent), `invalid_interaction` (the handler
   * stays pending), `invalid_output`, `cancelled`, `timeout`, `protocol`, `transport`, or
   * `unsupported` for a second invoke, a step after completion or overlapping steps.
   */
  async step(input: ToolHandlerInput, options?: StepOptions): Promise<ToolHandlerOutput> {
    if (input?.type === "cancel") throw await this.#cancel(input.reason);
    if (this.#busy) throw unsupported("a step while another step of this handler is in flight");
    this.#busy = true;
    try {
      if (input?.type === "invoke") return await this.#invoke(input, options);
      if (input?.type === "interaction") return await this.#answer(input.response, options);
      throw unsupported(`step input ${JSON.stringify((input as { type?: unknown })?.type)}`);
    } finally {
      this.#busy = false;
    }
  }

  async #invoke(
    input: Extract<ToolHandlerInput, { type: "invoke" }>,
    options: StepOptions | undefined,
  ): Promise<ToolHandlerOutput> {
    if (this.#state !== "ready") {
      throw unsupported(`invoke on a ${this.#state} handler (one handler runs one call)`);
    }
    // Hint: arguments that fail the check end the call here; nothing reaches the server.
    this.#state = "finished";
    const args = this.#plan.checkArguments(input.arguments);
    this.#state = "running";
    this.#callId = input.callId;
    const id = this.#session.newRequestId();
    this.#requestId = id;
    const params = {
      name: this.#plan.tool.nativeName,
      arguments: args,
      // Hint: always ask for progress, so a long call can keep its idle deadline alive.
      _meta: { progressToken: id },
    };
    this.#timer.arm();
    this.#session
      .request(id, "tools/call", params, {
        signal: this.#controller.signal,
        label: this.#name,
        onMessage: (message) => this.#onServerMessage(message),
      })
      .then(
        (result) =>
          this.#emit({
            type: "done",
            result: this.#plan.checkResult(resultFromMcp(result, this.#name)),
          }),
        (error: unknown) => this.#emit({ type: "failed", error }),
      )
      .catch((error: unknown) => this.#emit({ type: "failed", error }));
    return this.#next(options);
  }

  async #answer(
    response: ToolInteractionResponse,
    options: StepOptions | undefined,
  ): Promise<ToolHandlerOutput> {
    const pending = this.#pending;
    if (this.#state !== "pending" || !pending) throw noPendingInteraction(response, this.#state);
    await checkInteractionResponse(pending.request, response);
    if (this.#failure) throw this.#failure;
    this.#state = "running";
    this.#pending = undefined;
    this.#timer.arm();
    try {
      await this.#session.send(replyToServer(pending.request, pending.questionId, response), {
        signal: this.#controller.signal,
        label: this.#name,
      });
    } catch (error) {
      throw this.#fail(this.#failure ?? (error as ToolError));
    }
    if (response.type === "cancel") throw await this.#cancel(response.reason);
    return this.#next(options);
  }

  async #next(options: StepOptions | undefined): Promise<ToolHandlerOutput> {
    this.#onProgress = options?.onProgress;
    this.#onLog = options?.onLog;
    const event =
      this.#events.shift() ??
      (await new Promise<Event>((resolve, reject) => {
        this.#waiter = { resolve, reject };
      }));
    this.#waiter = undefined;
    if (event.type === "ask") {
      this.#state = "pending";
      this.#pending = event;
      this.#timer.disarm();
      return { type: "interaction", request: event.request };
    }
    this.#state = "finished";
    this.#timer.disarm();
    if (event.type === "failed") throw event.error;
    return { type: "completed", result: event.result };
  }

  #emit(event: Event): void {
    if (this.#state === "finished") return;
    if (this.#waiter) this.#waiter.resolve(event);
    else this.#events.push(event);
  }

  #onServerMessage(message: ServerMessage): void {
    if (this.#state === "finished") return;
    switch (message.type) {
      case "notification":
        this.#onNotification(message.message);
        return;
      case "request": {
        const reply = this.#onRequest(message.message);
        if (reply) this.#reply(reply);
        return;
      }
      default:
        unreachable(message);
    }
  }

  #onNotification({ method, params = {} }: JsonRpcNotification): void {
    // Hint: a log message on this call's stream belongs to this call.
    const log = method === "notifications/message" ? logFromMcp(params) : undefined;
    if (log) return void listen(this.#onLog, log);
    if (method !== "notifications/progress" || params.progressToken !== this.#requestId) return;
    if (typeof params.progress !== "number") return;
    this.#timer.arm();
    const update: ToolProgress = { progress: params.progress };
    if (typeof params.total === "number") update.total = params.total;
    if (typeof params.message === "string") update.message = params.message;
    listen(this.#onProgress, update);
  }

  // Returns the reply to send now, or nothing when the caller will answer.
  #onRequest(message: JsonRpcRequest): JsonRpcMessage | undefined {
    const context = { toolName: this.#name, callId: this.#callId };
    const outcome = handleServerRequest(message, this.#plan, context);
    if (outcome.type === "reply") return outcome.message;
    const { request } = outcome;
    // Hint: one question at a time; the caller answers the pending one first.
    if (this.#pending || this.#events.some((event) => event.type === "ask")) {
      return replyToServer(request, message.id, { type: "decline", id: request.id });
    }
    this.#emit({ type: "ask", request, questionId: message.id });
    return undefined;
  }

  #reply(message: JsonRpcMessage): void {
    this.#session
      .send(message, { signal: this.#controller.signal, label: this.#name })
      .catch((error: unknown) => this.#emit({ type: "failed", error }));
  }

  async #cancel(reason: string | undefined): Promise<ToolError> {
    const error = new ToolError(
      reason === undefined
        ? { type: "cancelled", tool: this.#name }
        : { type: "cancelled", tool: this.#name, reason },
    );
    const live = this.#state === "running" || this.#state === "pending";
    if (this.#state !== "finished") this.#fail(error);
    if (live && this.#requestId !== undefined) {
      await this.#session.cancelRequest(this.#requestId, reason, this.#name);
    }
    return error;
  }

  #expire(): void {
    if (this.#state !== "running" || this.#requestId === undefined) return;
    const timeoutMs = this.#plan.timeoutMs;
    this.#fail(new ToolError({ type: "timeout", tool: this.#name, timeoutMs }));
    void this.#session.cancelRequest(
      this.#requestId,
      `timed out after ${timeoutMs} ms`,
      this.#name,
    );
  }

  #fail(error: ToolError): ToolError {
    this.#state = "finished";
    this.#failure ??= error;
    this.#timer.disarm();
    this.#controller.abort(error);
    this.#waiter?.reject(error);
    this.#waiter = undefined;
    this.#pending = undefined;
    this.#events.length = 0;
    return error;
  }
}

function unsupported(operation: string): ToolError {
  return new ToolError({ type: "unsupported", operation });
}

function listen<T>(listener: ((value: T) => void) | undefined, value: T): void {
  try {
    listener?.(value);
  } catch {
    // Hint: a faulty listener must not break the call it listens to.
  }
}
