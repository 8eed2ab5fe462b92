import type { Toolset } from "../../toolset/toolset.ts";
import { type McpTool, toMcpTool } from "../protocol.ts";

/** Tools page type: one `tools/list` result, or a refused cursor. */
export type ToolsPage =
  | { type: "page"; tools: McpTool[]; nextCursor?: string }
  | { type: "invalid_cursor" };

const PREFIX = "toolwire:after:";

/**
 * Returns one page of the toolset's tools. The cursor names the last tool already listed, so
 * a page never repeats or skips a tool that survived a change to the list in between.
 *
 * @param toolset The served toolset.
 * @param cursor The client's `cursor` param (`undefined` for the first page).
 * @param pageSize The most tools per page.
 * @returns The page, or `invalid_cursor` for a cursor this server did not issue.
 */
export async function listToolsPage(
  toolset: Toolset,
  cursor: unknown,
  pageSize: number,
): Promise<ToolsPage> {
  let after: string | undefined;
  if (cursor !== undefined) {
    after = decodeCursor(cursor);
    if (after === undefined) return { type: "invalid_cursor" };
  }
  const all = await toolset.listTools();
  const rest = after === undefined ? all : all.filter((tool) => tool.name > (after as string));
  const page = rest.slice(0, pageSize);
  const last = page.at(-1);
  if (rest.length <= pageSize || !last) return { type: "page", tools: page.map(toMcpTool) };
  return {
    type: "page",
    tools: page.map(toMcpTool),
    nextCursor: btoa(PREFIX + encodeURIComponent(last.name)),
  };
}

function decodeCursor(cursor: unknown): string | undefined {
  if (typeof cursor !== "string") return undefined;
  try {
    const text = atob(cursor);
    return text.startsWith(PREFIX) ? decodeURIComponent(text.slice(PREFIX.length)) : undefined;
  } catch {
    return undefined;
  }
}
