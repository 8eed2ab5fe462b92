import type { ToolName } from "../../declaration/tool-name.ts";
import { isToolError, ToolError, unreachable } from "../../errors.ts";
import {
  type CallAnswer,
  type CallEvent,
  CallMachine,
  type CallState,
  type Invoke,
} from "../../execution/call-machine.ts";
import type { ToolProgress } from "../../execution/handler-io.ts";
import type { RemoteTaskHook, RemoteTaskRef } from "../../execution/remote-task-hook.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import type { Observation } from "../../observer.ts";
import { excerpt } from "../../redaction.ts";
import {
  JSON_RPC_ERROR,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
} from "../json-rpc.ts";
import {
  type McpSession,
  protocolError,
  reportedRpcError,
  rpcErrorOf,
  type ServerMessage,
  withDeadline,
} from "./mcp-session.ts";
import type { FollowedTask, TaskHost } from "./remote-task.ts";
import {
  createIdleTimer,
  type IdleTimer,
  logFromMcp,
  type RemoteCallPlan,
  resultFromMcp,
  TASKS_EXTENSION,
} from "./remote-tool.ts";
import {
  handleInputRequest,
  handleServerRequest,
  inputResponseFor,
  replyToServer,
  type ServerRequestFlags,
} from "./server-request.ts";

// What a pending interaction answers: the server's request (2025), or the `inputRequests` key
// of an `input_required` result (2026-07-28).
type Question =
  | { request: ToolInteractionRequest; id: JsonRpcRequest["id"] }
  | { request: ToolInteractionRequest; key: string };

// One `input_required` round: how many questions are still open, the answers so far, the state
// to echo.
interface Round {
  waiting: number;
  answers: Record<string, unknown>;
  requestState: string | undefined;
}

// A server that keeps answering `input_required` must not keep the call going forever.
const MAX_INPUT_ROUNDS = 10;

// How long a 2025 server should keep a task this client asked for: an hour.
const TASK_TTL_MS = 3_600_000;

// What a 2026 call declares on its requests: it takes a task handle as an answer.
const TASK_CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} } };

// Following a task is loaded on the first task handle (design.md, "Bundles and cold start").
let taskModule: Promise<typeof import("./remote-task.ts")> | undefined;

/**
 * The remote handler: one `tools/call` on an MCP server, on the same call machine as a local
 * handler (ready → running ⇄ pending → finished; see `docs/design.md`, "The call state
 * machine"). Progress notifications reach `onProgress`, log messages on the call's stream reach
 * `onLog`, `elicitation/create` on it becomes a form interaction and `sampling/createMessage` a
 * sampling interaction (each when enabled), and `cancel` (or the idle deadline) sends
 * `notifications/cancelled` upstream before aborting the request. In 2026-07-28 the questions
 * come as an `input_required` result instead; once each is answered the call is sent again
 * with a new id, the answers in `inputResponses` and the server's `requestState` as it came,
 * at most 10 rounds; aborting the request is the cancel. A call the server runs as a task (a
 * 2026 task handle, or a 2025 task-only tool's task-augmented call) is followed to its end by
 * `remote-task.ts`, loaded then, and cancelled with `tasks/cancel`.
 */
export class RemoteHandler extends CallMachine<Question> {
  protected readonly toolName: ToolName;
  readonly #session: McpSession;
  readonly #plan: RemoteCallPlan;
  readonly #controller = new AbortController();
  readonly #timer: IdleTimer;
  #requestId: number | undefined;
  #callId: string | undefined;
  // The operation the call runs inside (the agent's tool call), parent of its requests.
  #observation: Observation | undefined;
  #arguments: unknown;
  #round: Round | undefined;
  #rounds = 0;
  // The `inputRequests` keys the caller declined in the last round.
  #declined = new Set<string>();
  // What this call takes from the server: with 2026-07-28 a call whose caller answers
  // (`onInteraction`) declares form questions on its own requests, whatever `formInteractions`.
  #flags: ServerRequestFlags;
  // Where the host keeps a task this call becomes (`CallOptions["~task"]`).
  #hook: RemoteTaskHook | undefined;
  // Once the call is a task: the idle deadline gives way to each task request's own.
  #tasking = false;
  #task: FollowedTask | undefined;

  /**
   * Creates a handler in the ready state.
   *
   * @param session The client session.
   * @param plan The tool's declaration, native name, compiled checks and deadline.
   */
  constructor(session: McpSession, plan: RemoteCallPlan) {
    super();
    this.#session = session;
    this.#plan = plan;
    this.toolName = plan.tool.info.name;
    this.formValidator = plan.jsonSchemaValidator;
    this.#timer = createIdleTimer(plan.timeoutMs, () => this.#expire());
    this.#flags = plan;
  }

