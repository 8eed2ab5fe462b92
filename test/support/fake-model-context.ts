/**
 * A WebMCP model context that behaves like Chromium 156's `document.modelContext` where
 * toolwire relies on it (names unique, aborting the registration signal unregisters and fires
 * `toolchange`, `executeTool` turns an object result into its JSON text and a thrown error into
 * `UnknownError`, aborting its signal rejects with `AbortError`). Web standards only, so the
 * portable suite can use it in every runtime.
 */
import type { WebMcpModelContext, WebMcpToolDefinition } from "../../src/web/index.ts";

interface Entry {
  definition: WebMcpToolDefinition;
  origin: string;
  exposedTo?: string[];
}

export class FakeModelContext extends EventTarget implements WebMcpModelContext {
  readonly entries = new Map<string, Entry>();
  readonly origin: string;

  constructor(origin = "https://page.example") {
    super();
    this.origin = origin;
  }

  #listeners = 0;

  override addEventListener(...args: Parameters<EventTarget["addEventListener"]>): void {
    if (args[0] === "toolchange") this.#listeners += 1;
    super.addEventListener(...args);
  }

  override removeEventListener(...args: Parameters<EventTarget["removeEventListener"]>): void {
    if (args[0] === "toolchange") this.#listeners -= 1;
    super.removeEventListener(...args);
  }

  /** How many `toolchange` listeners are attached. */
  listenerCount(): number {
    return this.#listeners;
  }

  registerTool(
    definition: WebMcpToolDefinition,
    options: { signal?: AbortSignal; exposedTo?: string[] } = {},
  ): Promise<void> {
    return this.add(definition, this.origin, options);
  }

  /** Registers a tool as a frame of another origin would. */
  registerForeign(definition: WebMcpToolDefinition, origin: string): Promise<void> {
    return this.add(definition, origin, {});
  }

  async getTools(options: { fromOrigins?: string[] } = {}) {
    const origins = new Set([this.origin, ...(options.fromOrigins ?? [])]);
    return [...this.entries.values()]
      .filter((entry) => origins.has(entry.origin))
      .map(({ definition, origin }) => {
        const tool: Record<string, unknown> = {
          name: definition.name,
          title: definition.title ?? "",
          description: definition.description,
          origin,
        };
        if (definition.inputSchema) tool.inputSchema = definition.inputSchema;
        if (definition.annotations) {
          tool.annotations = {
            readOnlyHint: false,
            untrustedContentHint: false,
            consequentialHint: false,
            ...definition.annotations,
          };
        }
        return tool as { name: string; origin: string };
      });
  }

  async executeTool(
    tool: { name: string },
    input: Record<string, unknown>,
    options: { signal?: AbortSignal } = {},
  ): Promise<unknown> {
    const entry = this.entries.get(tool?.name);
    if (!entry) throw new TypeError("The provided value is not of type 'RegisteredTool'.");
    const { signal } = options;
    const run = Promise.resolve().then(() =>
      entry.definition.execute(input, signal ? { signal } : {}),
    );
    const aborted = new Promise<never>((_, reject) => {
      if (signal?.aborted) reject(new DOMException("signal is aborted", "AbortError"));
      signal?.addEventListener("abort", () =>
        reject(new DOMException("signal is aborted", "AbortError")),
      );
    });
    let out: unknown;
    try {
      out = await Promise.race([run, aborted]);
    } catch (error) {
      if ((error as Error).name === "AbortError") throw error;
      throw new DOMException("Tool was executed but the invocation failed.", "UnknownError");
    }
    return typeof out === "string" || out === undefined ? out : JSON.stringify(out);
  }

  private add(
    definition: WebMcpToolDefinition,
    origin: string,
    options: { signal?: AbortSignal; exposedTo?: string[] },
  ): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.entries.has(definition.name) || !definition.description) {
      return Promise.reject(new DOMException("cannot register", "InvalidStateError"));
    }
    const entry: Entry = { definition, origin };
    if (options.exposedTo) entry.exposedTo = options.exposedTo;
    this.entries.set(definition.name, entry);
    signal?.addEventListener("abort", () => {
      if (this.entries.get(definition.name) !== entry) return;
      this.entries.delete(definition.name);
      this.dispatchEvent(new Event("toolchange"));
    });
    this.dispatchEvent(new Event("toolchange"));
    return Promise.resolve();
  }
}
