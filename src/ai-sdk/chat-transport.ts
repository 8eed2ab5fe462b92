// The AI SDK's UI as a front end: a `ChatTransport` that runs an in-page toolwire `Agent` for
// `useChat` (any of its frameworks) and answers in the UI message stream format. Nothing here
// imports the AI SDK or the agent's code (types only), so the transport adds only itself to a
// bundle; the agent is the app's, built by the factory it passes.

import type { Agent } from "../agent/agent.ts";
import type { InteractionAnswerer } from "../agent/calls.ts";
import type { AgentEvent } from "../agent/events.ts";
import type { ApprovalDecision, Approver } from "../agent/gates.ts";
import type { AgentRun } from "../agent/run.ts";
import type { RunResult, StopCause } from "../agent/run-result.ts";
import type { Conversation } from "../compaction/conversation.ts";
import { ToolError } from "../errors.ts";
import type { ToolProgress } from "../execution/handler-io.ts";
import {
  newInteractionId,
  type ToolInteractionRequest,
} from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
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
  /** The message's metadata; the transport's own is `AgentChatMetadata`. */
  metadata?: unknown;
}

/**
 * The data of a `data-tool-progress` part: the latest progress a running tool reported. One
 * part per call (its `id` is the call id), updated in place.
 */
export interface AgentChatProgress extends ToolProgress {
  toolCallId: string;
}

/**
 * The data of a `data-tool-question` part: a question a running tool asks the person, answered
 * with `transport.answer` or `transport.decline`. One part per call (its `id` is the call id),
 * updated in place to `answered` or `declined` when the person replies.
 */
export interface AgentChatQuestion {
  toolCallId: string;
  toolName: string;
  request: ToolInteractionRequest;
  state: "asked" | "answered" | "declined";
}

/**
 * The metadata of an assistant message the transport wrote (the AI SDK's `message.metadata`):
 * the id the run is kept under in the agent's `snapshots.store`, when it has one. An app that
 * saves the chat's messages keeps it, so an approval answered after a reload resumes that run.
 */
export interface AgentChatMetadata {
  toolwireRunId?: string;
}

/**
 * One chunk of the AI SDK's UI message stream, as this transport writes them (a subset of the
 * AI SDK's `UIMessageChunk`, in its shapes; progress and questions are data parts).
 */
export type AgentChatChunk =
  | { type: "start"; messageId?: string; messageMetadata?: AgentChatMetadata }
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
  | { type: "data-tool-progress"; id: string; data: AgentChatProgress }
  | { type: "data-tool-question"; id: string; data: AgentChatQuestion }
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

/** What the transport hands the agent it builds: the gates through which the chat decides. */
export interface AgentChatGates {
  /**
   * Puts each call that needs approval to the chat: a `tool-approval-request` part, answered
   * with `addToolApprovalResponse`.
   */
  approver: Approver;
  /**
   * Puts each question a running tool asks to the chat: a `data-tool-question` part, answered
   * with `transport.answer` or `transport.decline`.
   */
  onInteraction: InteractionAnswerer;
}

