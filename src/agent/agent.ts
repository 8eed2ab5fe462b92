import { EventEmitter } from "eventemitter3";
import { type Conversation, emptyConversation } from "../compaction/conversation.ts";
import type { Tool } from "../local/define-tool.ts";
import type { Message } from "../models/message.ts";
import type { Model } from "../models/model.ts";
import { Toolset } from "../toolset/toolset.ts";
import { type AgentRun, createAgentRun } from "./agent-run.ts";
import { type Approver, modeApprover } from "./approval.ts";
import { checkAgentOptions } from "./check-options.ts";
import { type CompactionSettings, createCompactionStep } from "./compaction-step.ts";
import { type Concurrency, concurrencyCap } from "./concurrency.ts";
import type { AgentEvent, AgentEventMap } from "./events.ts";
import type { InteractionAnswerer } from "./execute-call.ts";
import type { InterlockPolicy } from "./interlock.ts";
import { checkInput, checkSomethingToAnswer, copyConversation } from "./run-input.ts";
import { type LoopSettings, runLoop } from "./run-loop.ts";

/** The default turn limit of a run. */
export const DEFAULT_MAX_TURNS = 40;

/**
 * Agent options interface.
 */
export interface AgentOptions {
  /** The model that drives the loop. */
  model: Model;
  /** Tool sources; when two declare the same name, the later one wins. */
  toolsets?: readonly Toolset[];
  /** Local tools, added after `toolsets` as one `Toolset.local`. */
  tools?: readonly Tool[];
  /** The system prompt. */
  instructions?: string;
  /** Decides calls to tools that are not read-only; default `modeApprover("ask")` (fail closed). */
  approver?: Approver;
  /** Model turns per run before a final tool-less answer is asked for (0: answer at once). Default 40. */
  maxTurns?: number;
  /** How a turn's calls run; default `read-only-parallel`. */
  concurrency?: Concurrency;
  /** Compaction between turns; `false` turns it off, overflow recovery included. */
  compaction?: CompactionSettings | false;
  /** What the interlock does with a sending call in a tainted turn. Default `block`. */
  interlock?: InterlockPolicy;
  /** Whether output of `untrustedInput` tools is wrapped as data for the model. Default true. */
  markUntrustedOutput?: boolean;
  /** Answers a running tool's questions (`ctx.requestText`/`requestForm`); without it they fail. */
  onInteraction?: InteractionAnswerer;
}

/**
 * Agent run options interface.
 */
export interface AgentRunOptions {
  /** Aborting it stops the model stream, the running tools and a pending approval. */
  signal?: AbortSignal;
  /** A saved conversation to continue (for example parsed from JSON); it is not mutated. */
  conversation?: Conversation;
}

/**
 * An agent: a model, its tools and the policies that gate them. Each `run` is independent;
 * every event of every run is also emitted here, under the event's `type`.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [search, save], approver: modeApprover("allow") });
 * agent.on("tool_call", (event) => console.log(event.toolName));
 * const run = agent.run("Find and save the report");
 * for await (const event of run) if (event.type === "text_delta") show(event.text);
 * const { text, stop, conversation } = await run.result;
 * ```
 */
export class Agent extends EventEmitter<AgentEventMap> {
  readonly #settings: LoopSettings;

  /**
   * Creates an agent.
   *
   * @param options The model, tools and policies.
   * @throws ToolError `invalid_configuration` naming the option, for a model without
   *   `stream()`, toolsets that are not `Toolset`s, a `maxTurns` that is not a non-negative
   *   integer, a `concurrency` that is not `sequential`, `read-only-parallel` or a positive
   *   integer, compaction sizes that are not positive numbers (`keepRecent`: a non-negative
   *   integer), or a wrongly typed callback or flag; `duplicate_name` when two local tools share
   *   a name.
   */
  constructor(options: AgentOptions) {
    super();
    checkAgentOptions(options);
    const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
    const toolsets = [...(options.toolsets ?? [])];
    if (options.tools && options.tools.length > 0) toolsets.push(Toolset.local(options.tools));
    const compaction = options.compaction;
    this.#settings = {
      model: options.model,
      toolsets,
      instructions: options.instructions,
      approver: options.approver ?? modeApprover("ask"),
      interlock: options.interlock ?? "block",
      cap: concurrencyCap(options.concurrency ?? "read-only-parallel"),
      maxTurns,
      markUntrustedOutput: options.markUntrustedOutput ?? true,
      onInteraction: options.onInteraction,
      compaction:
        compaction === false
          ? undefined
          : (model) => createCompactionStep(compaction ?? {}, model, toolsets),
    };
  }

  /**
   * Starts a run. It never throws and its `result` never rejects: cancellation, provider
   * failures and a malformed input or conversation (`ToolError` `invalid_configuration`) are
   * stop causes. So is a run with no user message to answer (an empty input on a conversation
   * that has none); `run("", { conversation })` on one that has asks the same turn again.
   *
   * @param input The user's message, or messages to append.
   * @param options The signal and a conversation to continue.
   * @returns The run: events as a stream (or `for await`), and the result.
   */
  run(input: string | readonly Message[], options: AgentRunOptions = {}): AgentRun {
    const { signal } = options;
    let conversation = emptyConversation();
    let invalid: unknown;
    try {
      checkInput(input);
      conversation = copyConversation(options.conversation);
      checkSomethingToAnswer(conversation, input);
    } catch (error) {
      invalid = error;
    }
    const forward = (event: AgentEvent) => {
      try {
        (this.emit as (type: string, event: AgentEvent) => boolean)(event.type, event);
      } catch (error) {
        // Hint: a broken listener must not break the run; report it like EventTarget does.
        queueMicrotask(() => {
          throw error;
        });
      }
    };
    return createAgentRun(async (emit, steering) => {
      // Hint: the loop always has a signal to hand on: the caller's own, used as is (a copy
      // would cost a signal and a listener per run), or one nothing aborts.
      const runSignal = signal ?? new AbortController().signal;
      try {
        // Hint: bad input ends the run like any failure (an `error` event, then `done`), so
        // `run` keeps its promise never to throw, and nothing is sent to the model.
        if (invalid !== undefined) throw invalid;
        return await runLoop(this.#settings, {
          input,
          conversation,
          signal: runSignal,
          emit,
          steering,
        });
      } catch (error) {
        // Hint: the loop reports every failure as a stop cause; this is the net under a bug,
        // so `result` still never rejects and the stream still ends with `done`.
        const message = error instanceof Error ? error.message : String(error);
        emit({ type: "error", error, message });
        const usage = { inputTokens: 0, outputTokens: 0 };
        const result = {
          text: "",
          stop: "error" as const,
          turns: 0,
          usage,
          conversation,
          blockedSends: 0,
          error,
        };
        emit({ type: "done", result });
        return result;
      }
    }, forward);
  }
}
