// Benchmarks measure what users run: the compiled `dist/` output, not sources transpiled on the
// fly (tsx wraps every function in a naming helper that would inflate toolwire's figures only).
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";
import * as v from "valibot";

const dist = new URL("../dist/", import.meta.url);

/**
 * Imports a compiled toolwire entry, typed as its source.
 *
 * @param entry The file under dist/, e.g. `index.js` or `agent/index.js`.
 */
export async function loadDist<T>(entry: string): Promise<T> {
  return (await import(pathToFileURL(new URL(entry, dist).pathname).href)) as T;
}

/**
 * The core, agent and models entries the agent benches drive: compiled when `dist/` holds a
 * build (what users run), else the sources; `from` says which.
 */
export async function loadAgentEntries(): Promise<{
  core: typeof import("../src/index.ts");
  agent: typeof import("../src/agent/index.ts");
  models: typeof import("../src/models/index.ts");
  from: string;
}> {
  if (existsSync(new URL("agent/index.js", dist))) {
    const [core, agent, models] = await Promise.all([
      loadCore(),
      loadDist<typeof import("../src/agent/index.ts")>("agent/index.js"),
      loadDist<typeof import("../src/models/index.ts")>("models/index.js"),
    ]);
    return { core, agent, models, from: "dist" };
  }
  const [core, agent, models] = await Promise.all([
    import("../src/index.ts"),
    import("../src/agent/index.ts"),
    import("../src/models/index.ts"),
  ]);
  return { core, agent, models, from: "src (no dist build)" };
}

/** The core entry, compiled. */
export const loadCore = () => loadDist<typeof import("../src/index.ts")>("index.js");

/**
 * The MCP handler every serving bench measures, compiled: one `add` tool behind
 * `createMcpHandler`, stateless (the default).
 */
export async function loadAddHandler() {
  const { defineTool, Toolset } = await loadCore();
  const { createMcpHandler } = await loadDist<typeof import("../src/mcp/index.ts")>("mcp/index.js");
  const add = defineTool({
    name: "add",
    description: "Adds two numbers",
    readOnly: true,
    input: v.object({ a: v.number(), b: v.number() }),
    call: ({ a, b }) => String(a + b),
  });
  return createMcpHandler(Toolset.local([add]), { name: "bench", version: "1.0.0" });
}
