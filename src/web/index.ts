/**
 * toolwire/web — WebMCP, the browser's API for a page to offer tools to an agent running in the
 * browser, in both directions: `registerWebMcpTools` offers a `Toolset` to the browser's agent,
 * `connectWebMcp` turns the page's WebMCP tools (and those of cross-origin frames that expose
 * theirs) into a `Toolset` for toolwire's agent. Web standards only; nothing runs at import, and
 * where there is no WebMCP both reject with `unsupported`.
 *
 * @example
 * ```ts
 * import { Toolset } from "toolwire";
 * import { connectWebMcp, registerWebMcpTools } from "toolwire/web";
 *
 * const stop = new AbortController();
 * await registerWebMcpTools(Toolset.local([add]), { signal: stop.signal });
 * const page = await connectWebMcp({ namespace: "page" });
 * ```
 *
 * @module
 */

export { type ConnectWebMcpOptions, connectWebMcp } from "./connect-web-mcp.ts";
export type {
  WebMcpAnnotations,
  WebMcpClient,
  WebMcpModelContext,
  WebMcpRegisteredTool,
  WebMcpToolDefinition,
} from "./model-context.ts";
export {
  type RegisterWebMcpToolsOptions,
  registerWebMcpTools,
  type WebMcpRegistration,
} from "./register-web-mcp-tools.ts";
