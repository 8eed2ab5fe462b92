import { cancelledError, raceSignal } from "../abort.ts";
import type { CarriedState } from "../declaration/carried-state.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { byName } from "../declaration/tool-name.ts";
import { errorText, isToolError, ToolError } from "../errors.ts";
import type { ToolHandlerBackend, ToolsetBackend } from "../execution/backend.ts";
import type { CallJournal } from "../execution/call-journal.ts";
import type {
  StepOptions,
  ToolHandlerInput,
  ToolHandlerOutput,
  ToolLog,
  ToolProgress,
} from "../execution/handler-io.ts";
import type { RemoteTaskHook } from "../execution/remote-task-hook.ts";
import type { ToolResult } from "../execution/tool-result.ts";
import type { ToolInteractionRequest } from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import type { Tool } from "../local/define-tool.ts";
import { createLocalBackend } from "../local/local-handler.ts";
import type { Observation } from "../observer.ts";
import { createMergedBackend } from "./merge.ts";
import { nearestName } from "./suggest.ts";

// The toolset flow (see `docs/design.md`, "Tools and toolsets"): `Toolset.call` admits the
// call, binds its handler to the toolset's lifecycle (so shutdown can stop it) and drives it
// from `invoke` to completion, answering questions through `onInteraction`.

/** How `Toolset.call` is driven. */
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
  /**
   * The journal a local tool's `ctx.once` records into, for a host that runs a call again from
   * the start (an MCP 2026-07-28 server); without it each call keeps its own.
   */
  "~journal"?: CallJournal;
  /**
   * The operation this call runs inside (the agent's `tool_call`), parent of a remote tool's
   * MCP request (design.md, "Observability").
   */
  "~observation"?: Observation;
  /**
   * Where a remote tool's call that becomes an MCP task records the task, and the task an
   * earlier run of the same call left, to be polled instead of calling again (the agent's
   * snapshots use it).
   */
  "~task"?: RemoteTaskHook;
}

/**
 * A shared executable tool source: local tools, a remote MCP server, your own backend, or a
 * merge of those. Every holder of one `Toolset` shares its admission gate and its one cleanup.
 *
 * @example
 * ```ts
 * const tools = Toolset.local([add]);
 * const result = await tools.call("add", { a: 1, b: 2 });
 * await tools.shutdown();
 * ```
 */
export class Toolset implements ToolsetBackend {
  readonly #backend: ToolsetBackend;
  readonly #lifecycle: Lifecycle;
  // Local handlers are made synchronously, so `call` skips three promise layers per call.
  readonly #localHandler: ((name: string) => ToolHandlerBackend) | undefined;

  private constructor(
    backend: ToolsetBackend,
    localHandler?: (name: string) => ToolHandlerBackend,
  ) {
    this.#backend = backend;
    this.#lifecycle = createLifecycle(() => backend.shutdown());
    this.#localHandler = localHandler;
  }

  /**
   * Creates a toolset of local tools.
   *
   * @param tools Tools made by `defineTool`; an empty list is valid.
   * @returns The toolset.
   * @throws ToolError `duplicate_name` when two tools share a name.
   */
  static local(tools: readonly Tool[]): Toolset {
    const backend = createLocalBackend(tools);
    return new Toolset(backend, backend["~handler"]);
  }

  /**
   * Creates a toolset over any backend, adding shared shutdown and admission. A `Toolset` is
   * returned as is.
   *
   * @param backend The source.
   * @returns The toolset.
   * @throws ToolError `invalid_configuration` when `backend` lacks `listTools`, `toolHandler` or
   * `shutdown`.
   */
  static fromBackend(backend: ToolsetBackend): Toolset {
    if (backend instanceof Toolset) return backend;
    const candidate = backend as Partial<ToolsetBackend> | null | undefined;
    if (
      typeof candidate?.listTools !== "function" ||
      typeof candidate.toolHandler !== "function" ||
      typeof candidate.shutdown !== "function"
    ) {
      throw new ToolError({
        type: "invalid_configuration",
        message: "a backend needs listTools, toolHandler and shutdown functions",
      });
    }
    return new Toolset(backend);
  }

