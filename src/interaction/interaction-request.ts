import type { ToolName } from "../declaration/tool-name.ts";
import type { SamplingRequest } from "./sampling.ts";

/**
 * What a tool asks its caller for — a line (or lines) of text, a JSON
 * object described by a schema, or a reply from the caller's model (`sampling`, answered with
 * a `SamplingResult`; a person should see and approve it, as with any other question), or the
 * places the caller lets the tool work in (`roots`, answered with a `Root[]`; MCP `roots/list`).
 */
export type ToolInteractionKind =
  | { type: "text"; multiline: boolean }
  | { type: "form"; schema: Record<string, unknown>; schemaValidation: boolean }
  | ({ type: "sampling" } & SamplingRequest)
  | { type: "roots" };

/**
 * A suspended tool's question to its caller. The reply must echo
 * `id` unchanged; callers must not parse it.
 */
export interface ToolInteractionRequest {
  /** Opaque id of this request. */
  id: string;
  /** The asking tool. */
  toolName: ToolName;
  /** The invocation's caller-owned correlation id. */
  callId?: string;
  /** What to show the person (for sampling, the text of the last text message). */
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
  // A version-4 UUID from getRandomValues, which every runtime has: browsers offer randomUUID
  // only to secure contexts (not a page served over plain http from a LAN address). One path
  // instead of randomUUID plus this fallback is 30 bytes gzip less in every bundle, and ids
  // are made once per question, never per call.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return hex.replace(/(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-");
}
