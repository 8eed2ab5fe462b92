/**
 * One item of a tool result. Every kind may also carry `metadata`.
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
) & { metadata?: Record<string, unknown> };
