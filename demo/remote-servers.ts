import type { ToolInfo, Toolset } from "../src/index.ts";

/** Remote server interface: one connected MCP server, or the page's WebMCP tools. */
export interface RemoteServer {
  /** Its MCP endpoint, or a label for the page's WebMCP tools. */
  url: string;
  /** `mcp` for a server, `webmcp` for the tools other scripts and frames registered in the page. */
  kind: "mcp" | "webmcp";
  /** The prefix of its tool names (`namespace__name`), or `""`. */
  namespace: string;
  /** Its tools as a toolset (from `connectMcp`). */
  toolset: Toolset;
  /** Its tools' declarations. */
  tools: ToolInfo[];
}

/** Connect function type: `connectMcp`, loaded on demand so the MCP client is its own chunk. */
export type ConnectFunction = (options: { url: string; namespace?: string }) => Promise<Toolset>;

/**
 * Remote servers interface: the MCP servers whose tools join the agent's.
 */
export interface RemoteServers {
  /** The connected servers, in connection order. */
  readonly list: readonly RemoteServer[];
  /**
   * Connects a server and lists its tools.
   *
   * @throws ToolError from `connectMcp` (transport, protocol, timeout, …).
   */
  connect(
    url: string,
    namespace: string,
    connect: ConnectFunction,
    kind?: RemoteServer["kind"],
  ): Promise<void>;
  /** Disconnects a server (its session is closed; a failure to close is ignored). */
  disconnect(remote: RemoteServer): Promise<void>;
}

/**
 * Creates the list of connected MCP servers.
 *
 * @param onChange Called after a server joins or leaves.
 * @returns The list.
 */
export function createRemoteServers(onChange: () => void): RemoteServers {
  const list: RemoteServer[] = [];
  return {
    list,
    async connect(url, namespace, connect, kind = "mcp") {
      const toolset = await connect(namespace ? { url, namespace } : { url });
      const tools = await toolset.listTools();
      list.push({ url, kind, namespace, toolset, tools });
      onChange();
    },
    async disconnect(remote) {
      const index = list.indexOf(remote);
      if (index !== -1) list.splice(index, 1);
      onChange();
      await remote.toolset.shutdown().catch(() => {});
    },
  };
}
