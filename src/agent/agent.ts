import { EventEmitter } from "eventemitter3";
import { type Conversation, emptyConversation } from "../compaction/conversation.ts";
import { errorText, ToolError } from "../errors.ts";
import type { Tool } from "../local/define-tool.ts";
import type { Message } from "../models/message.ts";
import type { Model } from "../models/model.ts";
import type { Observer } from "../observer.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
import { Toolset } from "../toolset/toolset.ts";
import { type Concurrency, concurrencyCap, type InteractionAnswerer } from "./calls.ts";
import { type CompactionSettings, createCompactionStep } from "./compaction-step.ts";
import type { AgentEvent, AgentEventMap, EmitEvent } from "./events.ts";
import { type Approver, INTERLOCK_POLICIES, type InterlockPolicy, modeApprover } from "./gates.ts";
import { type LoopSettings, runLoop } from "./loop.ts";
import { type AgentRun, createAgentRun } from "./run.ts";
import type { RunResult } from "./run-result.ts";
// Types only: snapshot.ts is imported on the first run of an agent with `snapshots`, so an
// agent without them never loads it (about 3 KB gzip off every agent bundle).
import type {
  ResumeDecisions,
  RunDurability,
  RunSnapshot,
  SnapshotSettings,
  SnapshotSigner,
} from "./snapshot.ts";
import { checkInput, checkSomethingToAnswer, copyConversation } from "./transcript.ts";

/** What an `Agent` is made of; only `model` is required. */
export interface AgentOptions {
  /** The model that drives the loop. */
  model: Model;
  /**
   * Tool sources. Two tools with the same name across `toolsets` and `tools` end each run at
   * once with `stop: "error"` and a `duplicate_name` error naming them: give the toolsets
   * namespaces (`Toolset.merge`).
   */
  toolsets?: readonly Toolset[];
  /** Local tools, added after `toolsets` as one `Toolset.local`; duplicates throw at construction. */
  tools?: readonly Tool[];
  /** The system prompt. */
  instructions?: string;
  /**
   * Decides calls to tools that are not read-only, and calls the interlock escalates. Default
   * `modeApprover("ask")`, which refuses them all (fail closed).
   */
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
  /**
   * How long a model turn may go without sending anything (text, a tool call, a retry notice),
   * in milliseconds, before the turn fails with a `ModelError` `stream` (code `idle_timeout`) and
   * the run stops with it: an endpoint that accepts the request and never answers no longer
   * hangs the run. Default 300 000 (five minutes, past a slow CPU model's first token);
   * `Infinity` waits forever.
   */
  modelIdleTimeoutMs?: number;
  /**
   * Receives what a listener on this agent threw (with the event it was given), so a broken
   * listener neither breaks the run nor becomes an uncaught exception. The run goes on; the
   * other listeners of that event still receive it. Default: `console.error`.
   */
  onError?: (error: unknown, event: AgentEvent) => void;
  /**
   * Keeps signed snapshots of each turn's calls, so a run can pause (`run.pause()`) or die and
   * be resumed (`agent.resume`) in another page load or isolate. The `secret` (at least 32
   * characters) signs them; every instance that resumes must share it. With a `store`, each
   * run's latest snapshot is kept there under `run.id` and `agent.resume(id)` picks it up.
   * Default: none (a run then pays nothing for it, and the code is not even loaded).
   */
  snapshots?: SnapshotSettings;
  /**
   * Told of each run, model turn and tool call as it starts and ends, and made the parent of a
   * remote tool's MCP request: `otelObserver()` from `toolwire/otel` turns them into
   * OpenTelemetry spans. Default: none (a run then pays nothing for it).
   */
  observer?: Observer;
}

