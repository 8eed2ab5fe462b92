// The AI SDK's UI as a front end: a `ChatTransport` that runs an in-page toolwire `Agent` for
// `useChat` (any of its frameworks) and answers in the UI message stream format. Nothing here
// imports the AI SDK or the agent's code (types only), so the transport adds only itself to a
// bundle; the agent is the app's, built by the factory it passes.

import type { Agent } from "../agent/agent.ts";
import type { AgentEvent } from "../agent/events.ts";
import type { ApprovalDecision, Approver } from "../agent/gates.ts";
import type { RunResult, StopCause } from "../agent/run-result.ts";
import type { Conversation } from "../compaction/conversation.ts";
import { ToolError } from "../errors.ts";
import { newInteractionId } from "../interaction/interaction-request.ts";
import type { Block, Message } from "../models/message.ts";
import { toolContentText } from "../models/tool-content-text.ts";
import { isJsonObject } from "../schema/is-json-object.ts";

/**
 * A UI message as `useChat` holds it (the AI SDK's `UIMessage`, read structurally): the
 * transport reads user text, assistant text and tool parts, and the approval answers.
 */
export interface AgentChatMessage {
  id: string;
  role: "system" | "user" | "assistant";
  parts: readonly unknown[];
}

/**
 * One chunk of the AI SDK's UI message stream, as this transport writes them (a subset of the
 * AI SDK's `UIMessageChunk`, in its shapes).
 */
export type AgentChatChunk =
  | { type: "start"; messageId?: string }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | { type: "tool-input-start"; toolCallId: string; toolName: string }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string }
  | { type: "tool-output-available"; toolCallId: string; output: unknown }
  | { type: "tool-output-error"; toolCallId: string; errorText: string }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: "error"; errorText: string }
  | { type: "abort" }
  | { type: "finish"; finishReason?: "stop" | "length" | "content-filter" | "other" };

/** What `sendMessages` is given (the AI SDK's `ChatTransport` options, read structurally). */
export interface AgentChatSendOptions {
  trigger: "submit-message" | "regenerate-message";
  chatId: string;
  messageId: string | undefined;
  messages: readonly AgentChatMessage[];
  abortSignal: AbortSignal | undefined;
}

/** Options of `agentChatTransport`. */
export interface AgentChatTransportOptions {
  /**
   * Builds the agent the chat drives, once. Pass the given `approver` as the agent's `approver`
   * to put each call that needs approval to the chat (a `tool-approval-request` part, answered
   * with `addToolApprovalResponse`); an agent with its own approver never asks the chat.
   */
  agent: (approver: Approver) => Agent;
}

/**
 * A `ChatTransport` for the AI SDK's `useChat` / `Chat` that runs a toolwire agent in the page.
 * It is structurally the AI SDK's `ChatTransport` (pass it as `transport`), without naming the
 * AI SDK's types.
 */
export interface AgentChatTransport {
  /** The agent the factory built: listen to its events, or run it directly. */
  readonly agent: Agent;
  /**
   * Answers the last user message with a run of the agent (continuing the run that produced
   * the chat's previous answer), or, when the last message is the assistant's with the answer
   * to the approval the run waits on, continues that run. Aborting `abortSignal` (`stop()`)
   * cancels the run, its model stream and its running tools.
   *
   * @throws ToolError `invalid_configuration` when there is no user message to answer and no
   *   approval answer for a waiting run.
   */
  sendMessages(options: AgentChatSendOptions): Promise<ReadableStream<AgentChatChunk>>;
  /** Always `null`: an in-page run has no stream to reconnect to after a reload. */
  reconnectToStream(options: { chatId: string }): Promise<null>;
}

