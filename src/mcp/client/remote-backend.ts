import { ToolError } from "../../errors.ts";
import type { ToolsetBackend } from "../../execution/backend.ts";
import type { McpSession } from "./mcp-session.ts";
import { createRemoteCallPlan, type RemoteCallPlan } from "./remote-call-plan.ts";
import { RemoteHandler } from "./remote-handler.ts";
import type { RemoteTool } from "./tool-from-mcp.ts";

/**
 * Creates the backend of a remote toolset: the inventory listed at connect time, one fresh
 * `RemoteHandler` per call, and a shutdown that ends the MCP session.
 *
 * @param session The initialized session.
 * @param tools The remote tools.
 * @param options The call deadline and whether form and sampling interactions are enabled.
 * @returns The backend.
 * @throws ToolError `duplicate_name` when two remote tools end up with the same name.
 */
export function createRemoteBackend(
  session: McpSession,
  tools: readonly RemoteTool[],
  options: { timeoutMs: number; formInteractions: boolean; samplingInteractions?: boolean },
): ToolsetBackend<RemoteHandler> {
  const plans = new Map<string, RemoteCallPlan>();
  for (const tool of tools) {
    const name = tool.info.name;
    if (plans.has(name)) throw new ToolError({ type: "duplicate_name", name });
    plans.set(name, createRemoteCallPlan(tool, options));
  }
  const infos = tools.map((tool) => tool.info);
  return {
    listTools: async () => infos.slice(),
    toolHandler: async (name) => {
      const plan = plans.get(name);
      if (!plan) throw new ToolError({ type: "unknown_tool", name: String(name) });
      return new RemoteHandler(session, plan);
    },
    shutdown: () => session.close(),
  };
}
