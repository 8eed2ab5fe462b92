import type { CarriedState } from "../declaration/carried-state.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import type { ToolsetBackend } from "../execution/backend.ts";
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

  private constructor(backend: ToolsetBackend) {
    this.#backend = backend;
    this.#lifecycle = createLifecycle(() => backend.shutdown());
  }

  /**
   * Creates a toolset of local tools.
   *
   * @param tools Tools made by `defineTool`; an empty list is valid.
   * @returns The toolset.
   * @throws ToolError `duplicate_name` when two tools share a name.
   */
  static local(tools: readonly Tool[]): Toolset {
    return new Toolset(createLocalBackend(tools));
  }

  /**
   * Creates a toolset over any backend, adding shared shutdown and admission. A `Toolset` is
   * returned as is.
   *
   * @param backend The source.
   * @returns The toolset.
   */
  static fromBackend(backend: ToolsetBackend): Toolset {
    return backend instanceof Toolset ? backend : new Toolset(backend);
  }

  /**
   * Creates one toolset from several; with `namespaces`, tools are listed as `ns__name`.
   *
   * @param toolsets The sources; shutting the merge down shuts them down.
   * @param options One namespace per toolset.
   * @returns The merged toolset.
   * @throws ToolError `invalid_configuration` for a bad namespace list.
   */
  static merge(
    toolsets: readonly Toolset[],
    options: { namespaces?: readonly string[] } = {},
  ): Toolset {
    return new Toolset(createMergedBackend(toolsets, options.namespaces));
  }

  /**
   * Returns every tool's declaration, sorted by name.
   *
   * @throws ToolError `closed` after shutdown has started.
   */
  listTools(): Promise<ToolInfo[]> {
    return this.#lifecycle.admit("listTools", async () =>
      (await this.#backend.listTools())
        .slice()
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    );
  }

  /**
   * Returns a fresh handler for one call of the named tool.
   *
   * @param name The tool's name.
   * @throws ToolError `unknown_tool`, or `closed` after shutdown has started.
   */
  toolHandler(name: string): Promise<ToolHandler> {
    return this.#lifecycle.admit(
      "toolHandler",
      async () => new ToolHandler(await this.#backend.toolHandler(name), this.#lifecycle),
    );
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
  async call(name: string, args: unknown, options: CallOptions = {}): Promise<ToolResult> {
    // Hint: a pre-aborted call must not reach the backend at all, not even to create a handler.
    if (options.signal?.aborted) throw cancelledError(name, options.signal);
    return driveHandler(name, await this.toolHandler(name), args, options);
  }

  /**
   * Shuts the toolset down: seals admission, aborts live calls (their next step fails with
   * `closed`), waits for admitted operations, then runs the backend's cleanup exactly once.
   * Every call, concurrent or later, gets the same outcome.
   */
  shutdown(): Promise<void> {
    return this.#lifecycle.shutdown();
  }
}