/** Options of `agentChatTransport`. */
export interface AgentChatTransportOptions {
  /**
   * Builds the agent the chat drives, once, with the transport's gates
   * (`(gates) => new Agent({ model, tools, ...gates })`); an agent with its own approver or
   * answerer never asks the chat. With `snapshots` and a `store`, an approval answered after a
   * reload resumes the run it paused (`AgentChatMetadata`).
   */
  agent: (gates: AgentChatGates) => Agent;
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
  /**
   * Answers the question a running call asks (its `data-tool-question` part): a string for
   * text, an object for a form. The run, and the chat's stream, go on.
   *
   * @throws ToolError `invalid_interaction` when no question of that call is pending.
   */
  answer(toolCallId: string, content: unknown): void;
  /**
   * Declines the question a running call asks; the tool carries on without the answer.
   *
   * @throws ToolError `invalid_interaction` when no question of that call is pending.
   */
  decline(toolCallId: string, reason?: string): void;
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
  /** The questions put to the chat, by call id, to write their answered state. */
  readonly questions: Map<string, ToolInteractionRequest>;
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
 *   agent: (gates) => new Agent({ model, tools, ...gates }),
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
  // Questions stay in the stream: the chat shows the part while the run waits, and the answer
  // comes straight back through `answer` (the AI SDK has no round trip for a question).
  // By the request's id; the stream names each question's call as it writes its part.
  const asked = new Map<string, (response: ToolInteractionResponse) => void>();
  const callOf = new Map<string, string>();
  const onInteraction: InteractionAnswerer = (request, signal) =>
    new Promise((resolve) => {
      asked.set(request.id, resolve);
      signal.addEventListener(
        "abort",
        () => {
          asked.delete(request.id);
          callOf.delete(request.id);
        },
        { once: true },
      );
    });
  const reply = (callId: string, response: (id: string) => ToolInteractionResponse) => {
    const id = [...callOf].find(([, call]) => call === callId)?.[0];
    const resolve = id === undefined ? undefined : asked.get(id);
    if (id === undefined || !resolve) {
      throw new ToolError({
        type: "invalid_interaction",
        id: callId,
        message: `no question of call \`${callId}\` is pending`,
      });
    }
    asked.delete(id);
    callOf.delete(id);
    resolve(response(id));
  };
  const agent = options.agent({ approver, onInteraction });
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
        const end = translate(run, value, chunks, waiting, callOf);
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
      if (!current && last?.role === "assistant") {
        const resumed = resume(chatId, last, abortSignal);
        if (resumed) return resumed;
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
      const state = open(messageId, controller, run);
      live.set(chatId, state);
      const start: AgentChatChunk = { type: "start", messageId };
      if (run.id !== undefined) start.messageMetadata = { toolwireRunId: run.id };
      return stream(chatId, state, start, abortSignal);
    },
    answer(toolCallId, content) {
      reply(toolCallId, (id) => ({ type: "submit", id, content }));
    },
    decline(toolCallId, reason) {
      reply(toolCallId, (id) =>
        reason === undefined ? { type: "decline", id } : { type: "decline", id, reason },
      );
    },
    async reconnectToStream() {
      return null;
    },
  };

  // An approval answered in a message this page did not stream (the chat's saved messages,
  // after a reload): the run the message's metadata names resumes from the agent's store with
  // that decision, so the call runs at most once whatever happened before.
  function resume(chatId: string, last: AgentChatMessage, signal: AbortSignal | undefined) {
    const runId = isJsonObject(last.metadata) ? last.metadata.toolwireRunId : undefined;
    const decisions = answersIn(last);
    if (typeof runId !== "string" || decisions.size === 0) return undefined;
    const controller = new AbortController();
    const run = agent.resume(runId, {
      signal: controller.signal,
      decisions: Object.fromEntries(decisions),
    });
    const state = open(last.id, controller, run);
    for (const [callId, decision] of decisions) {
      if (decision.type === "deny") state.denied.add(callId);
    }
    live.set(chatId, state);
    return stream(chatId, state, { type: "start" }, signal);
  }
}

function open(messageId: string, controller: AbortController, run: AgentRun): Live {
  return {
    messageId,
    controller,
    events: run.events.getReader(),
    result: run.result,
    denied: new Set(),
    started: new Set(),
    questions: new Map(),
    waiting: undefined,
    text: undefined,
    reasoning: undefined,
    step: false,
    parts: 0,
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
  callOf: Map<string, string>,
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
    case "tool_progress":
      out.push({
        type: "data-tool-progress",
        id: event.callId,
        data: { toolCallId: event.callId, ...event.progress },
      });
      return false;
    case "interaction_requested":
    case "interaction_resolved": {
      // Written whoever answers (the transport's answerer is asked a little after the event,
      // so it may not be waiting yet); `answer` refuses a question it does not hold.
      const requested = event.type === "interaction_requested";
      if (requested) callOf.set(event.request.id, event.callId);
      else callOf.delete(event.response.id);
      if (!requested && !run.questions.has(event.callId)) return false;
      const request = requested ? event.request : run.questions.get(event.callId);
      if (!request) return false;
      run.questions.set(event.callId, request);
      const state = requested
        ? "asked"
        : event.response.type === "submit"
          ? "answered"
          : "declined";
      out.push({
        type: "data-tool-question",
        id: event.callId,
        data: { toolCallId: event.callId, toolName: event.toolName, request, state },
      });
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
      // Retries, usage, approvals resolved and compactions have no part.
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
  return message.role === "assistant" ? answersIn(message).get(callId) : undefined;
}

/** The approval answers in a message whose calls have not run yet, by call id. */
function answersIn(message: AgentChatMessage): Map<string, ApprovalDecision> {
  const answers = new Map<string, ApprovalDecision>();
  for (const part of message.parts) {
    if (!isJsonObject(part) || typeof part.toolCallId !== "string") continue;
    if (part.state !== "approval-responded") continue;
    const approval = isJsonObject(part.approval) ? part.approval : {};
    const reason = typeof approval.reason === "string" && approval.reason ? approval.reason : "no";
    answers.set(
      part.toolCallId,
      approval.approved === true ? { type: "allow" } : { type: "deny", reason },
    );
  }
  return answers;
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