  /**
   * Creates one toolset from several; with `namespaces`, tools are listed as `ns__name`.
   *
   * @param toolsets The sources; shutting the merge down shuts them down (a source shut down
   * before makes the merge's operations fail with its `closed`).
   * @param options One namespace per toolset.
   * @returns The merged toolset.
   * @throws ToolError `invalid_configuration` for a bad namespace list or a source that is not a
   * toolset or backend.
   */
  static merge(
    toolsets: readonly Toolset[],
    options: { namespaces?: readonly string[] } = {},
  ): Toolset {
    if (!Array.isArray(toolsets)) {
      throw new ToolError({ type: "invalid_configuration", message: "merge needs an array" });
    }
    const sources = toolsets.map((source) => Toolset.fromBackend(source));
    return new Toolset(createMergedBackend(sources, options?.namespaces));
  }

  /**
   * Returns every tool's declaration, sorted by name.
   *
   * @returns A fresh array the caller may change.
   * @throws ToolError `closed` after shutdown has started; `protocol` when the backend returns
   * something other than an array.
   */
  listTools(): Promise<ToolInfo[]> {
    return this.#lifecycle.admit("listTools", async () =>
      sortedByName(await this.#backend.listTools()),
    );
  }

  /**
   * Returns a fresh handler for one call of the named tool.
   *
   * @param name The tool's name.
   * @throws ToolError `unknown_tool`, `closed` after shutdown has started, or `protocol` when
   * the backend returns something without a `step` function.
   */
  toolHandler(name: string): Promise<ToolHandlerBackend> {
    return this.#lifecycle.admit("toolHandler", async () => {
      const handler = await this.#backend.toolHandler(name);
      if (typeof handler?.step !== "function") {
        throw new ToolError({
          type: "protocol",
          message: `the backend gave no handler for ${name}`,
        });
      }
      return new LiveHandler(handler, this.#lifecycle);
    });
  }

  /**
   * Returns the state the tools want carried across compaction, in name order.
   *
   * @throws ToolError `closed` after shutdown has started.
   */
  carriedState(): Promise<CarriedState[]> {
    return this.#lifecycle.admit(
      "carriedState",
      async () => (await this.#backend.carriedState?.()) ?? [],
    );
  }

  /**
   * Calls a tool to completion.
   *
   * @param name The tool's name.
   * @param args Its arguments.
   * @param options Signal, call id, progress and interaction listeners.
   * @returns The result; a tool's own failure is a result with `isError: true`.
   * @throws ToolError `unknown_tool`, `invalid_arguments`, `cancelled`, `closed`, ...
   */
  call(name: string, args: unknown, options?: CallOptions): Promise<ToolResult> {
    const settings = options ?? {};
    // A pre-aborted call must not reach the backend at all, not even to create a handler.
    if (settings.signal?.aborted) return Promise.reject(cancelledError(name, settings.signal));
    const local = this.#localHandler;
    if (!local) {
      return this.toolHandler(name).then(
        (handler) => drive(name, handler as LiveHandler, args, settings),
        (error: unknown) => this.#unknown(error),
      );
    }
    // Admission and creation happen in one synchronous stretch, so shutdown has nothing
    // admitted to wait for; returning drive's promise as is spares an async layer.
    if (this.#lifecycle.sealed)
      return Promise.reject(new ToolError({ type: "closed", operation: "toolHandler" }));
    try {
      // `drive` is async, so only `local` (an unknown name) can throw here.
      return drive(name, new LiveHandler(local(name), this.#lifecycle), args, settings);
    } catch (error) {
      return this.#unknown(error);
    }
  }

  // An unknown name gets the nearest existing one as a suggestion (`ad` → `add`); any other
  // failure, or one the listing itself fails, passes as it was. Made here rather than where a
  // backend throws: only this toolset knows the names its caller sees (`math__add` in a
  // namespaced merge), and a user's own backend gets it for free. The listing is the cached
  // one for local and MCP backends, and is paid only on this failure path.
  async #unknown(error: unknown): Promise<never> {
    if (!isToolError(error, "unknown_tool") || error.data.suggestion !== undefined) throw error;
    const name = error.data.name;
    const infos = await this.listTools().catch(() => []);
    const suggestion = nearestName(
      name,
      infos.map((info) => info.name),
    );
    throw suggestion === undefined
      ? error
      : new ToolError({ type: "unknown_tool", name, suggestion });
  }

  /**
   * Shuts the toolset down: seals admission, aborts live calls (their next step fails with
   * `closed`), waits for admitted operations, then runs the backend's cleanup exactly once.
   * Every call, concurrent or later, gets the same outcome.
   *
   * There is no deadline here: a backend owns the bound on its own cleanup (an MCP client gives
   * its session 5 s), and a cleanup that never settles keeps every caller waiting, since
   * reporting success while it still runs would be a lie. A caller that must move on races it,
   * e.g. `Promise.race([tools.shutdown(), timeout])`, and the cleanup still runs exactly once.
   *
   * @throws ToolError the cleanup's failure (`transport` for a failure that is not a
   * `ToolError`), the same value for every caller.
   */
  shutdown(): Promise<void> {
    return this.#lifecycle.shutdown();
  }
}

// Local and merged backends keep their lists sorted, so the usual cost is one copy and one
// pass; only an unsorted foreign list pays for a sort.
function sortedByName(list: ToolInfo[]): ToolInfo[] {
  if (!Array.isArray(list)) {
    throw new ToolError({ type: "protocol", message: "the backend's listTools gave no array" });
  }
  const copy = list.slice();
  for (let i = 1; i < copy.length; i++) {
    if ((copy[i - 1] as ToolInfo).name > (copy[i] as ToolInfo).name) {
      return copy.sort(byName);
    }
  }
  return copy;
}

// What a call's options hand on to its handler, as they were given.
const HANDED_ON = ["callId", "auth", "~journal", "~observation", "~task"] as const;

// Drives one handler from `invoke` to completion. Every wait is raced against the caller's
// signal; when it aborts, or anything fails, the handler gets `cancel`, so a tool is never left
// suspended on a question nobody will answer. The signal `onInteraction` receives aborts when
// the call is aborted or ends, so a dialog it opened can close.
async function drive(
  name: string,
  handler: LiveHandler,
  args: unknown,
  options: CallOptions,
): Promise<ToolResult> {
  const { signal } = options;
  const cancelled = (s: AbortSignal) => cancelledError(name, s);
  const steps = stepOptionsOf(options);
  let dialog: AbortController | undefined;
  // Questions a tool asked together are all put to `onInteraction` at once, each answered in
  // turn; made on the first question.
  let asks: Map<string, Promise<ToolInteractionResponse>> | undefined;
  try {
    const invoke: ToolHandlerInput = { type: "invoke", arguments: args };
    for (const key of HANDED_ON) {
      if (options[key] !== undefined) (invoke as Record<string, unknown>)[key] = options[key];
    }
    let output = await raceSignal(handler.step(invoke, steps), signal, cancelled);
    while (output.type === "interaction") {
      const { onInteraction } = options;
      if (!onInteraction) {
        throw new ToolError({
          type: "unsupported",
          operation: `${name} asked for input but the call has no onInteraction`,
        });
      }
      dialog ??= new AbortController();
      asks ??= new Map();
      for (const request of output["~open"] ?? [output.request]) {
        if (asks.has(request.id)) continue;
        const asking = answer(onInteraction, request, dialog.signal);
        // Awaited in its turn; a call that ends first must not leave it unhandled.
        asking.catch(() => {});
        asks.set(request.id, asking);
      }
      const asked =
        asks.get(output.request.id) ?? answer(onInteraction, output.request, dialog.signal);
      asks.delete(output.request.id);
      // Shutdown while the caller is still answering ends the call too.
      const response = await raceSignal(raceSignal(asked, signal, cancelled), handler.closed);
      output = await raceSignal(
        handler.step({ type: "interaction", response }, steps),
        signal,
        cancelled,
      );
    }
    return output.result;
  } catch (error) {
    const reason = signal?.aborted
      ? cancelled(signal).reason
      : isToolError(error, "unsupported")
        ? "nobody can answer"
        : "the call failed";
    handler
      .step(reason === undefined ? { type: "cancel" } : { type: "cancel", reason })
      .catch(() => {});
    throw error;
  } finally {
    dialog?.abort(
      signal?.aborted
        ? cancelled(signal)
        : new ToolError({ type: "closed", operation: "the call ended" }),
    );
  }
}

// The caller's callback may throw synchronously, return a bare value or fail untyped.
function answer(
  onInteraction: NonNullable<CallOptions["onInteraction"]>,
  request: ToolInteractionRequest,
  signal: AbortSignal,
): Promise<ToolInteractionResponse> {
  return Promise.resolve()
    .then(() => onInteraction(request, signal))
    .catch((error: unknown) => {
      if (isToolError(error)) throw error;
      throw new ToolError(
        {
          type: "invalid_interaction",
          id: request.id,
          message: `onInteraction failed: ${errorText(error)}`,
        },
        { cause: error },
      );
    });
}

function stepOptionsOf({ onProgress, onLog, onInteraction }: CallOptions): StepOptions | undefined {
  if (!onProgress && !onLog && !onInteraction) return undefined;
  const step: StepOptions = {};
  if (onProgress) step.onProgress = onProgress;
  if (onLog) step.onLog = onLog;
  if (onInteraction) step.answers = true;
  return step;
}

/**
 * A handler for one call of one tool, bound to its toolset's lifecycle: once the toolset shuts
 * down, a step in flight rejects with `closed`, its backend work is cancelled, and every later
 * step fails with `closed` without reaching the backend.
 */
class LiveHandler implements ToolHandlerBackend {
  readonly #backend: ToolHandlerBackend;
  readonly #lifecycle: Lifecycle;
  // An array, not a Set: it almost always holds one step, and a Set costs more to make.
  readonly #inFlight: ((error: ToolError) => void)[] = [];
  // Whether the source last left the call waiting on a question; such a call is live too.
  #suspended = false;
  readonly #live: LiveCall = { close: () => this.#close() };
  // Made on first use (only a call that asks a question waits outside a step).
  #closing: AbortController | undefined;
  #closedBy: ToolError | undefined;

  constructor(backend: ToolHandlerBackend, lifecycle: Lifecycle) {
    this.#backend = backend;
    this.#lifecycle = lifecycle;
  }

  /**
   * Performs one transition (see `ToolHandlerInput`).
   *
   * @param input `invoke`, `interaction` or `cancel`.
   * @param options Progress and log listeners for this step.
   * @returns The completed result or the pending interaction.
   * @throws ToolError `closed` after shutdown, `protocol` when the source returns something that
   * is not a step output, else whatever the source's handler throws.
   */
  step(input: ToolHandlerInput, options?: StepOptions): Promise<ToolHandlerOutput> {
    if (this.#lifecycle.sealed)
      return Promise.reject(new ToolError({ type: "closed", operation: "step" }));
    this.#lifecycle.track(this.#live);
    return new Promise<ToolHandlerOutput>((resolve, reject) => {
      // Shutdown rejects this promise directly, so a source that ignores `cancel` cannot hang the caller.
      this.#inFlight.push(reject);
      let settled: Promise<ToolHandlerOutput>;
      try {
        settled = Promise.resolve(this.#backend.step(input, options));
      } catch (error) {
        settled = Promise.reject(error);
      }
      settled.then(
        (output) => {
          const type = (output as Partial<ToolHandlerOutput> | undefined)?.type;
          this.#settled(reject, type === "interaction");
          if (type === "completed" || type === "interaction") resolve(output);
          else {
            reject(
              new ToolError({
                type: "protocol",
                message: `a tool handler returned ${JSON.stringify(type) ?? "no type"} instead of completed or interaction`,
              }),
            );
          }
        },
        (error: unknown) => {
          // A rejected reply or a misused step leaves the call where it was.
          const unchanged =
            isToolError(error, "invalid_interaction") || isToolError(error, "unsupported");
          this.#settled(reject, unchanged && this.#suspended);
          reject(error);
        },
      );
    });
  }

  // The call stays tracked while a step is in flight or it waits on a question, so shutdown can
  // still cancel it; otherwise it is released, so finished calls never pile up.
  #settled(reject: (error: ToolError) => void, suspended: boolean): void {
    const inFlight = this.#inFlight;
    const index = inFlight.indexOf(reject);
    if (index >= 0) inFlight.splice(index, 1);
    this.#suspended = suspended;
    if (!suspended && inFlight.length === 0) this.#lifecycle.release(this.#live);
  }

  /** Aborts with `closed` when the toolset shuts down while this call is live. */
  get closed(): AbortSignal {
    if (!this.#closing) {
      this.#closing = new AbortController();
      if (this.#closedBy) this.#closing.abort(this.#closedBy);
    }
    return this.#closing.signal;
  }

  #close(): void {
    const error = new ToolError({ type: "closed", operation: "step" });
    this.#closedBy = error;
    this.#closing?.abort(error);
    for (const reject of this.#inFlight.splice(0)) reject(error);
    // The source's own cancellation may fail or never settle; the caller already has its answer.
    try {
      Promise.resolve(
        this.#backend.step({ type: "cancel", reason: "the toolset shut down" }),
      ).catch(() => {});
    } catch {
      // A source that throws synchronously on cancel has nothing left to stop.
    }
  }
}

/** A live call the lifecycle must stop at shutdown. */
interface LiveCall {
  /** Rejects the call's in-flight step with `closed` and cancels its backend work. */
  close(): void;
  /** Links of the lifecycle's list of live calls; owned by the lifecycle. */
  prev?: LiveCall | undefined;
  next?: LiveCall | undefined;
  tracked?: boolean;
}

/**
 * The admission gate and exactly-once cleanup shared by every user of one
 * toolset.
 */
interface Lifecycle {
  /** Whether shutdown has started; nothing is admitted after that. */
  readonly sealed: boolean;
  /** Runs a root operation if admission is open, tracking it so cleanup waits for it. */
  admit<T>(operation: string, run: () => Promise<T>): Promise<T>;
  /** Tracks a call with running work until `release`. */
  track(call: LiveCall): void;
  /** Stops tracking a call that has finished. */
  release(call: LiveCall): void;
  /** Seals admission, closes live calls, waits for admitted operations, cleans up once. */
  shutdown(): Promise<void>;
}

/**
 * Creates a lifecycle around a cleanup function. Every `shutdown()` call, concurrent or
 * repeated, returns the same promise, so all callers see the same outcome.
 *
 * @param cleanup The backend's own shutdown, run at most once.
 * @returns The lifecycle.
 */
function createLifecycle(cleanup: () => Promise<void>): Lifecycle {
  let sealed = false;
  let outcome: Promise<void> | undefined;
  // A counter, not a set of promises, keeps admission cheap on the per-call hot path.
  let admitted = 0;
  let drained: (() => void) | undefined;
  // An intrusive list: tracking every call through a Set cost more than the rest of admission.
  let head: LiveCall | undefined;
  const lifecycle: Lifecycle = {
    get sealed() {
      return sealed;
    },
    async admit(operation, run) {
      if (sealed) throw new ToolError({ type: "closed", operation });
      admitted++;
      try {
        return await run();
      } finally {
        if (--admitted === 0) drained?.();
      }
    },
    track(call) {
      if (call.tracked) return;
      call.tracked = true;
      call.prev = undefined;
      call.next = head;
      if (head) head.prev = call;
      head = call;
    },
    release(call) {
      if (!call.tracked) return;
      call.tracked = false;
      if (call.prev) call.prev.next = call.next;
      else head = call.next;
      if (call.next) call.next.prev = call.prev;
      call.prev = undefined;
      call.next = undefined;
    },
    shutdown() {
      outcome ??= (async () => {
        sealed = true;
        // Nothing is tracked once sealed, so this empties the list.
        while (head) {
          const call = head;
          lifecycle.release(call);
          call.close();
        }
        if (admitted > 0) await new Promise<void>((resolve) => (drained = resolve));
        try {
          await cleanup();
        } catch (error) {
          if (isToolError(error)) throw error;
          throw new ToolError(
            { type: "transport", message: `shutdown failed: ${errorText(error)}` },
            { cause: error },
          );
        }
      })();
      return outcome;
    },
  };
  return lifecycle;
}