/** Options of one `agent.run`. */
export interface AgentRunOptions {
  /** Aborting it stops the model stream, the running tools and a pending approval. */
  signal?: AbortSignal;
  /** A saved conversation to continue (for example parsed from JSON); it is not mutated. */
  conversation?: Conversation;
  /**
   * Receives each snapshot of the turn in progress, with `snapshots` set: before a call starts
   * (awaited: the call starts once it returns, so a resume never runs it twice), when an
   * approval or a question waits for a person, and as calls complete. Store the latest (e.g. in
   * a `Store`); should the process die, `agent.resume(latest)` continues the run. A throw or a
   * rejection keeps the call from starting (it ends `cancelled`).
   */
  onCheckpoint?(snapshot: RunSnapshot): void | Promise<void>;
  /**
   * The id the run is kept under in `snapshots.store` (`run.id`); default a random UUID. An id
   * the store already holds is refused at the run's first write (its first call does not
   * start).
   */
  runId?: string;
}

/** Options of one `agent.resume`. */
export interface AgentResumeOptions extends Omit<AgentRunOptions, "conversation" | "runId"> {
  /**
   * Decisions for calls the snapshot shows waiting on their approval, by call id; a waiting call
   * without one is put to the approver.
   */
  decisions?: ResumeDecisions;
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
  readonly #onError: (error: unknown, event: AgentEvent) => void;
  readonly #snapshots: SnapshotSettings | undefined;
  #signer: SnapshotSigner | undefined;

