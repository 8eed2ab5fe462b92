import type { CarriedState } from "../declaration/carried-state.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { byName, namespacedName } from "../declaration/tool-name.ts";
import { ToolError } from "../errors.ts";
import type { ToolHandlerBackend, ToolsetBackend } from "../execution/backend.ts";

/** The part of a Toolset that merging needs. */
export interface MergeSource {
  listTools(): Promise<ToolInfo[]>;
  toolHandler(name: string): Promise<ToolHandlerBackend>;
  shutdown(): Promise<void>;
  carriedState(): Promise<CarriedState[]>;
}

// A listed name's source and the source's own name for it (the same unless namespaced).
interface Route {
  source: MergeSource;
  native: string;
}

/**
 * Creates a backend that serves several toolsets as one. With namespaces, tool `x` of the
 * toolset at index i is listed as `namespaces[i]__x` and still called by its own name.
 *
 * @param sources The toolsets, in order.
 * @param namespaces One namespace per toolset, or none.
 * @returns The merged backend; its shutdown shuts every source down.
 * @throws ToolError `invalid_configuration` for a bad or missing namespace; `duplicate_name`
 * (from `listTools` and `toolHandler`) when two tools end up with one name.
 */
export function createMergedBackend(
  sources: readonly MergeSource[],
  namespaces?: readonly string[],
): ToolsetBackend {
  if (namespaces && namespaces.length !== sources.length) {
    throw new ToolError({
      type: "invalid_configuration",
      message: `merge got ${sources.length} toolsets but ${namespaces.length} namespaces`,
    });
  }
  for (const namespace of namespaces ?? []) namespacedName(namespace, "x");
  let routes: Promise<{ infos: ToolInfo[]; routes: Map<string, Route> }> | undefined;
  const load = () => {
    routes ??= discover(sources, namespaces).catch((error: unknown) => {
      routes = undefined;
      throw error;
    });
    return routes;
  };
  return {
    listTools: async () => (await load()).infos,
    toolHandler: async (name) => {
      const route = (await load()).routes.get(name);
      if (!route) throw new ToolError({ type: "unknown_tool", name: String(name) });
      const handler = await route.source.toolHandler(route.native);
      return route.native === name ? handler : renaming(handler, name);
    },
    shutdown: async () => {
      const outcomes = await Promise.allSettled(sources.map((source) => source.shutdown()));
      const failed = outcomes.find((outcome) => outcome.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
    },
    carriedState: async () =>
      (await Promise.all(sources.map((source) => source.carriedState()))).flat(),
  };
}

async function discover(
  sources: readonly MergeSource[],
  namespaces: readonly string[] | undefined,
) {
  const lists = await Promise.all(sources.map((source) => source.listTools()));
  const infos: ToolInfo[] = [];
  const routes = new Map<string, Route>();
  lists.forEach((list, index) => {
    const namespace = namespaces?.[index];
    const source = sources[index] as MergeSource;
    for (const info of list) {
      const name = namespace === undefined ? info.name : namespacedName(namespace, info.name);
      if (routes.has(name)) throw new ToolError({ type: "duplicate_name", name });
      routes.set(name, { source, native: info.name });
      infos.push(name === info.name ? info : { ...info, name });
    }
  });
  // Sorted once here, so the Toolset's per-call listTools finds it sorted.
  infos.sort(byName);
  return { infos, routes };
}

// Interaction requests name the tool the caller selected, not the source's own name.
function renaming(handler: ToolHandlerBackend, name: string): ToolHandlerBackend {
  return {
    step: async (input, options) => {
      const output = await handler.step(input, options);
      if (output.type !== "interaction") return output;
      return {
        type: "interaction",
        request: { ...output.request, toolName: name as ToolInfo["name"] },
      };
    },
  };
}
