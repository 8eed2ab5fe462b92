import type { ToolName } from "../declaration/tool-name.ts";
import type { ToolLog, ToolLogLevel, ToolProgress } from "../execution/handler-io.ts";
import type { ToolInteractionKind } from "../interaction/interaction-request.ts";
import { readSamplingResult } from "../interaction/read-sampling.ts";
import { type SamplingResult, samplingPrompt } from "../interaction/sampling.ts";
import type { ToolContext } from "./tool-context.ts";

type SamplingKind = Extract<ToolInteractionKind, { type: "sampling" }>;

/** Context port interface: what a context asks of the handler that runs its tool. */
export interface ContextPort {
  /** Returns the call's signal, creating it on first use. */
  "~signal"(): AbortSignal;
  /** Forwards a progress report to the step in flight. */
  "~progress"(update: ToolProgress): void;
  /** Forwards a log message to the step in flight. */
  "~log"(log: ToolLog): void;
  /** Suspends the call on a question for the caller. */
  "~ask"(prompt: string, kind: ToolInteractionKind): Promise<unknown>;
}

/**
 * The context a local tool receives. Its functions work detached, so a tool may destructure
 * them (`call: (input, { progress, signal }) => …`); each is made on first use, since most
 * calls use none of them.
 */
export class LocalContext implements ToolContext {
  readonly toolName: ToolName;
  declare readonly callId?: string;
  readonly #port: ContextPort;
  readonly #formSchemaValidation: boolean;
  #progress: ToolContext["progress"] | undefined;
  #log: ToolContext["log"] | undefined;
  #requestText: ToolContext["requestText"] | undefined;
  #requestForm: ToolContext["requestForm"] | undefined;
  #requestSampling: ToolContext["requestSampling"] | undefined;

  /**
   * Creates the context of one call.
   *
   * @param port The handler running the call.
   * @param toolName The tool's name.
   * @param callId The caller's correlation id.
   * @param formSchemaValidation Whether form replies are validated against their schema.
   */
  constructor(
    port: ContextPort,
    toolName: ToolName,
    callId: string | undefined,
    formSchemaValidation: boolean,
  ) {
    this.#port = port;
    this.toolName = toolName;
    if (callId !== undefined) (this as { callId?: string }).callId = callId;
    this.#formSchemaValidation = formSchemaValidation;
  }

  /** Aborted when the call is cancelled or its toolset shuts down. */
  get signal(): AbortSignal {
    return this.#port["~signal"]();
  }

  /** Reports progress to whoever drives the call. */
  get progress(): ToolContext["progress"] {
    const port = this.#port;
    this.#progress ??= (update) => port["~progress"](update);
    return this.#progress;
  }

  /** Logs a message to whoever drives the call. */
  get log(): ToolContext["log"] {
    const port = this.#port;
    this.#log ??= (level: ToolLogLevel, data: unknown, logger?: string) =>
      port["~log"](logger === undefined ? { level, data } : { level, data, logger });
    return this.#log;
  }

  /** Asks the caller for text. */
  get requestText(): ToolContext["requestText"] {
    const port = this.#port;
    this.#requestText ??= (prompt, options) =>
      port["~ask"](prompt, {
        type: "text",
        multiline: options?.multiline === true,
      }) as Promise<string>;
    return this.#requestText;
  }

  /** Asks the caller for a JSON object described by a schema. */
  get requestForm(): ToolContext["requestForm"] {
    const port = this.#port;
    const schemaValidation = this.#formSchemaValidation;
    this.#requestForm ??= (prompt, schema) =>
      port["~ask"](prompt, { type: "form", schema, schemaValidation }) as Promise<
        Record<string, unknown>
      >;
    return this.#requestForm;
  }

  /** Asks the caller's model for a reply. */
  get requestSampling(): ToolContext["requestSampling"] {
    const port = this.#port;
    this.#requestSampling ??= (request) => {
      const { messages, maxTokens, systemPrompt, temperature, stopSequences } = request ?? {};
      const kind: SamplingKind = { type: "sampling", messages, maxTokens };
      // Hint: optional fields left undefined stay absent, so the caller sees only what was asked.
      if (systemPrompt !== undefined) kind.systemPrompt = systemPrompt;
      if (temperature !== undefined) kind.temperature = temperature;
      if (stopSequences !== undefined) kind.stopSequences = stopSequences;
      return port["~ask"](samplingPrompt(messages), kind).then(
        (reply) => readSamplingResult(reply) as SamplingResult,
      );
    };
    return this.#requestSampling;
  }
}
