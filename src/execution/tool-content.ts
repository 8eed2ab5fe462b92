/**
 * Hints about who a content item is for and how much it matters (MCP's content annotations):
 * `audience` says whether the user, the model, or both should see it; `priority` runs from 0
 * (optional) to 1 (required); `lastModified` is an ISO 8601 timestamp. They travel unchanged
 * through MCP in both directions; toolwire itself does not act on them.
 */
export interface ContentAnnotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

/**
 * One item of a tool result. Every kind may also carry `metadata` and `annotations`.
 */
export type ToolContent = (
  | { type: "text"; text: string }
  | { type: "json"; value: unknown }
  | { type: "image"; mimeType: string; data: string }
  | { type: "audio"; mimeType: string; data: string }
  | { type: "resource_link"; uri: string; title?: string; mimeType?: string }
  | {
      type: "embedded_resource";
      resource: { uri: string; mimeType?: string; text?: string; blob?: string };
    }
) & { metadata?: Record<string, unknown>; annotations?: ContentAnnotations };