  // Arguments that fail the check end the call here; nothing reaches the server.
  protected start(input: Invoke, callId: string | undefined): void {
    this.#observation = input["~observation"];
    try {
      this.#arguments = this.#plan.checkArguments(input.arguments);
    } catch (error) {
      throw this.#session.scrubError(error);
    }
    this.#callId = callId;
    this.#hook = input["~task"];
    if (this.#session.modern && this.answers && !this.#plan.formInteractions) {
      const { samplingInteractions, rootsInteractions, maxSchemaDepth } = this.#plan;
      this.#flags = {
        formInteractions: true,
        samplingInteractions,
        rootsInteractions,
        maxSchemaDepth,
      };
    }
    const resume = this.#hook?.resume;
    // An earlier run of this call left a task: follow it rather than call the tool again.
    if (resume) this.#resume(resume);
    else this.#send({});
  }

  #resume(ref: RemoteTaskRef): void {
    const protocol = this.#session.modern ? "2026-07-28" : "2025-11-25";
    if (ref.origin !== this.#session.origin || ref.protocol !== protocol) {
      const message = `${this.toolName}: the task to resume was started on ${ref.origin} (${ref.protocol}), not on this connection (${this.#session.origin}, ${protocol})`;
      throw new ToolError({ type: "protocol", message });
    }
    this.#followTask(undefined, ref);
  }

  // A task handle (or a task to resume): from now on the call follows the task
  // (`remote-task.ts`, loaded now); the MRTR round, if any, is over and its keys are not
  // carried over, and the idle deadline gives way to each task request's own.
  #followTask(created: Record<string, unknown> | undefined, resume?: RemoteTaskRef): void {
    this.#round = undefined;
    this.#tasking = true;
    this.#timer.disarm();
    const session = this.#session;
    const tool = this.toolName;
    const { timeoutMs } = this.#plan;
    const signal = this.#controller.signal;
    const capabilities = session.modern ? TASK_CAPABILITIES : undefined;
    const host: TaskHost = {
      toolName: tool,
      modern: session.modern,
      origin: session.origin,
      signal,
      hook: this.#hook,
      request: (method, params, onMessage) =>
        withDeadline(
          tool,
          timeoutMs,
          (inner) =>
            session.request(session.newRequestId(), method, params, {
              signal: inner,
              label: tool,
              parent: this.#observation,
              ...(capabilities ? { capabilities } : {}),
              ...(onMessage ? { onMessage: (message) => this.#onServerMessage(message) } : {}),
            }),
          signal,
        ),
      cancel: (taskId) => void session.cancelTask(taskId, tool, capabilities),
      input: (entry) =>
        handleInputRequest(entry, this.#flags, { toolName: tool, callId: this.#callId }),
      transient: (error) => isToolError(error, "transport") || isToolError(error, "timeout"),
      unknown: (error) => rpcErrorOf(error)?.code === JSON_RPC_ERROR.invalidParams,
      protocol: protocolError,
      cancelled: (reason) => new ToolError({ type: "cancelled", tool, reason }),
      rpcError: (error) => reportedRpcError(`${tool} (task)`, error, session.secrets),
      scrub: (value) => session.scrubValue(value),
      shown: (text, max) => JSON.stringify(excerpt(text, session.secrets, max)),
      ask: (request, key) => this.emit({ type: "ask", request, question: { request, key } }),
      done: (result) =>
        this.emit({
          type: "done",
          result: this.#plan.checkResult(resultFromMcp(result, tool)),
        }),
      fail: (error) => this.emit({ type: "failed", error }),
      log: (entry) => this.log(entry),
    };
    taskModule ??= import("./remote-task.ts");
    void taskModule
      .then(({ followTask }) => {
        this.#task = followTask(host, created, resume);
      })
      .catch((error: unknown) => this.emit({ type: "failed", error }));
  }

  // Every failure the call reports is scrubbed of the client's credentials, whoever built it
  // (the server's texts reach errors through the result checks and the input requests too),
  // and so is a result that echoes one: the model and the run's events read it.
  protected override emit(event: CallEvent<Question>): void {
    if (event.type === "failed") {
      super.emit({ type: "failed", error: this.#session.scrubError(event.error) });
    } else if (event.type === "done") {
      super.emit({ type: "done", result: this.#session.scrubEchoes(event.result) });
    } else {
      super.emit(event);
    }
  }

  // One `tools/call` request; a retry of an `input_required` round carries its answers.
  #send(retry: { inputResponses?: Record<string, unknown>; requestState?: string }): void {
    const id = this.#session.newRequestId();
    this.#requestId = id;
    const modern = this.#session.modern;
    // 2025: a task-only tool is called as a task, when the server takes task-augmented calls.
    const augmented = !modern && this.#plan.taskCalls && this.#plan.tool.taskOnly === true;
    const params = {
      name: this.#plan.tool.nativeName,
      arguments: this.#arguments,
      ...retry,
      ...(augmented ? { task: { ttl: TASK_TTL_MS } } : {}),
      // Always ask for progress, so a long call can keep its idle deadline alive (a 2025
      // task's progress token holds for the task's life).
      _meta: { progressToken: id },
    };
    const form = this.#flags.formInteractions ? { elicitation: { form: {} } } : {};
    const options = {
      signal: this.#controller.signal,
      label: this.toolName,
      onMessage: (message: ServerMessage) => this.#onServerMessage(message),
      headers: this.#session.modern ? this.#plan.paramHeaders(this.#arguments) : {},
      // Declared per request: the connection's envelope has form questions only with
      // `formInteractions`, and never the Tasks extension, which only a call's requests need.
      // A handle still on its way when the call is aborted is read, to cancel its task.
      ...(modern ? { capabilities: { ...form, ...TASK_CAPABILITIES }, lateAnswer: true } : {}),
      // A step-up sign-in is the user's time, not the server's.
      deadline: { pause: () => this.#timer.disarm(), resume: () => this.#timer.arm() },
      parent: this.#observation,
    };
    this.#session
      .request(id, "tools/call", params, options)
      .then((result) => {
        // Stopped while the answer was on its way (`lateAnswer`): only a task handle still
        // matters, followed just to be cancelled (`followTask` sees the abort).
        if (this.#controller.signal.aborted && result.resultType !== "task") return;
        if (result.resultType === "input_required") return this.#inputRequired(result);
        if (result.resultType === "task" || (augmented && result.task !== undefined)) {
          return this.#followTask(result);
        }
        this.emit({
          type: "done",
          result: this.#plan.checkResult(resultFromMcp(result, this.toolName)),
        });
      })
      .catch((error: unknown) => this.emit({ type: "failed", error }));
  }

  // A 2026-07-28 `input_required` result: each entry of `inputRequests` is answered at once or
  // asked of the caller, all of them together; with every answer in, the call goes again.
  #inputRequired(result: Record<string, unknown>): void {
    const { inputRequests, requestState } = result;
    const fail = (message: string): void => {
      this.emit({ type: "failed", error: new ToolError({ type: "protocol", message }) });
    };
    const tool = this.toolName;
    if (++this.#rounds > MAX_INPUT_ROUNDS) {
      fail(`\`${tool}\` still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
      return;
    }
    // Scrubbed like a 2025 server's requests on the stream: their prompts reach the caller.
    const requests = this.#session.scrubValue(inputRequests ?? {});
    if (typeof requests !== "object" || requests === null || Array.isArray(requests)) {
      fail(`\`${tool}\` returned \`inputRequests\` that is not an object`);
      return;
    }
    if (requestState !== undefined && typeof requestState !== "string") {
      fail(`\`${tool}\` returned a non-string \`requestState\``);
      return;
    }
    if (inputRequests === undefined && requestState === undefined) {
      fail(`\`${tool}\` returned input_required with neither inputRequests nor requestState`);
      return;
    }
    // A server that asks again what the caller just declined would ask forever (the SDK v2
    // docs' `acceptedContent(...)?.confirm !== true` re-asks on decline); the decline stands.
    const again = Object.keys(requests).find((key) => this.#declined.has(key));
    if (again !== undefined) {
      const key = JSON.stringify(this.#session.scrub(again)).slice(0, 60);
      const reason = `the server asked ${key} again after the caller declined it`;
      return void this.emit({
        type: "failed",
        error: new ToolError({ type: "interaction_declined", tool, reason }),
      });
    }
    this.#declined = new Set();
    const round: Round = { waiting: 0, answers: {}, requestState };
    const context = { toolName: tool, callId: this.#callId };
    const questions: { request: ToolInteractionRequest; key: string }[] = [];
    for (const [key, entry] of Object.entries(requests)) {
      const outcome = handleInputRequest(entry, this.#flags, context);
      if (outcome.type === "fail") return void this.emit({ type: "failed", error: outcome.error });
      if (outcome.type === "answer") round.answers[key] = outcome.value;
      else questions.push({ key, request: outcome.request });
    }
    round.waiting = questions.length;
    this.#round = round;
    if (questions.length === 0) return void this.#retry();
    for (const question of questions) {
      this.emit({ type: "ask", request: question.request, question });
    }
  }

  #retry(): void {
    const round = this.#round as Round;
    this.#round = undefined;
    const retry: { inputResponses?: Record<string, unknown>; requestState?: string } = {};
    if (Object.keys(round.answers).length > 0) retry.inputResponses = round.answers;
    if (round.requestState !== undefined) retry.requestState = round.requestState;
    this.#send(retry);
  }

  protected async deliver(question: Question, answer: CallAnswer): Promise<void> {
    if ("key" in question) return this.#deliverInput(question, answer);
    // A question whose own schema is broken is declined: the server asked something unanswerable.
    const response =
      "response" in answer
        ? answer.response
        : ({ type: "decline", id: question.request.id } satisfies ToolInteractionResponse);
    await this.#session.send(replyToServer(question.request, question.id, response), {
      signal: this.#controller.signal,
      label: this.toolName,
    });
  }

  // A 2026 answer is kept for the retry; a cancel needs nothing, the machine stops the call.
  #deliverInput(question: { request: ToolInteractionRequest; key: string }, answer: CallAnswer) {
    const response =
      "response" in answer
        ? answer.response
        : ({ type: "decline", id: question.request.id } satisfies ToolInteractionResponse);
    if (this.#task) return this.#answerTask(this.#task, question, response);
    if (response.type === "cancel" || !this.#round) return;
    if (response.type === "decline") this.#declined.add(question.key);
    const value = inputResponseFor(question.request, response);
    if (value instanceof ToolError) return void this.emit({ type: "failed", error: value });
    this.#round.answers[question.key] = value;
    if (--this.#round.waiting === 0) this.#retry();
  }

  // A task's question is answered by `tasks/update`, a declined or cancelled form too (the
  // server learns the caller's choice; a cancel then cancels the call and its task).
  async #answerTask(
    task: FollowedTask,
    question: { request: ToolInteractionRequest; key: string },
    response: ToolInteractionResponse,
  ): Promise<void> {
    const value = inputResponseFor(question.request, response);
    if (value instanceof ToolError) return void this.emit({ type: "failed", error: value });
    await task.answer(question.key, value);
  }

  protected abort(error: ToolError): void {
    this.#timer.disarm();
    this.#controller.abort(error);
  }

  protected override async cancelled(reason: string | undefined): Promise<void> {
    // A task is cancelled by `tasks/cancel`, which the abort already sent (`remote-task.ts`).
    if (this.#requestId === undefined || this.#tasking) return;
    await this.#session.cancelRequest(this.#requestId, reason, this.toolName);
  }

  protected override entered(state: CallState): void {
    if (state === "running" && !this.#tasking) this.#timer.arm();
    else this.#timer.disarm();
  }

  #onServerMessage(message: ServerMessage): void {
    if (this.state === "finished") return;
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
    // A log message on this call's stream belongs to this call.
    const log = method === "notifications/message" ? logFromMcp(params) : undefined;
    if (log) return void this.log(log);
    if (method !== "notifications/progress" || params.progressToken !== this.#requestId) return;
    if (typeof params.progress !== "number") return;
    this.#timer.arm();
    const update: ToolProgress = { progress: params.progress };
    if (typeof params.total === "number") update.total = params.total;
    if (typeof params.message === "string") update.message = params.message;
    this.progress(update);
  }

  // Returns the reply to send now, or nothing when the caller will answer.
  #onRequest(message: JsonRpcRequest): JsonRpcMessage | undefined {
    const context = { toolName: this.toolName, callId: this.#callId };
    const outcome = handleServerRequest(message, this.#plan, context);
    if (outcome.type === "reply") return outcome.message;
    const { request } = outcome;
    // Questions the server asks concurrently are all open at once, as a local tool's are.
    this.emit({ type: "ask", request, question: { request, id: message.id } });
    return undefined;
  }

  #reply(message: JsonRpcMessage): void {
    this.#session
      .reply(message, { signal: this.#controller.signal, label: this.toolName })
      .catch((error: unknown) => this.emit({ type: "failed", error }));
  }

  #expire(): void {
    if (this.state !== "running" || this.#requestId === undefined || this.#tasking) return;
    const timeoutMs = this.#plan.timeoutMs;
    this.stop(new ToolError({ type: "timeout", tool: this.toolName, timeoutMs }));
    void this.#session.cancelRequest(
      this.#requestId,
      `timed out after ${timeoutMs} ms`,
      this.toolName,
    );
  }
}
