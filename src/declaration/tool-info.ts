import type { JsonSchema } from "../schema/json-schema.ts";
import type { Capabilities } from "./capabilities.ts";
import type { InteractionCapabilities } from "./interaction-capabilities.ts";
import type { ToolAnnotations, ToolIcon } from "./tool-annotations.ts";
import type { ToolName } from "./tool-name.ts";

/**
 * Tool info interface: the complete declaration of one executable tool, the same whether the
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
  /** Visual metadata. */
  icons?: ToolIcon[];
  /** Uninterpreted extra metadata. */
  metadata?: Record<string, unknown>;
}

/**
 * Checks whether a tool declares itself read-only (`annotations.readOnlyHint === true`).
 * Read-only tools skip approval; a missing hint means the tool writes.
 *
 * @param info The declaration.
 * @returns Whether the tool is read-only.
 */
export function isReadOnly(info: ToolInfo): boolean {
  return info.annotations.readOnlyHint === true;
}
