import { cancelledCall } from "../abort.ts";
import { errorText, isToolError, ToolError } from "../errors.ts";
import {
  checkInteractionResponse,
  noPendingInteraction,
} from "../interaction/check-interaction-response.ts";
import type { ToolInteractionRequest } from "../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../interaction/interaction-response.ts";
import type { JsonSchemaValidator } from "../schema/schema-input.ts";
import type { ToolHandlerBackend } from "./backend.ts";
import type {
  StepOptions,
  ToolHandlerInput,
  ToolHandlerOutput,
  ToolLog,
  ToolProgress,
} from "./handler-io.ts";
import type { ToolResult } from "./tool-result.ts";

// The one call state machine (see `docs/design.md`, "Tools and toolsets", "The call state
// machine"). A local tool and a remote `tools/call` differ only in how the work starts, how a
// reply reaches it and how it is stopped; the transitions, the checks on every step, the
// progress/log listeners and their cleanup live here once.

/** Where a call is: `ready` → `running` ⇄ `pending` → `finished`. */
/** The input that starts a call, as its `Toolset` hands it on (`CallOptions`' own fields). */
export type Invoke = Extract<ToolHandlerInput, { type: "invoke" }>;

export type CallState = "ready" | "running" | "pending" | "finished";

/**
 * What the running work reports to the step that waits for it: a result, a failure (thrown
 * to the caller as is), or a question. `Q` is what the handler needs to route the answer back.
 */
export type CallEvent<Q> =
  | { type: "done"; result: ToolResult }
  | { type: "failed"; error: unknown }
  | { type: "ask"; request: ToolInteractionRequest; question: Q };

/** A reply to route back to the work: the caller's response, or why the question failed. */
export type CallAnswer = { response: ToolInteractionResponse } | { error: ToolError };

/**
 * One invocation of one tool. Subclasses say how the work starts (`start`), how an accepted
 * reply reaches it (`deliver`) and how it stops (`abort`, `cancelled`); they report through
 * `emit`, `progress` and `log`.
 *
 * Guarantees, local or remote: `cancel` is accepted in every state, even while another step
 * is in flight, and wins over anything the work produces after it; a reply is checked against
 * the pending request before it reaches the work, and a bad one leaves the question open;
 * progress and log messages reach only the listeners of the step in flight, which are dropped
 * when that step settles.
 */
export abstract class CallMachine<Q> implements ToolHandlerBackend {
  /** The tool's name, for errors. */
  protected abstract readonly toolName: string;
  /** Applies a form's schema to its reply; without it the asker alone checks the reply. */
  declare protected formValidator?: JsonSchemaValidator | undefined;
  #state: CallState = "ready";
  #busy = false;
  #events: CallEvent<Q>[] = [];
  #waiter: { resolve(event: CallEvent<Q>): void; reject(error: unknown): void } | undefined;
  // The questions asked and not yet answered, in the order asked (a tool may ask several at once).
  #open: Extract<CallEvent<Q>, { type: "ask" }>[] = [];
  #stopped: ToolError | undefined;
  #listeners: StepOptions | undefined;

  /**
   * Starts the work: check the arguments (a throw ends the call in `finished`, nothing ran),
   * then begin it; it reports through `emit`.
   */
  protected abstract start(input: Invoke, callId: string | undefined): Promise<void> | void;

  /**
   * Routes an accepted reply (or the reason the question failed) to the work. A `cancel`
   * response is delivered before the call is cancelled, so a remote side can be told.
   */
  protected abstract deliver(question: Q, answer: CallAnswer): Promise<void> | void;

  /** Stops the work at once because the call ended with `error`; `questions` are the open ones. */
  protected abstract abort(error: ToolError, questions: readonly Q[]): void;

  /** Called after a `cancel` of a call that had started, so a remote side can be told. */
  protected cancelled(_reason: string | undefined): Promise<void> | void {}

  /** Called on every state change (a remote handler arms its idle deadline while `running`). */
  protected entered(_state: CallState): void {}

  /** The current state. */
  protected get state(): CallState {
    return this.#state;
  }

  /** Why the call was stopped from outside (cancel, timeout, shutdown), if it was. */
  protected get stopped(): ToolError | undefined {
    return this.#stopped;
  }

  /** Whether the caller of the step in flight answers questions (`StepOptions.answers`). */
  protected get answers(): boolean {
    return this.#listeners?.answers === true;
  }

