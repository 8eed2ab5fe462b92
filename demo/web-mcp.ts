import { type ToolInfo, Toolset } from "../src/index.ts";
import { connectWebMcp, registerWebMcpTools } from "../src/web/index.ts";
import type { DemoSession } from "./demo-session.ts";

/** What the page does with WebMCP, when the browser has it (docs/design.md "WebMCP"). */
export interface DemoWebMcp {
  /** The demo's own tools, offered to the browser's agent. */
  offered: readonly string[];
}

/**
 * Offers the demo's tools to the browser's agent and adds the other WebMCP tools of the page
 * (a script's, a frame's) to the demo's agent as one more toolset, `page__name`, behind the same
 * approval gate. Without WebMCP it does nothing and the demo is unchanged.
 *
 * @param session The demo's session: its local tools, its questions to the person, its toolsets.
 * @returns What was offered, or `undefined` without WebMCP.
 */
export async function startWebMcp(session: DemoSession): Promise<DemoWebMcp | undefined> {
  const modelContext = (document as { modelContext?: { registerTool?: unknown } }).modelContext;
  if (typeof modelContext?.registerTool !== "function") return undefined;
  const registration = await registerWebMcpTools(session.local, {
    signal: new AbortController().signal,
    // A browser agent's call to ask_user gets the same prompt as the demo's own agent's.
    onInteraction: (request, signal) => session.ask(request, signal),
  });
  const own = new Set(registration.names);
  const page = await connectWebMcp({ namespace: "page" });
  // The page's listing includes the demo's own tools (registered above): leave those out.
  const others = async (): Promise<ToolInfo[]> =>
    (await page.listTools()).filter((info) => !own.has(nativeName(info)));
  const toolset = Toolset.fromBackend({
    listTools: others,
    toolHandler: (name) => page.toolHandler(name),
    shutdown: () => page.shutdown(),
  });
  await session.remotes.connect(
    `WebMCP: ${location.origin}`,
    "page",
    async () => toolset,
    "webmcp",
  );
  const remote = session.remotes.list.find((server) => server.toolset === toolset);
  (modelContext as unknown as EventTarget).addEventListener("toolchange", () => {
    void others().then((tools) => {
      if (!remote) return;
      remote.tools = tools;
      session.emit("tools");
    });
  });
  return { offered: registration.names };
}

function nativeName(info: ToolInfo): string {
  const webmcp = info.metadata?.webmcp as { name?: unknown } | undefined;
  return typeof webmcp?.name === "string" ? webmcp.name : info.name;
}
