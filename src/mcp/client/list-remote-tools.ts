import type { McpSession } from "./mcp-session.ts";
import { protocolError } from "./session-error.ts";
import { type RemoteTool, toolFromMcp } from "./tool-from-mcp.ts";
import { withDeadline } from "./with-deadline.ts";

// Hint: a server that keeps inventing cursors must not keep the client listing forever.
const MAX_PAGES = 1000;

/**
 * Returns every tool of the server, following `nextCursor` page by page; a repeated cursor
 * is a protocol error rather than an endless loop. Each page has its own deadline.
 *
 * @param session The initialized session.
 * @param options The namespace, whether form and sampling interactions are enabled, the
 * deadline, and the caller's signal.
 * @returns The tools, in the server's order.
 * @throws ToolError `protocol` for a malformed page or a cursor loop, `invalid_configuration`
 * for a name that cannot be a tool name, `transport`, `timeout` or `cancelled`.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools
 */
export async function listRemoteTools(
  session: McpSession,
  options: {
    namespace?: string;
    formInteractions: boolean;
    samplingInteractions?: boolean;
    timeoutMs: number;
    signal?: AbortSignal;
  },
): Promise<RemoteTool[]> {
  const { namespace, formInteractions, samplingInteractions = false, timeoutMs, signal } = options;
  const flags = { formInteractions, samplingInteractions };
  const mapping = namespace === undefined ? flags : { namespace, ...flags };
  const tools: RemoteTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const result = await withDeadline(
      "tools/list",
      timeoutMs,
      (inner) =>
        session.request(session.newRequestId(), "tools/list", params, {
          signal: inner,
          label: "tools/list",
        }),
      signal ? { signal } : {},
    );
    if (!Array.isArray(result.tools)) throw protocolError("tools/list returned no `tools` array");
    for (const entry of result.tools) tools.push(toolFromMcp(entry, mapping));
    const next = result.nextCursor;
    if (next === undefined || next === null) return tools;
    if (typeof next !== "string") throw protocolError("tools/list returned a non-string cursor");
    if (seen.has(next))
      throw protocolError(`tools/list repeated the cursor ${JSON.stringify(next)}`);
    seen.add(next);
    cursor = next;
  }
  throw protocolError(`tools/list returned more than ${MAX_PAGES} pages`);
}
