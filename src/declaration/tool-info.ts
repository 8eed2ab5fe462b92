import type { JsonSchema } from "../schema/json-schema.ts";
import type { Capabilities } from "./capabilities.ts";
import type { InteractionCapabilities } from "./interaction-capabilities.ts";
import type { ToolAnnotations, ToolIcon } from "./tool-annotations.ts";
import type { ToolName } from "./tool-name.ts";

/**
 * The complete declaration of one executable tool, the same whether the
 * tool is local or remote.
 */
export interface ToolInfo {
  /** Stable caller-facing name. */
  name: ToolName;
  /** Display label. */
  title?: string;
  /** Model-visible description. */
  description?: string;
  /** Schema of the invocation arguments. */
  inputSchema: JsonSchema;
  /** Schema of `structuredContent`; when present, every successful result must carry it. */
  outputSchema?: JsonSchema;
  /** MCP behaviour hints. */
  annotations: ToolAnnotations;
  /** Declared risk surface. */
  capabilities: Capabilities;
  /** Caller interactions the tool may request. */
  interactions: InteractionCapabilities;
  /**
   * Whether the tool may run as an MCP task (`optional`) or runs only as one (`required`);
   * absent: never. Read only by an MCP server serving the Tasks extension (`mcpTasks`).
   */
  taskSupport?: TaskSupport;
  /** Visual metadata. */
  icons?: ToolIcon[];
  /** Uninterpreted extra metadata. */
  metadata?: Record<string, unknown>;
  /**
   * Where a foreign tool comes from (a remote MCP server, a WebMCP page). Absent for tools this
   * program defines. While `trusted` is false the declaration's hints are shown but not
   * believed: the tool is not read-only, and its capabilities are all assumed (see
   * `docs/design.md`, "Trust").
   */
  source?: ToolSource;
}

/** How a tool runs as an MCP task: `optional` (when the client can take one) or `required`. */
export type TaskSupport = "optional" | "required";

/** The origin of a foreign tool and whether its self-description is believed. */
export interface ToolSource {
  /** `mcp` for a remote MCP server (HTTP or stdio), `webmcp` for a page's WebMCP tool. */
  type: "mcp" | "webmcp";
  /** The server's URL without query or credentials, a command name, or a page's origin. */
  origin: string;
  /** Whether the user opted in (`trustAnnotations: true`) to believe the tool's hints. */
  trusted: boolean;
}

/**
 * Checks whether a tool is read-only: it says so (`annotations.readOnlyHint === true`) and,
 * when it is foreign, its source is trusted. Read-only tools skip approval; a missing hint
 * means the tool writes.
 *
 * @param info The declaration.
 * @returns Whether the tool is read-only.
 */
export function isReadOnly(info: ToolInfo): boolean {
  return info.annotations.readOnlyHint === true && info.source?.trusted !== false;
}

/**
 * Whether a tool's capabilities are only assumed (a foreign tool whose hints are not trusted),
 * so a refusal based on them should become a question to a person instead.
 */
export function capabilitiesAssumed(info: ToolInfo): boolean {
  return info.source !== undefined && !info.source.trusted;
}
