/**
 * toolwire/mcp — serve any `Toolset` as an MCP server, and consume remote MCP servers as
 * `Toolset`s, over Streamable HTTP (protocol revisions 2025-11-25 and 2025-06-18). Web
 * standards only: the same code runs in Workers, Deno, Bun, browsers and Node.
 *
 * @example
 * ```ts
 * import { Toolset } from "toolwire";
 * import { createMcpHandler } from "toolwire/mcp";
 *
 * const handler = createMcpHandler(Toolset.local([add]), {
 *   name: "calc",
 *   version: "1.0.0",
 *   // Deployed: list the public host and the pages that may call it.
 *   allowedHosts: ["calc.example.workers.dev"],
 *   allowedOrigins: ["https://app.example.com"],
 * });
 * export default handler; // Cloudflare Workers; Deno: Deno.serve(handler.fetch)
 * ```
 *
 * @module
 */

export { type ConnectMcpOptions, connectMcp } from "./client/connect-mcp.ts";
export {
  type ClassifiedMessage,
  classifyJsonRpc,
  JSON_RPC_ERROR,
  type JsonRpcErrorObject,
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccess,
  jsonRpcError,
  jsonRpcNotification,
  jsonRpcRequest,
  jsonRpcResult,
  type ParsedJsonRpc,
  parseJsonRpc,
} from "./json-rpc.ts";
export {
  isSupportedProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  LOGGING_LEVELS,
  type McpCallToolResult,
  type McpContentBlock,
  type McpCreateMessageParams,
  type McpCreateMessageResult,
  type McpElicitParams,
  type McpElicitResult,
  type McpLoggingLevel,
  type McpProtocolVersion,
  type McpTool,
  type McpToolAnnotations,
  negotiateProtocolVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
  toMcpCallToolResult,
  toMcpContentBlock,
  toMcpTool,
} from "./protocol.ts";
export { createMcpHandler, type McpHandler } from "./server/create-mcp-handler.ts";
export type { AuthInfo, McpHandlerOptions } from "./server/mcp-handler-options.ts";
export { REQUEST_CANCELLED } from "./server/serve-tool-call.ts";
export { TOOL_ERROR_META_KEY } from "./server/tool-error-outcome.ts";