/** A run that answers one assistant message, over one or more streams. */
interface Live {
  readonly messageId: string;
  readonly controller: AbortController;
  readonly events: ReadableStreamDefaultReader<AgentEvent>;
  readonly result: Promise<RunResult>;
  /** The call the run waits on an approval for, while the chat decides. */
  waiting: string | undefined;
  /** Calls the chat denied: their refusal is `tool-output-denied`, not an error. */
  readonly denied: Set<string>;
  /** Calls whose `tool-input-start` went out. */
  readonly started: Set<string>;
  text: string | undefined;
  reasoning: string | undefined;
  step: boolean;
  parts: number;
}

/**
 * Creates a `ChatTransport` for the AI SDK's `useChat` (React, Vue, Svelte, Angular) or `Chat`
 * that drives an in-page toolwire agent: text, reasoning and tool calls stream as UI message
 * parts (tool arguments as they are written), a call that needs approval becomes a
 * `tool-approval-request` the user answers with `addToolApprovalResponse`, and `stop()` cancels
 * the run. Give the chat `sendAutomaticallyWhen: approvalAnswered` so an answer resumes the run.
 *
 * The agent keeps the chat's conversation (compaction included) between messages; a history it
 * did not produce (a regenerated or edited answer, messages restored after a reload) is rebuilt
 * from the messages' text and tool parts.
 *
 * @example
 * ```ts
 * const transport = agentChatTransport({
 *   agent: (approver) => new Agent({ model, tools, approver }),
 * });
 * const chat = useChat({ transport, sendAutomaticallyWhen: approvalAnswered });
 * ```
 */
export function agentChatTransport(options: AgentChatTransportOptions): AgentChatTransport {
  const waiting = new Map<string, (decision: ApprovalDecision) => void>();
  const approver: Approver = (request, signal) =>
    new Promise((resolve) => {
      waiting.set(request.callId, resolve);
      signal.addEventListener("abort", () => waiting.delete(request.callId), { once: true });
    });
  const agent = options.agent(approver);
  const live = new Map<string, Live>();
  // The conversation after each chat's last answer, keyed by chat, with that answer's id.
  const saved = new Map<string, { messageId: string; conversation: Conversation }>();

  const settle = (chatId: string, run: Live, result: RunResult) => {
    if (live.get(chatId) === run) live.delete(chatId);
    saved.set(chatId, { messageId: run.messageId, conversation: result.conversation });
  };

  const stream = (chatId: string, run: Live, first: AgentChatChunk, signal?: AbortSignal) => {
    signal?.addEventListener("abort", () => run.controller.abort(signal.reason), { once: true });
    return new ReadableStream<AgentChatChunk>({
      start(controller) {
        controller.enqueue(first);
      },
      async pull(controller) {
        const { done, value } = await run.events.read();
        if (done) return controller.close();
        const chunks: AgentChatChunk[] = [];
        const end = translate(run, value, chunks, waiting);
        for (const chunk of chunks) controller.enqueue(chunk);
        if (value.type === "done") settle(chatId, run, value.result);
        if (end) controller.close();
      },
      cancel(reason) {
        run.controller.abort(reason);
      },
    });
  };

  return {
    agent,
    async sendMessages({ chatId, messages, abortSignal }) {
      const last = messages[messages.length - 1];
      const current = live.get(chatId);
      if (current) {
        const decision = current.waiting && last && answerIn(last, current.waiting);
        const resolve = current.waiting && waiting.get(current.waiting);
        if (decision && resolve && current.waiting) {
          if (decision.type === "deny") current.denied.add(current.waiting);
          waiting.delete(current.waiting);
          current.waiting = undefined;
          resolve(decision);
          return stream(chatId, current, { type: "start" }, abortSignal);
        }
        // A new message while a run waits on an approval: that run ends (cancelled) first.
        current.controller.abort("a new message was sent");
        while (!(await current.events.read()).done) {}
        settle(chatId, current, await current.result);
      }
      if (last?.role !== "user") {
        throw new ToolError({
          type: "invalid_configuration",
          message:
            "sendMessages: no user message to answer and no approval answer for a waiting run",
        });
      }
      const before = messages.slice(0, -1);
      const previous = saved.get(chatId);
      const answered = [...before].reverse().find((message) => message.role === "assistant");
      const controller = new AbortController();
      const input = textOf(last);
      const run =
        previous && answered?.id === previous.messageId
          ? agent.run(input, { signal: controller.signal, conversation: previous.conversation })
          : agent.run([...transcriptOf(before), userMessage(input)], { signal: controller.signal });
      const messageId = newInteractionId();
      const state: Live = {
        messageId,
        controller,
        events: run.events.getReader(),
        result: run.result,
        denied: new Set(),
        started: new Set(),
        waiting: undefined,
        text: undefined,
        reasoning: undefined,
        step: false,
        parts: 0,
      };
      live.set(chatId, state);
      return stream(chatId, state, { type: "start", messageId }, abortSignal);
    },
    async reconnectToStream() {
      return null;
    },
  };
}