  /**
   * @throws ToolError `invalid_configuration` naming the option, for a model without
   *   `stream()`, toolsets that are not `Toolset`s, a `maxTurns` that is not a non-negative
   *   integer, a `concurrency` that is not `sequential`, `read-only-parallel` or a positive
   *   integer, compaction sizes that are not positive numbers (`keepRecent`: a non-negative
   *   integer), a `snapshots.secret` shorter than 32 characters, a `snapshots.store` that is not
   *   a `Store`, or a wrongly typed callback or flag; `duplicate_name` when two local tools
   *   share a name.
   */
  constructor(options: AgentOptions) {
    super();
    checkAgentOptions(options);
    const toolsets = [...(options.toolsets ?? [])];
    if (options.tools && options.tools.length > 0) toolsets.push(Toolset.local(options.tools));
    const compaction = options.compaction;
    this.#onError = options.onError ?? reportListenerError;
    this.#snapshots = options.snapshots && { ...options.snapshots };
    this.#settings = {
      model: options.model,
      toolsets,
      instructions: options.instructions,
      approver: options.approver ?? modeApprover("ask"),
      interlock: options.interlock ?? "block",
      cap: concurrencyCap(options.concurrency ?? "read-only-parallel"),
      maxTurns: options.maxTurns ?? 40,
      markUntrustedOutput: options.markUntrustedOutput ?? true,
      onInteraction: options.onInteraction,
      modelIdleTimeoutMs: options.modelIdleTimeoutMs ?? MODEL_IDLE_TIMEOUT_MS,
      compaction:
        compaction === false
          ? undefined
          : (model) => createCompactionStep(compaction ?? {}, model, toolsets),
      observer: options.observer,
    };
  }

  /**
   * Starts a run. It never throws and its `result` never rejects: cancellation, provider
   * failures, duplicate tool names and a malformed input or conversation (`ToolError`
   * `invalid_configuration`) are stop causes. So is a run with no user message to answer (an
   * empty input on a conversation that has none); `run("", { conversation })` on one that has
   * asks the same turn again.
   *
   * @param input The user's message, or messages to append.
   */
  run(input: string | readonly Message[], options: AgentRunOptions = {}): AgentRun {
    let conversation = emptyConversation();
    let invalid: unknown;
    try {
      checkInput(input);
      conversation = copyConversation(options.conversation);
      checkSomethingToAnswer(conversation, input);
    } catch (error) {
      invalid = error;
    }
    if (options.runId !== undefined && (typeof options.runId !== "string" || !options.runId)) {
      invalid ??= new ToolError({
        type: "invalid_configuration",
        message: "runId must be a non-empty string",
      });
    }
    return this.#start(input, conversation, invalid, options, undefined);
  }

  /**
   * Continues a paused or dead run from its snapshot (see `snapshots`), or from the run kept
   * under `id` in `snapshots.store`, here or on another instance with the same tools, secret
   * (and store): calls the snapshot shows completed keep their
   * results and never run again; a call it shows running comes back `interrupted` (its result
   * says so; a tool with `annotations.idempotentHint` runs again instead); approved calls run;
   * waiting calls take the decision given here, else the approver's. Like `run`, it never
   * throws: a refusal ends the run with `stop: "error"` and a `ToolError`
   * `invalid_configuration` ("snapshot refused: …") for a snapshot that was changed (its
   * arguments, conversation or calls) or signed with another key, tools whose declarations
   * changed, or a decision for a call that is not waiting; and, by id, for a run the store does
   * not hold, one that ended, or one another instance resumed first. Resuming by id claims the
   * run (a compare-and-set), so of two instances resuming it at once exactly one goes on; an
   * instance still running a run that another resumed stops before its next call starts, its
   * run ending `error` with that refusal.
   *
   * @param snapshot A `RunSnapshot` as `onCheckpoint` or `result.snapshot` gave it (JSON-parsed),
   *   or the id of a run kept in `snapshots.store` (`run.id`).
   * @example
   * ```ts
   * const run = agent.resume(JSON.parse(saved), { decisions: { [callId]: { type: "allow" } } });
   * const { text } = await run.result;
   * ```
   */
  resume(snapshot: RunSnapshot | string, options: AgentResumeOptions = {}): AgentRun {
    const resuming = { snapshot, decisions: { ...(options.decisions ?? {}) } };
    return this.#start("", emptyConversation(), undefined, options, resuming);
  }

  #start(
    input: string | readonly Message[],
    start: Conversation,
    invalid: unknown,
    options: AgentRunOptions,
    resuming: { snapshot: unknown; decisions: ResumeDecisions } | undefined,
  ): AgentRun {
    const { signal } = options;
    let conversation = start;
    const forward = (event: AgentEvent) => this.#deliver(event);
    const listened = () => this.eventNames().length > 0;
    const settings = this.#snapshots;
    // A run resumed by id keeps its id; a stored run gets one at once, so the app can keep it.
    const byId = typeof resuming?.snapshot === "string" ? resuming.snapshot : undefined;
    const id = settings?.store ? (byId ?? options.runId ?? crypto.randomUUID()) : undefined;
    // Only an agent with snapshots can pause, and only it pays for the pause signal.
    const pauser = settings && new AbortController();
    let durability: RunDurability | undefined;
    let paused: RunSnapshot | undefined;
    let lost: ToolError | undefined;
    const pause = () => {
      const frozen = durability?.pause();
      if (!pauser || !frozen) {
        throw new ToolError({
          type: "unsupported",
          operation: pauser
            ? "pause while no turn's calls are in progress (pause at an approval or a question)"
            : "pause: this agent keeps no snapshots (give it the `snapshots` option)",
        });
      }
      void frozen.then((snapshot) => {
        paused = snapshot;
        pauser.abort("the run paused");
      });
    };
    return createAgentRun(
      async (emit, steering) => {
        // The loop always has a signal to hand on: the caller's own, used as is (a copy would
        // cost a signal and a listener per run), or one nothing aborts.
        let runSignal = signal ?? new AbortController().signal;
        if (pauser) runSignal = signal ? AbortSignal.any([signal, pauser.signal]) : pauser.signal;
        // A run stopped by `pause` ends `paused` with its snapshot, not `cancelled`; one that
        // another instance took over ends `error` with the refusal.
        const emitting: EmitEvent = (event) => {
          if (event.type === "done" && event.result.stop === "cancelled") {
            if (lost) {
              event.result.stop = "error";
              event.result.error = lost;
            } else if (paused) {
              event.result.stop = "paused";
              event.result.snapshot = paused;
            }
          }
          emit(event);
        };
        try {
          // Bad input ends the run like any failure (an `error` event, then `done`), so `run`
          // keeps its promise never to throw, and nothing is sent to the model.
          if (invalid !== undefined) throw invalid;
          if (resuming && !settings) {
            throw new ToolError({
              type: "invalid_configuration",
              message: "resume needs an agent with the `snapshots` option",
            });
          }
          if (settings) {
            const opened = await (await loadSnapshots()).openRun({
              settings,
              signer: this.#signer,
              id,
              resuming,
              onCheckpoint: options.onCheckpoint,
              onLost: (error) => {
                lost = error;
                pauser?.abort(error);
              },
            });
            this.#signer = opened.signer;
            durability = opened.durability;
            if (opened.conversation) conversation = opened.conversation;
          }
          const result = await runLoop(this.#settings, {
            input,
            conversation,
            signal: runSignal,
            emit: emitting,
            steering,
            durability,
          });
          // `result` settles once the store knows how the run ended.
          await durability?.close(result.stop);
          return result;
        } catch (error) {
          // The loop reports every failure as a stop cause; this is the net under a bug, so
          // `result` still never rejects and the stream still ends with `done`.
          emit({ type: "error", error, message: errorText(error) });
          const usage = { inputTokens: 0, outputTokens: 0 };
          const result: RunResult = {
            text: "",
            stop: "error",
            turns: 0,
            usage,
            conversation,
            blockedSends: 0,
            error,
          };
          emit({ type: "done", result });
          return result;
        }
      },
      forward,
      listened,
      pause,
      id,
    );
  }

  /**
   * Hands an event to this agent's listeners one by one, so one that throws neither stops the
   * others nor reaches the run (A7): its failure goes to `onError`. `emit` would stop at the
   * first throwing listener, so the listeners are called here, a `once` listener being removed
   * before it runs, as `emit` does.
   */
  #deliver(event: AgentEvent): void {
    const type = event.type;
    if (this.listenerCount(type) === 0) return;
    const listeners = this.listeners(type) as ((this: Agent, event: AgentEvent) => void)[];
    for (const listener of listeners) {
      this.removeListener(type, listener as never, undefined, true);
      try {
        listener.call(this, event);
      } catch (error) {
        this.#report(error, event);
      }
    }
  }

  #report(error: unknown, event: AgentEvent): void {
    try {
      this.#onError(error, event);
    } catch {
      // An `onError` that throws has nowhere left to report to; the run must go on.
    }
  }
}

