import type { ToolInfo } from "../declaration/tool-info.ts";
import type { ModelTool } from "../models/model.ts";
import type { Toolset } from "../toolset/toolset.ts";

/**
 * Tool catalog interface: every tool a run may call, listed once at the start of the run.
 */
export interface ToolCatalog {
  /** What the model is told, in name order. */
  specs: ModelTool[];
  /** Every declaration, in name order. */
  infos: ToolInfo[];
  /** Name → declaration and the toolset that runs it. */
  routes: Map<string, { info: ToolInfo; toolset: Toolset }>;
}

/**
 * Returns the catalog of the given toolsets. When two toolsets declare the same name, the
 * later one wins, as a later registration does.
 *
 * Hint: specs are sorted by name once per run, so the request prefix stays byte-identical from
 * turn to turn and provider prompt caches keep hitting.
 *
 * @param toolsets The sources, in registration order.
 * @returns The catalog.
 * @throws ToolError `closed` (or a transport error) when a toolset cannot list its tools.
 */
export async function listToolCatalog(toolsets: readonly Toolset[]): Promise<ToolCatalog> {
  const listed = await Promise.all(toolsets.map((toolset) => toolset.listTools()));
  const routes = new Map<string, { info: ToolInfo; toolset: Toolset }>();
  listed.forEach((infos, index) => {
    const toolset = toolsets[index] as Toolset;
    for (const info of infos) routes.set(info.name, { info, toolset });
  });
  const names = [...routes.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const infos = names.map((name) => (routes.get(name) as { info: ToolInfo }).info);
  return { specs: infos.map(toModelTool), infos, routes };
}

function toModelTool(info: ToolInfo): ModelTool {
  const { schema } = info.inputSchema;
  // Hint: `true` (anything goes) is not an object providers accept; an open object means the same.
  const inputSchema = typeof schema === "boolean" ? { type: "object" } : schema;
  const spec: ModelTool = { name: info.name, inputSchema };
  if (info.description !== undefined) spec.description = info.description;
  return spec;
}
