import type { CarriedState } from "../declaration/carried-state.ts";
import { byName, type ToolName } from "../declaration/tool-name.ts";
import { errorText, isToolError, ToolError, type ToolErrorInput } from "../errors.ts";
import type { ToolsetBackend } from "../execution/backend.ts";
import { type CallJournal, createCallJournal } from "../execution/call-journal.ts";
import {
  type CallAnswer,
  CallMachine,
  type Invoke,
  unsupported,
} from "../execution/call-machine.ts";
import { isToolResult, resultFromShape, ToolResult } from "../execution/tool-result.ts";
import { checkInteractionRequest } from "../interaction/check-interaction-request.ts";
import {
  newInteractionId,
  type ToolInteractionKind,
  type ToolInteractionRequest,
} from "../interaction/interaction-request.ts";
import { readSamplingResult } from "../interaction/read-sampling.ts";
import { ROOTS_PROMPT, type Root, readRoots } from "../interaction/roots.ts";
import { type SamplingResult, samplingPrompt } from "../interaction/sampling.ts";
import type { Tool, ToolContext } from "./define-tool.ts";

// A local call, from the backend `Toolset.local` wraps to the tool's own function: the handler
// (the shared call machine driving one function call), the context the tool receives, and the
// checks on what it returns (see `docs/design.md`, "Tools and toolsets").

/** The backend of a local toolset; its handlers can also be made synchronously. */
export interface LocalBackend extends ToolsetBackend<LocalHandler> {
  /**
   * Returns a fresh handler at once, for the per-call fast path of `Toolset.call`.
   *
   * @throws ToolError `unknown_tool`.
   */
  "~handler"(name: string): LocalHandler;
  /** Returns the tools' carried state, in name order. */
  carriedState(): Promise<CarriedState[]>;
}

/**
 * Creates the backend of a local toolset: tools by name, declarations sorted by name, one
 * fresh handler per call. Its `carriedState` reads every tool's state at call time and fails
 * with `invalid_output` when one throws or returns something other than `{ label, body }`
 * strings: skipping that tool would let compaction silently drop the state it owns.
 *
 * @throws ToolError `duplicate_name` when two tools share a name; `invalid_configuration` for
 * something that is not a tool.
 */
export function createLocalBackend(tools: readonly Tool[]): LocalBackend {
  if (!Array.isArray(tools))
    throw new ToolError({ type: "invalid_configuration", message: "tools must be an array" });
  const tools_ = new Map<string, Tool>();
  for (const tool of tools) {
    if (typeof tool?.info?.name !== "string" || typeof tool.call !== "function") {
      throw new ToolError({
        type: "invalid_configuration",
        message: "every tool must come from defineTool",
      });
    }
    if (tools_.has(tool.name)) throw new ToolError({ type: "duplicate_name", name: tool.name });
    tools_.set(tool.name, tool);
  }
  const sorted = [...tools_.values()].sort(byName);
  const infos = sorted.map((tool) => tool.info);
  const handler = (name: string): LocalHandler => {
    const tool = tools_.get(name);
    if (!tool) throw new ToolError({ type: "unknown_tool", name: String(name) });
    return new LocalHandler(tool);
  };
  return {
    "~handler": handler,
    // The Toolset copies the list for its caller; copying here too would double the cost.
    listTools: async () => infos,
    toolHandler: async (name) => handler(name),
    shutdown: async () => {},
    carriedState: async () => {
      const states: CarriedState[] = [];
      for (const tool of sorted) {
        if (!tool.carriedState) continue;
        const state = readCarriedState(tool);
        if (state) states.push(state);
      }
      return states;
    },
  };
}

function readCarriedState(tool: Tool): CarriedState | undefined {
  const fail = (message: string, cause?: unknown) =>
    new ToolError(
      { type: "invalid_output", message: `${tool.name} carriedState(): ${message}`, issues: [] },
      { cause },
    );
  let state: unknown;
  try {
    state = tool.carriedState?.();
  } catch (error) {
    throw fail(`threw ${errorText(error)}`, error);
  }
  if (state === undefined || state === null) return undefined;
  const { label, body } = state as Partial<CarriedState>;
  if (typeof label !== "string" || typeof body !== "string") {
    throw fail("must return { label: string, body: string } or undefined");
  }
  return state as CarriedState;
}

// The tool's open question: settling it resumes the tool.
interface Question {
  resolve(content: unknown): void;
  reject(error: unknown): void;
}

/**
 * One invocation of one local tool on the shared call machine. The tool's function runs with
 * validated arguments and a `ToolContext`; what it returns is checked (`invalid_output`) and
 * what it throws becomes an `isError` result, except a `ToolError`, which fails the call.
 */
