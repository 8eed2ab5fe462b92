import type { CarriedState } from "../declaration/carried-state.ts";
import { ToolError } from "../errors.ts";
import type { ToolsetBackend } from "../execution/backend.ts";
import type { Tool } from "./define-tool.ts";
import { LocalHandler } from "./local-handler.ts";

/** Local backend interface: a backend whose handlers can also be made synchronously. */
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
 * fresh handler per call.
 *
 * @param tools Tools made by `defineTool`.
 * @returns The backend. Its `carriedState` reads every tool's state at call time and fails
 * with `invalid_output` when one throws or returns something other than `{ label, body }`
 * strings: skipping that tool would let compaction silently drop the state it owns.
 * @throws ToolError `duplicate_name` when two tools share a name; `invalid_configuration` for
 * something that is not a tool.
 */
export function createLocalBackend(tools: readonly Tool[]): LocalBackend {
  if (!Array.isArray(tools))
    throw new ToolError({ type: "invalid_configuration", message: "tools must be an array" });
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (typeof tool?.info?.name !== "string" || typeof tool.call !== "function") {
      throw new ToolError({
        type: "invalid_configuration",
        message: "every tool must come from defineTool",
      });
    }
    if (byName.has(tool.name)) throw new ToolError({ type: "duplicate_name", name: tool.name });
    byName.set(tool.name, tool);
  }
  const sorted = [...byName.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const infos = sorted.map((tool) => tool.info);
  const handler = (name: string): LocalHandler => {
    const tool = byName.get(name);
    if (!tool) throw new ToolError({ type: "unknown_tool", name: String(name) });
    return new LocalHandler(tool);
  };
  return {
    "~handler": handler,
    // Hint: the Toolset copies the list for its caller; copying here too would double the cost.
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
    throw fail(`threw ${error instanceof Error ? error.message : String(error)}`, error);
  }
  if (state === undefined || state === null) return undefined;
  const { label, body } = state as Partial<CarriedState>;
  if (typeof label !== "string" || typeof body !== "string") {
    throw fail("must return { label: string, body: string } or undefined");
  }
  return state as CarriedState;
}
