import type { ToolIcon } from "../declaration/tool-annotations.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { unreachable } from "../errors.ts";
import type { ContentAnnotations, ToolContent } from "../execution/tool-content.ts";
import type { ToolResult } from "../execution/tool-result.ts";
import type { JsonSchema } from "../schema/json-schema.ts";

/** The MCP protocol revisions toolwire speaks, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18"] as const;

/** One of `SUPPORTED_PROTOCOL_VERSIONS`. */
export type McpProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/**
 * The stateless revisions the server serves per request (`params._meta` carries the version
 * and the client's capabilities; no `initialize`, no session). `server/discover` lists these.
 */
export const MODERN_PROTOCOL_VERSIONS = ["2026-07-28"] as const;

/** The `_meta` keys of the 2026-07-28 revision. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** The MCP Tasks extension's key in `capabilities.extensions` (SEP-2663). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The error codes the 2026-07-28 revision defines. */
export const MCP_ERROR = {
  /** A standard header is missing, malformed, or disagrees with the body. */
  headerMismatch: -32020,
  /** Serving the request needs a client capability this request did not declare. */
  missingClientCapability: -32021,
  /** The request names a revision the server does not serve. */
  unsupportedProtocolVersion: -32022,
} as const;

/** The newest supported revision, offered when a client asks for one we do not speak. */
export const LATEST_PROTOCOL_VERSION: McpProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];

/**
 * The `_meta` key under which an `isError` result carries the `ToolError`'s JSON shape (or,
 * when its detail is withheld, only its `type`), so a program can tell which failure it was.
 */
export const TOOL_ERROR_META_KEY = "toolwire/error";

/** The MCP logging levels, least severe first (RFC 5424 severities). */
export const LOGGING_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** One of `LOGGING_LEVELS`. */
export type McpLoggingLevel = (typeof LOGGING_LEVELS)[number];

/**
 * Checks whether a value names a protocol revision toolwire supports.
 *
 * @param value The candidate, e.g. an `MCP-Protocol-Version` header.
 * @returns Whether it is supported.
 */
export function isSupportedProtocolVersion(value: unknown): value is McpProtocolVersion {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly unknown[]).includes(value);
}

/**
 * Returns the revision to answer an `initialize` with: the client's when supported, else our
 * newest (the client then decides whether to carry on).
 *
 * @param requested The client's `protocolVersion`.
 * @returns The negotiated revision.
 */
export function negotiateProtocolVersion(requested: unknown): McpProtocolVersion {
  return isSupportedProtocolVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** Behaviour hints, as on the wire. */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One entry of a `tools/list` result. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: McpToolAnnotations;
  icons?: ToolIcon[];
  _meta?: Record<string, unknown>;
}

/** One item of a `CallToolResult`'s `content`. */
export type McpContentBlock = (
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; title?: string; mimeType?: string }
  | {
      type: "resource";
      resource: { uri: string; mimeType?: string; text?: string; blob?: string };
    }
) & { _meta?: Record<string, unknown>; annotations?: ContentAnnotations };

/** The `result` of a `tools/call`. */
export interface McpCallToolResult {
  [key: string]: unknown;
  content: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** A form question sent as `elicitation/create`. */
export interface McpElicitParams {
  mode?: "form";
  message: string;
  requestedSchema: Record<string, unknown>;
}

/** The client's answer to `elicitation/create`. */
export interface McpElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/**
 * MCP create-message params interface: a sampling request sent as `sampling/createMessage`
 * (the fields toolwire sends; content blocks as in `SamplingContent`).
 */
export interface McpCreateMessageParams {
  messages: { role: "user" | "assistant"; content: Record<string, unknown> }[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
}

/** The client's model reply to `sampling/createMessage`. */
export interface McpCreateMessageResult {
  role: "assistant";
  content: Record<string, unknown>;
  model: string;
  stopReason?: string;
}

/**
 * Returns the `tools/list` entry for a tool. MCP requires object schemas, so a schema without
 * `type` gains `type: "object"` and a boolean schema becomes the matching object schema.
 *
 * @param info The tool's declaration.
 * @returns The wire shape.
 */
export function toMcpTool(info: ToolInfo): McpTool {
  const tool: McpTool = { name: info.name, inputSchema: objectSchema(info.inputSchema) };
  if (info.title !== undefined) tool.title = info.title;
  if (info.description !== undefined) tool.description = info.description;
  if (info.outputSchema) tool.outputSchema = objectSchema(info.outputSchema);
  const annotations = definedEntries(info.annotations);
  if (Object.keys(annotations).length > 0) tool.annotations = annotations;
  if (info.icons && info.icons.length > 0) tool.icons = info.icons;
  if (info.metadata) tool._meta = info.metadata;
  return tool;
}

/**
 * Returns the `tools/call` result for a tool result. `isError` is always present; `json`
 * content, which MCP lacks, travels as its JSON text.
 *
 * @param result The completed result.
 * @returns The wire shape.
 */
export function toMcpCallToolResult(result: ToolResult): McpCallToolResult {
  const wire: McpCallToolResult = {
    content: result.content.map(toMcpContentBlock),
    isError: result.isError,
  };
  if (result.structuredContent !== undefined) wire.structuredContent = result.structuredContent;
  if (result.metadata) wire._meta = result.metadata;
  return wire;
}

/**
 * Returns the MCP content block for a tool content item.
 *
 * @param content The item.
 * @returns The wire shape; `metadata` becomes `_meta`, `annotations` stay as they are.
 */
export function toMcpContentBlock(content: ToolContent): McpContentBlock {
  const block = blockOf(content);
  if (content.annotations) block.annotations = content.annotations;
  if (content.metadata) block._meta = content.metadata;
  return block;
}

function blockOf(content: ToolContent): McpContentBlock {
  switch (content.type) {
    case "text":
      return { type: "text", text: content.text };
    case "json":
      return { type: "text", text: JSON.stringify(content.value) ?? "null" };
    case "image":
    case "audio":
      return { type: content.type, data: content.data, mimeType: content.mimeType };
    case "resource_link": {
      // MCP requires `name`; the title, else the URI, is the best stand-in we have.
      const link: McpContentBlock = {
        type: "resource_link",
        uri: content.uri,
        name: content.title ?? content.uri,
      };
      if (content.title !== undefined) link.title = content.title;
      if (content.mimeType !== undefined) link.mimeType = content.mimeType;
      return link;
    }
    case "embedded_resource": {
      const { uri, mimeType, text, blob } = content.resource;
      const resource: { uri: string; mimeType?: string; text?: string; blob?: string } = { uri };
      if (mimeType !== undefined) resource.mimeType = mimeType;
      if (blob !== undefined) resource.blob = blob;
      else resource.text = text ?? "";
      return { type: "resource", resource };
    }
    default:
      return unreachable(content);
  }
}

function objectSchema(wrapper: JsonSchema): Record<string, unknown> {
  const schema = wrapper.schema;
  if (schema === true) return { type: "object" };
  if (schema === false) return { type: "object", not: {} };
  return schema.type === undefined ? { type: "object", ...schema } : schema;
}

function definedEntries<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