export class LocalHandler extends CallMachine<Question> {
  protected readonly toolName: ToolName;
  readonly #tool: Tool;
  // Created on first use; making an AbortController costs microseconds and most calls never read it.
  #controller: AbortController | undefined;
  #callId: string | undefined;
  // The host's journal, or one of this call's own made on the first `ctx.once`.
  #journal: CallJournal | undefined;

  /** Creates a handler in the ready state for one call of `tool`. */
  constructor(tool: Tool) {
    super();
    this.#tool = tool;
    this.toolName = tool.name;
    this.formValidator = tool["~formValidator"];
  }

  protected async start(input: Invoke, callId: string | undefined): Promise<void> {
    this.#callId = callId;
    this.#journal = input["~journal"];
    const tool = this.#tool;
    const outcome = await tool["~input"].validate(input.arguments);
    if (this.stopped) return;
    if (!outcome.ok) {
      const first = outcome.issues[0];
      const more = outcome.issues.length > 1 ? ` (and ${outcome.issues.length - 1} more)` : "";
      throw new ToolError({
        type: "invalid_arguments",
        tool: tool.name,
        message: `${first.path || "/"}: ${first.message}${more}`,
        issues: outcome.issues,
      });
    }
    const ctx = new LocalContext(this, tool, callId, input.auth);
    const value = outcome.value;
    const run = tool["~run"] ?? tool.call;
    // The tool starts on a microtask, so the step is waiting before it can report.
    Promise.resolve()
      .then(() => run(value, ctx))
      .then(
        (returned) => this.#complete(returned),
        (error: unknown) => this.emit(failure(error)),
      )
      .catch((error: unknown) => this.emit({ type: "failed", error }));
  }

  async #complete(returned: unknown): Promise<void> {
    const result = resultOf(this.#tool, returned);
    await checkOutput(this.#tool, result);
    this.emit({ type: "done", result });
  }

  protected deliver(question: Question, answer: CallAnswer): void {
    if ("error" in answer) question.reject(answer.error);
    else if (answer.response.type === "submit") question.resolve(answer.response.content);
    else if (answer.response.type === "decline") {
      question.reject(declined(this.toolName, answer.response.reason));
    }
    // `cancel`: the machine cancels the call next, which rejects the question.
  }

  protected abort(error: ToolError, questions: readonly Question[]): void {
    this.#controller?.abort(error);
    for (const question of questions) question.reject(error);
  }

  /** The call's signal, made on first use. */
  "~signal"(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.stopped) this.#controller.abort(this.stopped);
    }
    return this.#controller.signal;
  }

  /** Runs a keyed side effect once per call (`ctx.once`). */
  "~once"<T>(key: string, effect: () => T | Promise<T>): Promise<T> {
    this.#journal ??= createCallJournal();
    return this.#journal.once(key, effect, this["~signal"](), this.toolName);
  }

  /** Suspends the call on a question for the caller. */
  "~ask"(prompt: string, kind: ToolInteractionKind): Promise<unknown> {
    if (this.state === "finished")
      return Promise.reject(this.stopped ?? unsupported("asking after the call finished"));
    const tool = this.#tool;
    const problem = checkInteractionRequest(tool.name, tool.info.interactions, kind);
    if (problem) {
      // An undeclared kind ends the call; a malformed request fails only this question.
      if (problem.type === "undeclared_interaction") this.stop(problem);
      return Promise.reject(problem);
    }
    // A host that answers by running the tool again refuses a tool that must not run twice.
    const refused = this.#journal?.askProblem(tool.name, tool.replayable !== false);
    if (refused) return Promise.reject(this.stop(refused));
    const request: ToolInteractionRequest = {
      id: newInteractionId(),
      toolName: tool.name,
      prompt: String(prompt),
      kind,
    };
    if (this.#callId !== undefined) request.callId = this.#callId;
    return new Promise((resolve, reject) => {
      this.emit({ type: "ask", request, question: { resolve, reject } });
    });
  }
}

function failure(error: unknown) {
  if (isToolError(error)) return { type: "failed", error } as const;
  return { type: "done", result: ToolResult.error(errorText(error)) } as const;
}

function declined(tool: string, reason: string | undefined): ToolError {
  // The constructor drops an undefined field, so `reason` stays absent when none was given.
  return new ToolError({ type: "interaction_declined", tool, reason } as ToolErrorInput);
}

/**
 * The result for what a tool's function returned: a string becomes text, a `ToolResult.*`
 * value is kept, a plain object with exactly a result's shape (an unbranded `ToolResult`, an
 * MCP `CallToolResult`; see `resultFromShape`) is read as that result, anything else becomes
 * structured content with its JSON text. Whatever ends
 * up as structured content must survive `JSON.stringify`, or the call fails with
 * `invalid_output` (design.md T5): a `10n` or a cyclic object would otherwise break every
 * transport with a plain `TypeError`.
 */