const MODEL_IDLE_TIMEOUT_MS = 300_000;

let snapshotModule: Promise<typeof import("./snapshot.ts")> | undefined;

/** Loads pause/resume once, on the first run of an agent with `snapshots`. */
function loadSnapshots(): Promise<typeof import("./snapshot.ts")> {
  snapshotModule ??= import("./snapshot.ts");
  return snapshotModule;
}

function reportListenerError(error: unknown, event: AgentEvent): void {
  console.error(`toolwire/agent: a ${event.type} listener threw`, error);
}

function checkAgentOptions(options: unknown): void {
  if (!isJsonObject(options)) fail(`options must be an object, got ${describe(options)}`);
  const model = options.model;
  if (!isJsonObject(model) || typeof model.stream !== "function") {
    fail(`model must be a Model (an object with a stream() method), got ${describe(model)}`);
  }
  if (model.contextWindow !== undefined && !isPositive(model.contextWindow)) {
    fail(`model.contextWindow must be a positive number, got ${describe(model.contextWindow)}`);
  }
  checkToolsets(options.toolsets);
  if (options.tools !== undefined && !Array.isArray(options.tools)) {
    fail(`tools must be an array of tools from defineTool, got ${describe(options.tools)}`);
  }
  optional(options, "instructions", "a string", (value) => typeof value === "string");
  optional(options, "approver", "a function", isFunction);
  optional(options, "onInteraction", "a function", isFunction);
  optional(options, "onError", "a function", isFunction);
  optional(options, "observer", "an Observer", (value) =>
    isFunction((value as Observer | null)?.start),
  );
  optional(options, "markUntrustedOutput", "a boolean", isBoolean);
  optional(options, "modelIdleTimeoutMs", "a positive number of milliseconds", isPositive);
  // 0 is allowed: no tool turns, only the final tool-less answer.
  optional(options, "maxTurns", "a non-negative integer", (value) => isCount(value));
  optional(
    options,
    "interlock",
    `one of ${INTERLOCK_POLICIES.map((policy) => JSON.stringify(policy)).join(", ")}`,
    (value) => (INTERLOCK_POLICIES as readonly unknown[]).includes(value),
  );
  optional(
    options,
    "concurrency",
    '"sequential", "read-only-parallel" or a positive integer',
    (value) => value === "sequential" || value === "read-only-parallel" || isCount(value, 1),
  );
  checkCompaction(options.compaction);
  checkSnapshots(options.snapshots);
}

