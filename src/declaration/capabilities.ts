import type { ToolAnnotations } from "./tool-annotations.ts";

/**
 * Capabilities interface: a tool's declared risk surface, read by approval and taint tracking.
 */
export interface Capabilities {
  /** Returns data the user considers private. */
  privateData: boolean;
  /** Returns content a third party can influence (web pages, email bodies): treat as hostile. */
  untrustedInput: boolean;
  /** Can send data outside the user's control; a plain HTTP GET counts. */
  externalSend: boolean;
  /** May destroy or overwrite data. */
  destructive: boolean;
}

/**
 * Creates a full capability set, every flag not given being `false`.
 *
 * @param partial The flags to set.
 * @returns The capabilities.
 */
export function capabilities(partial: Partial<Capabilities> = {}): Capabilities {
  return {
    privateData: partial.privateData === true,
    untrustedInput: partial.untrustedInput === true,
    externalSend: partial.externalSend === true,
    destructive: partial.destructive === true,
  };
}

/**
 * Returns the capabilities implied by MCP annotations of a remote tool: private data is assumed,
 * `openWorldHint` means untrusted input and external send, `destructiveHint` means destructive.
 *
 * @param annotations The remote tool's hints.
 * @returns The capabilities.
 */
export function capabilitiesFromAnnotations(annotations: ToolAnnotations): Capabilities {
  const openWorld = annotations.openWorldHint === true;
  return {
    privateData: true,
    untrustedInput: openWorld,
    externalSend: openWorld,
    destructive: annotations.destructiveHint === true,
  };
}
