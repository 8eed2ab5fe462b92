import type { ToolAnnotations } from "./tool-annotations.ts";

/**
 * A tool's declared risk surface, read by approval and taint tracking.
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
 * Returns the capabilities implied by a foreign tool's MCP annotations. MCP's defaults apply
 * when a hint is missing (`destructiveHint` and `openWorldHint` default to `true`); private data
 * is always assumed. When the annotations are not trusted every capability is assumed, whatever
 * they say.
 *
 * @param annotations The remote tool's hints.
 * @param options `trusted: true` to believe the hints (the user's `trustAnnotations` opt-in).
 * @returns The capabilities.
 */
export function capabilitiesFromAnnotations(
  annotations: ToolAnnotations,
  options: { trusted?: boolean } = {},
): Capabilities {
  if (options.trusted !== true) {
    return { privateData: true, untrustedInput: true, externalSend: true, destructive: true };
  }
  const readOnly = annotations.readOnlyHint === true;
  const openWorld = annotations.openWorldHint !== false;
  return {
    privateData: true,
    untrustedInput: openWorld,
    externalSend: openWorld,
    destructive: !readOnly && annotations.destructiveHint !== false,
  };
}
