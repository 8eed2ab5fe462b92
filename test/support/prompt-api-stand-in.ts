// A stand-in for the Prompt API that follows its IDL (webmachinelearning/prompt-api `index.bs`:
// `LanguageModel` with static `availability`/`create`, `prompt`, `promptStreaming`, `append`,
// `measureContextUsage`, `contextUsage`, `contextWindow`, `clone`, `destroy`, the `monitor`'s
// `downloadprogress` events) and Chromium's open-loop tool types (`LanguageModelToolCall`,
// `LanguageModelToolSuccess`, `LanguageModelToolError`). What the model says is scripted.

/** Chromium's `LanguageModelToolCall`: `{callID, name, arguments}`. */
export class LanguageModelToolCall {
  readonly callID: string;
  readonly name: string;
  readonly arguments: object;
  constructor(init: { callID: string; name: string; arguments: object }) {
    this.callID = init.callID;
    this.name = init.name;
    this.arguments = init.arguments;
  }
}

/** Chromium's `LanguageModelToolSuccess`: `{callID, name, result}`. */
export class LanguageModelToolSuccess {
  readonly callID: string;
  readonly name: string;
  readonly result: Array<{ type: string; value: unknown }>;
  constructor(init: {
    callID: string;
    name: string;
    result: Array<{ type: string; value: unknown }>;
  }) {
    this.callID = init.callID;
    this.name = init.name;
    this.result = init.result;
  }
}

/** Chromium's `LanguageModelToolError`: `{callID, name, errorMessage}`. */
export class LanguageModelToolError {
  readonly callID: string;
  readonly name: string;
  readonly errorMessage: string;
  constructor(init: { callID: string; name: string; errorMessage: string }) {
    this.callID = init.callID;
    this.name = init.name;
    this.errorMessage = init.errorMessage;
  }
}

type Availability = "unavailable" | "downloadable" | "downloading" | "available";
/** One output chunk: text, or a content part such as `{type: "tool-call", value}`. */
export type StandInChunk = string | { type: string; value: unknown };
/** What the scripted model says, given its session's create options and the prompt input. */
export type StandInScript = (
  session: { options: Record<string, unknown>; index: number },
  input: unknown,
  promptOptions: Record<string, unknown>,
) => StandInChunk[];

/** Installs the stand-in on `globalThis`; returns what it saw and a function that removes it. */
export function installPromptApi(
  script: StandInScript,
  options: {
    availability?: Availability;
    toolClasses?: boolean;
    contextWindow?: number;
    createError?: Error;
  } = {},
) {
  const g = globalThis as Record<string, unknown>;
  const sessions: Array<{
    options: Record<string, unknown>;
    inputs: unknown[];
    promptOptions: Array<Record<string, unknown>>;
    destroyed: boolean;
  }> = [];
  const availabilityCalls: unknown[] = [];
  let availability: Availability = options.availability ?? "available";
  const contextWindow = options.contextWindow ?? 6144;
  const tokens = (value: unknown) => Math.ceil(JSON.stringify(value ?? "").length / 4);

  class LanguageModel extends EventTarget {
    #record: (typeof sessions)[number];
    #usage: number;
    oncontextoverflow: ((event: Event) => void) | null = null;
    readonly contextWindow = contextWindow;
    get contextUsage() {
      return this.#usage;
    }
    private constructor(record: (typeof sessions)[number]) {
      super();
      this.#record = record;
      this.#usage = tokens(record.options.initialPrompts);
    }
    static async availability(opts: object = {}): Promise<Availability> {
      availabilityCalls.push(opts);
      return availability;
    }
    static async create(opts: Record<string, unknown> = {}): Promise<LanguageModel> {
      (opts.signal as AbortSignal | undefined)?.throwIfAborted();
      if (options.createError) throw options.createError;
      if (availability === "unavailable")
        throw new DOMException("The model is unavailable", "NotSupportedError");
      if (availability !== "available") {
        const monitor = new EventTarget();
        (opts.monitor as ((m: EventTarget) => void) | undefined)?.(monitor);
        for (const loaded of [0, 0.5, 1]) {
          monitor.dispatchEvent(Object.assign(new Event("downloadprogress"), { loaded }));
        }
        availability = "available";
      }
      const record = { options: opts, inputs: [], promptOptions: [], destroyed: false };
      sessions.push(record);
      return new LanguageModel(record);
    }
    async prompt(
      input: unknown,
      opts: Record<string, unknown> = {},
    ): Promise<string | StandInChunk[]> {
      const chunks = this.#run(input, opts);
      return chunks.every((c) => typeof c === "string") ? chunks.join("") : chunks;
    }
    promptStreaming(
      input: unknown,
      opts: Record<string, unknown> = {},
    ): ReadableStream<StandInChunk> {
      const signal = opts.signal as AbortSignal | undefined;
      const chunks = this.#run(input, opts);
      return new ReadableStream({
        async pull(controller) {
          // One chunk per macrotask, as a model produces them over time.
          await new Promise((resolve) => setTimeout(resolve, 1));
          if (signal?.aborted) return controller.error(signal.reason);
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      });
    }
    async append(input: unknown, opts: { signal?: AbortSignal } = {}): Promise<void> {
      opts.signal?.throwIfAborted();
      this.#usage += tokens(input);
    }
    async measureContextUsage(input: unknown): Promise<number> {
      return tokens(input);
    }
    async clone(): Promise<LanguageModel> {
      return new LanguageModel({ ...this.#record, inputs: [...this.#record.inputs] });
    }
    destroy(): void {
      this.#record.destroyed = true;
    }
    #run(input: unknown, opts: Record<string, unknown>): StandInChunk[] {
      if (this.#record.destroyed)
        throw new DOMException("The session was destroyed", "InvalidStateError");
      (opts.signal as AbortSignal | undefined)?.throwIfAborted();
      this.#record.inputs.push(input);
      this.#record.promptOptions.push(opts);
      const index = sessions.indexOf(this.#record);
      const chunks = script({ options: this.#record.options, index }, input, opts);
      this.#usage += tokens(input) + tokens(chunks);
      return [...chunks];
    }
  }

  const installed: Record<string, unknown> = { LanguageModel };
  if (options.toolClasses)
    Object.assign(installed, {
      LanguageModelToolCall,
      LanguageModelToolSuccess,
      LanguageModelToolError,
    });
  Object.assign(g, installed);
  return {
    sessions,
    availabilityCalls,
    remove: () => {
      for (const key of Object.keys(installed)) delete g[key];
    },
  };
}