/**
 * A `sendAutomaticallyWhen` for the chat: the last message is the assistant's, it holds an
 * approval answer and no approval still waits, so the run can go on. Unlike the AI SDK's
 * `lastAssistantMessageIsCompleteWithApprovalResponses`, it does not wait for the other calls
 * of the turn, which the agent asks about, and runs, only after this one.
 */
export function approvalAnswered({ messages }: { messages: readonly AgentChatMessage[] }): boolean {
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant") return false;
  const states = last.parts.map((part) => (isJsonObject(part) ? part.state : undefined));
  return states.includes("approval-responded") && !states.includes("approval-requested");
}

/** Writes the chunks of one agent event; true when the stream ends after them. */
function translate(
  run: Live,
  event: AgentEvent,
  out: AgentChatChunk[],
  waiting: ReadonlyMap<string, unknown>,
): boolean {
  const id = () => `${run.messageId}-${run.parts++}`;
  const closeText = () => {
    if (run.text) out.push({ type: "text-end", id: run.text });
    run.text = undefined;
  };
  const closeReasoning = () => {
    if (run.reasoning) out.push({ type: "reasoning-end", id: run.reasoning });
    run.reasoning = undefined;
  };
  switch (event.type) {
    case "turn_start":
      closeText();
      closeReasoning();
      if (run.step) out.push({ type: "finish-step" });
      out.push({ type: "start-step" });
      run.step = true;
      return false;
    case "text_delta":
      closeReasoning();
      if (!run.text) {
        run.text = id();
        out.push({ type: "text-start", id: run.text });
      }
      out.push({ type: "text-delta", id: run.text, delta: event.text });
      return false;
    case "reasoning_delta":
      closeText();
      if (!run.reasoning) {
        run.reasoning = id();
        out.push({ type: "reasoning-start", id: run.reasoning });
      }
      out.push({ type: "reasoning-delta", id: run.reasoning, delta: event.text });
      return false;
    case "tool_input_delta":
      closeText();
      closeReasoning();
      if (!run.started.has(event.callId)) {
        run.started.add(event.callId);
        out.push({ type: "tool-input-start", toolCallId: event.callId, toolName: event.toolName });
      }
      out.push({ type: "tool-input-delta", toolCallId: event.callId, inputTextDelta: event.text });
      return false;
    case "tool_call":
      closeText();
      closeReasoning();
      out.push({
        type: "tool-input-available",
        toolCallId: event.callId,
        toolName: event.toolName,
        input: event.arguments,
      });
      return false;
    case "approval_requested":
      // Only the transport's own approver waits on the chat; the agent calls it right after
      // this event, so it is waiting by the time the event is read.
      if (!waiting.has(event.callId)) return false;
      run.waiting = event.callId;
      out.push({
        type: "tool-approval-request",
        approvalId: event.callId,
        toolCallId: event.callId,
      });
      out.push({ type: "finish" });
      return true;
    case "tool_result": {
      const text = event.content.map(toolContentText).join("\n");
      if (event.outcome === "refused" && run.denied.has(event.callId)) {
        out.push({ type: "tool-output-denied", toolCallId: event.callId });
      } else if (event.outcome === "executed" && !event.isError) {
        out.push({ type: "tool-output-available", toolCallId: event.callId, output: text });
      } else {
        out.push({ type: "tool-output-error", toolCallId: event.callId, errorText: text });
      }
      return false;
    }
    case "error":
      out.push({ type: "error", errorText: event.message });
      return false;
    case "done": {
      closeText();
      closeReasoning();
      if (run.step) out.push({ type: "finish-step" });
      const stop = event.result.stop;
      out.push(
        stop === "cancelled"
          ? { type: "abort" }
          : { type: "finish", finishReason: finishReason(stop) },
      );
      return true;
    }
    default:
      // Retries, usage, approvals resolved, questions, progress and compactions have no part.
      return false;
  }
}

