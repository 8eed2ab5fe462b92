import type { CarriedState } from "../declaration/carried-state.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { ToolError } from "../errors.ts";
import type { ToolHandlerBackend, ToolsetBackend } from "../execution/backend.ts";
import type { ToolResult } from "../execution/tool-result.ts";
import type { Tool } from "../local/define-tool.ts";
import { createLocalBackend } from "../local/local-backend.ts";
import { type CallOptions, driveHandler } from "./call-tool.ts";
import { cancelledError } from "./cancelled-error.ts";
import { createLifecycle, type Lifecycle } from "./lifecycle.ts";
import { createMergedBackend } from "./merge.ts";
import { ToolHandler } from "./tool-handler.ts";

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
export class Toolset implements ToolsetBackend<ToolHandler> {
  readonly #backend: ToolsetBackend;
  readonly #lifecycle: Lifecycle;
  // Hint: local handlers are made synchronously, so `call` skips three promise layers per call.
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
  toolHandler(name: string): Promise<ToolHandler> {
    return this.#lifecycle.admit("toolHandler", async () => {
      const handler = await this.#backend.toolHandler(name);
      if (typeof handler?.step !== "function") {
        throw new ToolError({
          type: "protocol",
          message: `the backend gave no handler for ${name}`,
        });
      }
      return new ToolHandler(handler, this.#lifecycle);
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
    // Hint: a pre-aborted call must not reach the backend at all, not even to create a handler.
    if (settings.signal?.aborted) return Promise.reject(cancelledError(name, settings.signal));
    const local = this.#localHandler;
    if (!local) {
      return this.toolHandler(name).then((handler) => driveHandler(name, handler, args, settings));
    }
    // Hint: admission and creation happen in one synchronous stretch, so shutdown has nothing
    // admitted to wait for; returning driveHandler's promise as is spares an async layer.
    if (this.#lifecycle.sealed)
      return Promise.reject(new ToolError({ type: "closed", operation: "toolHandler" }));
    let handler: ToolHandler;
    try {
      handler = new ToolHandler(local(name), this.#lifecycle);
    } catch (error) {
      return Promise.reject(error);
    }
    return driveHandler(name, handler, args, settings);
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

// Hint: local and merged backends keep their lists sorted, so the usual cost is one copy and one
// pass; only an unsorted foreign list pays for a sort.
function sortedByName(list: ToolInfo[]): ToolInfo[] {
  if (!Array.isArray(list)) {
    throw new ToolError({ type: "protocol", message: "the backend's listTools gave no array" });
  }
  const copy = list.slice();
  for (let i = 1; i < copy.length; i++) {
    if ((copy[i - 1] as ToolInfo).name > (copy[i] as ToolInfo).name) {
      return copy.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
  }
  return copy;
}
