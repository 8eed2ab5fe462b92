import type { ToolName } from "../../declaration/tool-name.ts";
import { ToolError, unreachable } from "../../errors.ts";
import { type CallAnswer, CallMachine, type CallState } from "../../execution/call-machine.ts";
import type { ToolProgress } from "../../execution/handler-io.ts";
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

// The server's request that a pending interaction answers.
interface Question {
  request: ToolInteractionRequest;
  id: JsonRpcRequest["id"];
}

/**
 * The remote handler: one `tools/call` on an MCP server, on the same call machine as a local
 * handler (ready → running ⇄ pending → finished; see `docs/design.md`, "The call state
 * machine"). Progress notifications reach `onProgress`, log messages on the call's stream reach
 * `onLog`, `elicitation/create` on it becomes a form interaction and `sampling/createMessage` a
 * sampling interaction (each when enabled), and `cancel` (or the idle deadline) sends
 * `notifications/cancelled` upstream before aborting the request.
 */
export class RemoteHandler extends CallMachine<Question> {
  protected readonly toolName: ToolName;
  readonly #session: McpSession;
  readonly #plan: RemoteCallPlan;
  readonly #controller = new AbortController();
  readonly #timer: IdleTimer;
  #requestId: number | undefined;
  #callId: string | undefined;

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
    this.#timer = createIdleTimer(plan.timeoutMs, () => this.#expire());
  }

  // Arguments that fail the check end the call here; nothing reaches the server.
  protected start(args: unknown, callId: string | undefined): void {
    const checked = this.#plan.checkArguments(args);
    this.#callId = callId;
    const id = this.#session.newRequestId();
    this.#requestId = id;
    const params = {
      name: this.#plan.tool.nativeName,
      arguments: checked,
      // Always ask for progress, so a long call can keep its idle deadline alive.
      _meta: { progressToken: id },
    };
    this.#session
      .request(id, "tools/call", params, {
        signal: this.#controller.signal,
        label: this.toolName,
        onMessage: (message) => this.#onServerMessage(message),
      })
      .then((result) =>
        this.emit({
          type: "done",
          result: this.#plan.checkResult(resultFromMcp(result, this.toolName)),
        }),
      )
      .catch((error: unknown) => this.emit({ type: "failed", error }));
  }

  protected async deliver(question: Question, answer: CallAnswer): Promise<void> {
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

  protected abort(error: ToolError): void {
    this.#timer.disarm();
    this.#controller.abort(error);
  }

  protected override async cancelled(reason: string | undefined): Promise<void> {
    if (this.#requestId === undefined) return;
    await this.#session.cancelRequest(this.#requestId, reason, this.toolName);
  }

  protected override entered(state: CallState): void {
    if (state === "running") this.#timer.arm();
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
    // One question at a time; the caller answers the pending one first.
    if (this.asking) {
      return replyToServer(request, message.id, { type: "decline", id: request.id });
    }
    this.emit({ type: "ask", request, question: { request, id: message.id } });
    return undefined;
  }

  #reply(message: JsonRpcMessage): void {
    this.#session
      .send(message, { signal: this.#controller.signal, label: this.toolName })
      .catch((error: unknown) => this.emit({ type: "failed", error }));
  }

  #expire(): void {
    if (this.state !== "running" || this.#requestId === undefined) return;
    const timeoutMs = this.#plan.timeoutMs;
    this.stop(new ToolError({ type: "timeout", tool: this.toolName, timeoutMs }));
    void this.#session.cancelRequest(
      this.#requestId,
      `timed out after ${timeoutMs} ms`,
      this.toolName,
    );
  }
}
