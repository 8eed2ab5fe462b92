/**
 * toolwire/mcp — serve any `Toolset` as an MCP server (protocol revisions 2026-07-28,
 * 2025-11-25 and 2025-06-18 on one endpoint), and consume remote MCP servers as `Toolset`s, over
 * Streamable HTTP. Web standards only: the same code runs in Workers, Deno, Bun, browsers and
 * Node.
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

export { type ConnectMcpOptions, connectMcp, type McpToolset } from "./client/connect-mcp.ts";
export type { McpAuth, McpAuthChallenge } from "./client/mcp-session.ts";
export type {
  McpCompletion,
  McpCompletionRef,
  McpPromptInfo,
  McpPromptMessages,
  McpRemoteSources,
  McpRequestOptions,
  McpResourceContent,
  McpResourceInfo,
  McpResourceRead,
  McpResourceTemplateInfo,
} from "./client/remote-sources.ts";
export type { DurableSessionNamespace } from "./server/durable-sessions.ts";
export { createMcpHandler, type McpHandler, type WaitUntilContext } from "./server/handler.ts";
export type {
  AuthInfo,
  AuthorizeContext,
  AuthorizeOutcome,
  McpErrorContext,
  McpHandlerOptions,
  McpTasks,
} from "./server/options.ts";
export {
  type InsufficientScope,
  insufficientScope,
  type ResourceMetadataOptions,
} from "./server/protected-resource.ts";
export type {
  McpCompleter,
  McpCompletionContext,
  McpPrompt,
  McpPromptArgument,
  McpPromptMessage,
  McpPromptResult,
  McpReadResult,
  McpRequestContext,
  McpResource,
  McpResourceContents,
  McpResourceDescription,
  McpResourceTemplate,
  McpSourceList,
  McpSources,
} from "./server/sources.ts";
export { type McpTasksOptions, mcpTasks } from "./server/tasks.ts";