  /**
   * Performs one transition.
   *
   * @throws ToolError `cancelled` for a `cancel`; `invalid_interaction` for a reply that does
   * not fit the pending request (the question stays open) or when none is pending;
   * `unsupported` for an unknown input, a second `invoke` or overlapping steps; else what the
   * work fails with.
   */
  async step(input: ToolHandlerInput, options?: StepOptions): Promise<ToolHandlerOutput> {
    // A primitive has no `type` either, so `?.` covers every non-object.
    const type = (input as { type?: unknown } | null | undefined)?.type;
    if (type === "cancel") throw await this.#cancel((input as { reason?: unknown }).reason);
    if (type !== "invoke" && type !== "interaction") {
      throw unsupported(
        `step input ${JSON.stringify(type) ?? typeof input} (expected invoke, interaction or cancel)`,
      );
    }
    if (this.#busy) throw unsupported("a step while another step of this handler is in flight");
    this.#busy = true;
    this.#listeners = options;
    try {
      if (input.type === "invoke") return await this.#invoke(input);
      return await this.#answer((input as { response: ToolInteractionResponse }).response);
    } finally {
      this.#busy = false;
      // Work still running after its step settled must not reach that caller's listeners.
      this.#listeners = undefined;
    }
  }

  /**
   * Reports work to the listener of the step in flight; a throwing listener is ignored. Public so
   * a local tool's context can call it directly (no forwarding method: 40 bytes gzip less).
   */
  progress(update: ToolProgress): void {
    notify(this.#listeners?.onProgress, update);
  }

  /** Sends a log message to the listener of the step in flight; a throwing listener is ignored. */
  log(entry: ToolLog): void {
    notify(this.#listeners?.onLog, entry);
  }

  /** Reports what the work did; ignored once the call has finished. */
  protected emit(event: CallEvent<Q>): void {
    if (this.#state === "finished") return;
    const waiter = this.#waiter;
    // One event settles the wait; any more that come before the step resumes queue behind it.
    this.#waiter = undefined;
    if (waiter) waiter.resolve(event);
    else this.#events.push(event);
  }

  /**
   * Ends the call from outside its own flow (cancel, timeout, shutdown): the step in flight
   * rejects with `error`, later replies replay it, and `abort` stops the work.
   */
  protected stop(error: ToolError): ToolError {
    this.#stopped ??= error;
    if (this.#state === "finished") return error;
    // Questions not returned yet are open too: the work waits on them.
    const questions = [...this.#open, ...this.#events].flatMap((event) =>
      event.type === "ask" ? [event.question] : [],
    );
    this.#enter("finished");
    this.#events = [];
    this.#open = [];
    this.#waiter?.reject(error);
    this.#waiter = undefined;
    this.abort(error, questions);
    return error;
  }

  async #invoke(input: Invoke): Promise<ToolHandlerOutput> {
    if (this.#state !== "ready") {
      throw unsupported(`invoke on a ${this.#state} handler (one handler runs one call)`);
    }
    this.#enter("running");
    try {
      const callId = typeof input.callId === "string" ? input.callId : undefined;
      await this.start(input, callId);
    } catch (error) {
      if ((this.#state as CallState) !== "finished") this.#enter("finished");
      throw this.#stopped ?? error;
    }
    if (this.#stopped) throw this.#stopped;
    return await this.#next();
  }

  async #answer(response: ToolInteractionResponse): Promise<ToolHandlerOutput> {
    // The reply answers the open question with its id; one matching none is checked against
    // the first, which refuses it.
    const open = this.#open;
    const pending = open.find((event) => event.request.id === response?.id) ?? open[0];
    if (this.#state !== "pending" || !pending) {
      throw this.#stopped ?? noPendingInteraction(response, this.#state);
    }
    let problem: unknown;
    try {
      await checkInteractionResponse(pending.request, response, this.formValidator);
    } catch (error) {
      problem = error;
    }
    if (this.#stopped) throw this.#stopped;
    if (isToolError(problem, "invalid_interaction")) throw problem;
    // Any other problem is with the request itself (a form schema that cannot be applied):
    // that is the asker's to handle, so its question fails and the call goes on.
    const answer: CallAnswer =
      problem === undefined ? { response } : { error: asToolError(problem) };
    open.splice(open.indexOf(pending), 1);
    // With other questions open the call still waits on its caller, not on the work.
    if (open.length === 0) this.#enter("running");
    try {
      await this.deliver(pending.question, answer);
    } catch (error) {
      throw this.stop(this.#stopped ?? asToolError(error));
    }
    if ("response" in answer && answer.response.type === "cancel") {
      throw await this.#cancel(answer.response.reason);
    }
    if (this.#stopped) throw this.#stopped;
    // The rest stay open unless the work already ended (a remote round that failed).
    const ended = this.#events.some((event) => event.type !== "ask");
    return open.length > 0 && !ended ? this.#asking() : await this.#next();
  }

  async #next(): Promise<ToolHandlerOutput> {
    const event =
      this.#events.shift() ??
      (await new Promise<CallEvent<Q>>((resolve, reject) => {
        this.#waiter = { resolve, reject };
      }));
    this.#waiter = undefined;
    // A cancel that landed while this step was resuming wins over what the work produced.
    if (this.#stopped) throw this.#stopped;
    if (event.type === "ask") {
      // Questions asked together (`Promise.all`) are queued behind it: open them all at once.
      this.#open.push(event);
      while (this.#events[0]?.type === "ask") {
        this.#open.push(this.#events.shift() as typeof event);
      }
      this.#enter("pending");
      return this.#asking();
    }
    // Questions still open when the work ended are moot.
    this.#open = [];
    this.#enter("finished");
    if (event.type === "failed") throw event.error;
    return { type: "completed", result: event.result };
  }

  // The step output of a call waiting on its open questions: the first, and all of them.
  #asking(): ToolHandlerOutput {
    const open = this.#open.map((event) => event.request);
    return { type: "interaction", request: open[0] as ToolInteractionRequest, "~open": open };
  }

  async #cancel(reason: unknown): Promise<ToolError> {
    const error = cancelledCall(this.toolName, reason);
    const live = this.#state === "running" || this.#state === "pending";
    this.stop(error);
    if (live) await this.cancelled(error.reason);
    return error;
  }

  #enter(state: CallState): void {
    this.#state = state;
    this.entered(state);
  }
}

/** Returns the `unsupported` error for a misused handler. */
export function unsupported(operation: string): ToolError {
  return new ToolError({ type: "unsupported", operation });
}

function asToolError(error: unknown): ToolError {
  if (isToolError(error)) return error;
  return new ToolError({ type: "protocol", message: errorText(error) }, { cause: error });
}

function notify<T>(listener: ((value: T) => void) | undefined, value: T): void {
  try {
    listener?.(value);
  } catch {
    // The listener belongs to the caller; its bug must not fail the call.
  }
}
