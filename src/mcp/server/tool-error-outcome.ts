import { type ToolError, unreachable } from "../../errors.ts";
import { JSON_RPC_ERROR } from "../json-rpc.ts";
import type { McpCallToolResult } from "../protocol.ts";

/** The `_meta` key under which an error result carries the `ToolError`'s JSON shape. */
export const TOOL_ERROR_META_KEY = "toolwire/error";

/** Tool error outcome type: how a `ToolError` from a call goes back to the MCP client. */
export type ToolErrorOutcome =
  | { type: "result"; result: McpCallToolResult }
  | { type: "error"; code: number; message: string; data: unknown };

/**
 * Returns how a `ToolError` thrown by a call is answered. Only a request the server cannot
 * process is a JSON-RPC error: an unknown tool (`-32602`, as the tools spec shows) and a
 * toolset that has shut down (`-32603`). Everything else, invalid arguments included (SEP-1303,
 * 2025-11-25), is an `isError: true` result the model can read and react to; its `_meta`
 * carries the error's JSON shape under `toolwire/error`.
 *
 * @param error The error.
 * @returns The outcome.
 */
export function toolErrorOutcome(error: ToolError): ToolErrorOutcome {
  const data = error.toJSON();
  switch (data.type) {
    case "unknown_tool":
      return {
        type: "error",
        code: JSON_RPC_ERROR.invalidParams,
        message: `Unknown tool: ${data.name}`,
        data,
      };
    case "closed":
      return {
        type: "error",
        code: JSON_RPC_ERROR.internalError,
        message: "The server's toolset has shut down",
        data,
      };
    case "invalid_arguments": {
      const lines = data.issues.map((issue) => `- ${issue.path || "/"}: ${issue.message}`);
      const text = [`Invalid arguments for tool ${data.tool}:`, ...lines].join("\n");
      return errorResult(text, data);
    }
    case "invalid_configuration":
    case "duplicate_name":
    case "invalid_output":
    case "invalid_interaction":
    case "undeclared_interaction":
    case "interaction_declined":
    case "cancelled":
    case "transport":
    case "protocol":
    case "timeout":
    case "unsupported":
    case "build_cleanup":
      return errorResult(error.message, data);
    default:
      return unreachable(data);
  }
}

/**
 * Returns the `isError` result for a failure that is not a `ToolError` (a backend that threw
 * something else): its message, as MCP servers are expected to report tool failures.
 *
 * @param error What was thrown.
 * @returns The outcome.
 */
export function thrownOutcome(error: unknown): ToolErrorOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return errorResult(message || "the tool failed");
}

function errorResult(text: string, data?: unknown): ToolErrorOutcome {
  const result: McpCallToolResult = { content: [{ type: "text", text }], isError: true };
  if (data !== undefined) result._meta = { [TOOL_ERROR_META_KEY]: data };
  return { type: "result", result };
}