function resultOf(tool: Tool, returned: unknown): ToolResult {
  if (typeof returned === "string") return ToolResult.text(returned);
  const value = resultFromShape(returned) ?? returned;
  if (isToolResult(value)) {
    if (value.structuredContent !== undefined) jsonText(tool, value.structuredContent);
    for (const item of value.content) if (item.type === "json") jsonText(tool, item.value);
    return value;
  }
  if (value === undefined) {
    throw new ToolError({
      type: "invalid_output",
      message: `${tool.name} returned nothing`,
      issues: [],
    });
  }
  return ToolResult.of([{ type: "text", text: jsonText(tool, value) }], {
    structuredContent: value,
  });
}

function jsonText(tool: Tool, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new ToolError(
      {
        type: "invalid_output",
        message: `${tool.name} returned a value that cannot be serialised as JSON: ${errorText(error)}`,
        issues: [],
      },
      { cause: error },
    );
  }
  if (text === undefined) {
    throw new ToolError({
      type: "invalid_output",
      message: `${tool.name} returned a ${typeof value}, which has no JSON form`,
      issues: [],
    });
  }
  return text;
}

// An output schema binds successful results only; `isError` results are exempt.
async function checkOutput(tool: Tool, result: ToolResult): Promise<void> {
  const output = tool["~output"];
  if (result.isError || !output) return;
  if (result.structuredContent === undefined) {
    throw new ToolError({
      type: "invalid_output",
      message: `${tool.name} declares an output schema but returned no structuredContent`,
      issues: [],
    });
  }
  const outcome = await output.validate(result.structuredContent);
  if (outcome.ok) return;
  throw new ToolError({
    type: "invalid_output",
    message: `${tool.name} returned structuredContent that does not match its output schema`,
    issues: outcome.issues,
  });
}

type SamplingKind = Extract<ToolInteractionKind, { type: "sampling" }>;

/**
 * The context a local tool receives. Its functions are own closures over the handler, so a tool
 * may destructure them (`call: (input, { progress, signal }) => …`); only the signal is made on
 * first use (an AbortController costs microseconds). Making the closures up front measured
 * the same per call as making each on first use, and is 21 bytes gzip smaller.
 */
class LocalContext implements ToolContext {
  readonly toolName: ToolName;
  declare readonly callId?: string;
  declare readonly auth?: unknown;
  readonly #port: LocalHandler;
  readonly progress: ToolContext["progress"];
  readonly log: ToolContext["log"];
  readonly requestText: ToolContext["requestText"];
  readonly requestForm: ToolContext["requestForm"];
  readonly requestSampling: ToolContext["requestSampling"];
  readonly requestRoots: ToolContext["requestRoots"];
  readonly once: ToolContext["once"];

  constructor(port: LocalHandler, tool: Tool, callId: string | undefined, auth: unknown) {
    this.#port = port;
    this.toolName = tool.name;
    if (callId !== undefined) (this as { callId?: string }).callId = callId;
    if (auth !== undefined) (this as { auth?: unknown }).auth = auth;
    const schemaValidation = tool.info.interactions.formSchemaValidation;
    this.progress = (update) => port.progress(update);
    this.once = (key, effect) => port["~once"](key, effect);
    this.log = (level, data, logger) =>
      port.log(logger === undefined ? { level, data } : { level, data, logger });
    this.requestText = (prompt, options) =>
      port["~ask"](prompt, {
        type: "text",
        multiline: options?.multiline === true,
      }) as Promise<string>;
    this.requestForm = (prompt, schema) =>
      port["~ask"](prompt, { type: "form", schema, schemaValidation }) as Promise<
        Record<string, unknown>
      >;
    this.requestSampling = (request) => {
      const { messages, maxTokens, systemPrompt, temperature, stopSequences } = request ?? {};
      const kind: SamplingKind = { type: "sampling", messages, maxTokens };
      // Optional fields left undefined stay absent, so the caller sees only what was asked.
      if (systemPrompt !== undefined) kind.systemPrompt = systemPrompt;
      if (temperature !== undefined) kind.temperature = temperature;
      if (stopSequences !== undefined) kind.stopSequences = stopSequences;
      return port["~ask"](samplingPrompt(messages), kind).then(
        (reply) => readSamplingResult(reply) as SamplingResult,
      );
    };
    this.requestRoots = () =>
      port["~ask"](ROOTS_PROMPT, { type: "roots" }).then(readRoots) as Promise<Root[]>;
  }

  get signal(): AbortSignal {
    return this.#port["~signal"]();
  }
}
