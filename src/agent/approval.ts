import type { Capabilities } from "../declaration/capabilities.ts";
import { isReadOnly, type ToolInfo } from "../declaration/tool-info.ts";
import { unreachable } from "../errors.ts";

/** The prefix of a refusal a person made; transcript passes match on it. */
export const DENIED_PREFIX = "Denied by the user:";

/** The prefix of a refusal machine policy made, with nobody asked; never mined as a correction. */
export const BLOCKED_PREFIX = "Blocked by policy:";

/**
 * Approval request interface: one call that needs a decision before it may run.
 */
export interface ApprovalRequest {
  /** The tool's name. */
  toolName: string;
  /** The model's call id. */
  callId: string;
  /** The arguments the model sent. */
  arguments: unknown;
  /** The tool's declaration. */
  info: ToolInfo;
  /** The tool's declared risk surface. */
  capabilities: Capabilities;
}

/**
 * Approval decision type: `allow`, `deny` (a person said no) or `block` (policy said no).
 *
 * Hint: the approver picks the kind, the loop writes the prefix, so a policy refusal can never
 * pass for a person's correction.
 */
export type ApprovalDecision =
  | { type: "allow" }
  | { type: "deny"; reason: string }
  | { type: "block"; reason: string };

/**
 * Approver type: decides whether one writing call may run. Calls are asked one at a time, in
 * call order, before anything of the turn runs; aborting `signal` means the run was cancelled.
 */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** The headless approval modes, as an `as const` list. */
export const APPROVAL_MODES = ["allow", "read-only", "ask"] as const;

/** Approval mode type: how a headless run answers approval requests. */
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/**
 * Creates an approver that never asks anyone: `allow` allows everything, `read-only` blocks
 * every tool that is not read-only, and `ask` blocks every call that needs approval, because
 * with nobody watching "ask" means no.
 *
 * @param mode The mode.
 * @returns The approver.
 * @example
 * ```ts
 * const agent = new Agent({ model, tools, approver: modeApprover("allow") });
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function modeApprover(mode: ApprovalMode): Approver {
  return async (request) => {
    switch (mode) {
      case "allow":
        return { type: "allow" };
      case "read-only":
        return isReadOnly(request.info)
          ? { type: "allow" }
          : { type: "block", reason: `\`${request.toolName}\` writes and this run is read-only` };
      case "ask":
        return {
          type: "block",
          reason: `\`${request.toolName}\` needs approval and this run is non-interactive`,
        };
      default:
        return unreachable(mode);
    }
  };
}

/**
 * Returns the text the model reads for a refused call.
 *
 * @param decision A `deny` or `block` decision.
 * @returns The prefixed refusal.
 */
export function refusalText(decision: Exclude<ApprovalDecision, { type: "allow" }>): string {
  switch (decision.type) {
    case "deny":
      return `${DENIED_PREFIX} ${decision.reason}`;
    case "block":
      return `${BLOCKED_PREFIX} ${decision.reason}`;
    default:
      return unreachable(decision);
  }
}