function checkSnapshots(snapshots: unknown): void {
  if (snapshots === undefined) return;
  if (!isJsonObject(snapshots)) {
    fail(`snapshots must be an object ({ secret }), got ${describe(snapshots)}`);
  }
  const { secret, store } = snapshots;
  if (typeof secret !== "string" || secret.length < 32) {
    fail("snapshots.secret must be a string of at least 32 characters");
  }
  if (
    store !== undefined &&
    !(isJsonObject(store) && ["get", "put", "compareAndSet"].every((m) => isFunction(store[m])))
  ) {
    fail(`snapshots.store must be a Store (get, put, compareAndSet), got ${describe(store)}`);
  }
  optional(snapshots, "ttlMs", "a positive integer of milliseconds", (value) => isCount(value, 1));
}

function checkToolsets(toolsets: unknown): void {
  if (toolsets === undefined) return;
  if (!Array.isArray(toolsets))
    fail(`toolsets must be an array of Toolsets, got ${describe(toolsets)}`);
  toolsets.forEach((toolset, index) => {
    if (isToolset(toolset)) return;
    fail(
      `toolsets[${index}] is not a Toolset (got ${describe(toolset)}): wrap a backend with Toolset.fromBackend, or pass local tools as tools`,
    );
  });
}

function checkCompaction(compaction: unknown): void {
  if (compaction === undefined || compaction === false) return;
  if (!isJsonObject(compaction)) {
    fail(`compaction must be false or an object of settings, got ${describe(compaction)}`);
  }
  const settings = { compaction };
  optional(settings, "compaction.contextWindow", "a positive number", isPositive);
  optional(settings, "compaction.thresholdTokens", "a positive number", isPositive);
  optional(settings, "compaction.keepRecent", "a non-negative integer", (value) => isCount(value));
  optional(settings, "compaction.summarizer", "a function", isFunction);
  optional(settings, "compaction.validate", "a boolean", isBoolean);
  optional(settings, "compaction.compactTool", "a boolean", isBoolean);
  optional(settings, "compaction.keepRewritten", "a boolean", isBoolean);
}

/** Fails unless the option at `path` (dotted, from `root`) is absent or passes `check`. */
function optional(
  root: Record<string, unknown>,
  path: string,
  expected: string,
  check: (value: unknown) => boolean,
): void {
  let value: unknown = root;
  for (const key of path.split(".")) value = (value as Record<string, unknown>)[key];
  if (value !== undefined && !check(value))
    fail(`${path} must be ${expected}, got ${describe(value)}`);
}

/** A Toolset of this copy, or of another copy of the package that has the methods the loop calls. */
function isToolset(value: unknown): boolean {
  if (value instanceof Toolset) return true;
  return (
    isJsonObject(value) &&
    isFunction(value.listTools) &&
    isFunction(value.call) &&
    isFunction(value.carriedState)
  );
}

function isFunction(value: unknown): boolean {
  return typeof value === "function";
}

function isBoolean(value: unknown): boolean {
  return typeof value === "boolean";
}

function isPositive(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}

function isCount(value: unknown, least = 0): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= least;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}

function fail(message: string): never {
  throw new ToolError({ type: "invalid_configuration", message });
}
