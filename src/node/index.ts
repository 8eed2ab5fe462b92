/**
 * toolwire/node — Node-only adapters. `serve` bridges `node:http` to a web-standard fetch
 * handler, such as the one `createMcpHandler` from `toolwire/mcp` returns. `connectStdio`
 * starts an MCP server process and consumes its tools; `connectMcpServers` does that for a
 * desktop client's `mcpServers` config; `serveStdio` serves a Toolset to a client that starts
 * this process.
 *
 * @example
 * ```ts
 * import { connectStdio, serve } from "toolwire/node";
 * const server = await serve(handler, { port: 8787 });
 * const memory = await connectStdio({
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-memory"],
 * });
 * ```
 *
 * @module
 */

export {
  type ConnectMcpServersOptions,
  connectMcpServers,
  type McpServerEntry,
  type McpServersConfig,
} from "./mcp-servers.ts";
export { type NodeOAuthOptions, nodeOAuth } from "./node-oauth.ts";
export {
  type RedisClientLike,
  type RedisStore,
  type RedisStoreOptions,
  redisStore,
} from "./redis-store.ts";
export { type FetchHandler, type Served, type ServeOptions, serve } from "./serve.ts";
export { type ConnectStdioOptions, connectStdio } from "./stdio-client.ts";
export { type ServeStdioOptions, serveStdio } from "./stdio-server.ts";
