import type { CarriedState } from "../declaration/carried-state.ts";
import { ToolError } from "../errors.ts";
import type { ToolsetBackend } from "../execution/backend.ts";
import type { Tool } from "./define-tool.ts";
import { LocalHandler } from "./local-handler.ts";

/**
 * Creates the backend of a local toolset: tools by name, declarations sorted by name, one
 * fresh handler per call.
 *
 * @param tools Tools made by `defineTool`.
 * @returns The backend.
 * @throws ToolError `duplicate_name` when two tools share a name; `invalid_configuration` for
 * something that is not a tool.
 */
export function createLocalBackend(tools: readonly Tool[]): ToolsetBackend<LocalHandler> {
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
  return {
    listTools: async () => infos.slice(),
    toolHandler: async (name) => {
      const tool = byName.get(name);
      if (!tool) throw new ToolError({ type: "unknown_tool", name: String(name) });
      return new LocalHandler(tool);
    },
    shutdown: async () => {},
    carriedState: async () => {
      const states: CarriedState[] = [];
      for (const tool of sorted) {
        const state = tool.carriedState?.();
        if (state) states.push(state);
      }
      return states;
    },
  };
}
