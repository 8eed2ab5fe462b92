/**
 * MCP behaviour hints. They enforce nothing; toolwire's approval
 * reads `readOnlyHint` and treats a missing hint as "writes".
 */
export interface ToolAnnotations {
  /** Display label. */
  title?: string;
  /** The tool does not change its environment. */
  readOnlyHint?: boolean;
  /** The tool may destroy or overwrite data. */
  destructiveHint?: boolean;
  /** Repeating a call with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches an open world (the web, other people). */
  openWorldHint?: boolean;
}

/** Source-neutral icon metadata, as in MCP. */
export interface ToolIcon {
  /** URL or data URI of the image. */
  src: string;
  /** The image's media type. */
  mimeType?: string;
  /** Sizes such as `48x48` or `any`. */
  sizes?: string[];
}