function finishReason(stop: StopCause): "stop" | "length" | "content-filter" | "other" {
  if (stop === "done") return "stop";
  if (stop === "length") return "length";
  if (stop === "content_filter") return "content-filter";
  return "other";
}

/** The decision in an assistant message's answer to the approval of `callId`, if any. */
function answerIn(message: AgentChatMessage, callId: string): ApprovalDecision | undefined {
  if (message.role !== "assistant") return undefined;
  for (const part of message.parts) {
    if (!isJsonObject(part) || part.toolCallId !== callId || part.state !== "approval-responded")
      continue;
    const approval = isJsonObject(part.approval) ? part.approval : {};
    if (approval.approved === true) return { type: "allow" };
    const reason = typeof approval.reason === "string" && approval.reason ? approval.reason : "no";
    return { type: "deny", reason };
  }
  return undefined;
}

function textOf(message: AgentChatMessage): string {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (isJsonObject(part) && part.type === "text" && typeof part.text === "string")
      texts.push(part.text);
  }
  return texts.join("\n");
}

function userMessage(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

/**
 * Rebuilds a transcript from UI messages the agent did not produce here: user text, and each
 * assistant step's text and finished tool calls (their results in the user message after it).
 */
function transcriptOf(messages: readonly AgentChatMessage[]): Message[] {
  const transcript: Message[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      transcript.push(userMessage(textOf(message)));
      continue;
    }
    if (message.role !== "assistant") continue;
    let said: Block[] = [];
    let results: Block[] = [];
    const flush = () => {
      if (said.length > 0) transcript.push({ role: "assistant", content: said });
      if (results.length > 0) transcript.push({ role: "user", content: results });
      said = [];
      results = [];
    };
    for (const part of message.parts) {
      if (!isJsonObject(part)) continue;
      if (part.type === "step-start") flush();
      else if (part.type === "text" && typeof part.text === "string")
        said.push({ type: "text", text: part.text });
      else if (typeof part.toolCallId === "string") {
        const output = toolOutput(part);
        if (output === undefined) continue;
        const name = typeof part.toolName === "string" ? part.toolName : String(part.type).slice(5);
        said.push({ type: "tool_use", id: part.toolCallId, name, input: part.input });
        results.push({
          type: "tool_result",
          toolUseId: part.toolCallId,
          content: [{ type: "text", text: output.text }],
          isError: output.isError,
        });
      }
    }
    flush();
  }
  return transcript;
}

/** A tool part's finished result, as text; `undefined` for a call that did not finish. */
function toolOutput(part: Record<string, unknown>): { text: string; isError: boolean } | undefined {
  if (part.state === "output-available") {
    const output = part.output;
    return {
      text: typeof output === "string" ? output : (JSON.stringify(output) ?? ""),
      isError: false,
    };
  }
  if (part.state === "output-error") return { text: String(part.errorText ?? ""), isError: true };
  if (part.state === "output-denied") return { text: "Denied by the user", isError: true };
  return undefined;
}
