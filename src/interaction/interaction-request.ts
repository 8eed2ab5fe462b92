import type { ToolName } from "../declaration/tool-name.ts";

/** Interaction kind type: what a tool asks its caller for. */
export type ToolInteractionKind =
  | { type: "text"; multiline: boolean }
  | { type: "form"; schema: Record<string, unknown>; schemaValidation: boolean };

/**
 * Interaction request interface: a suspended tool's question to its caller. The reply must echo
 * `id` unchanged; callers must not parse it.
 */
export interface ToolInteractionRequest {
  /** Opaque id of this request. */
  id: string;
  /** The asking tool. */
  toolName: ToolName;
  /** The invocation's caller-owned correlation id. */
  callId?: string;
  /** What to show the person. */
  prompt: string;
  /** What kind of answer is expected. */
  kind: ToolInteractionKind;
}

/**
 * Returns a fresh opaque interaction id.
 *
 * @returns A random UUID.
 */
export function newInteractionId(): string {
  return crypto.randomUUID();
}
