// The gates a model's call passes before it runs (docs/design.md, "The agent loop", A2-A4):
// the interlock (a sending call in a turn that holds private data and untrusted content), then
// the approver for every call that is not read-only. The trust rule for foreign tools lives
// here too, because it only changes what these gates see.

import type { Conversation, Taint } from "../compaction/conversation.ts";
import type { Capabilities } from "../declaration/capabilities.ts";
import { capabilitiesAssumed, isReadOnly, type ToolInfo } from "../declaration/tool-info.ts";
import { unreachable } from "../errors.ts";

/** The prefix of a refusal a person made, as the model reads it (passes read the result's `mark`). */
export const DENIED_PREFIX = "Denied by the user:";

/** The prefix of a refusal machine policy made, with nobody asked; never mined as a correction. */
export const BLOCKED_PREFIX = "Blocked by policy:";

/** One call that needs a decision before it may run. */
export interface ApprovalRequest {
  /** The tool's name. */
  toolName: string;
  /** The model's call id. */
  callId: string;
  /** The arguments the model sent, unvalidated. */
  arguments: unknown;
  /** The tool's declaration; `info.source` is set for a foreign tool (an MCP server's). */
  info: ToolInfo;
  /**
   * The risk surface the gates judged the call by: the declaration's, or every flag for a
   * foreign tool whose hints are not trusted.
   */
  capabilities: Capabilities;
  /**
   * Set when the interlock put the call to you instead of refusing it (`interlock: "ask"`, or
   * an untrusted foreign tool whose capabilities are only assumed): the interlock's reason, to
   * show the person deciding.
   */
  interlock?: string;
}

/**
 * `allow`, `deny` (a person said no: the model reads `Denied by the user: <reason>`) or `block`
 * (policy said no: `Blocked by policy: <reason>`). The approver picks the kind and the loop
 * writes the prefix, so a policy refusal can never pass for a person's correction.
 */
export type ApprovalDecision =
  | { type: "allow" }
  | { type: "deny"; reason: string }
  | { type: "block"; reason: string };

/**
 * Decides whether one call may run. Calls are asked one at a time, in call order, before
 * anything of the turn runs; aborting `signal` means the run was cancelled. An approver that
 * throws, rejects or returns anything but a decision refuses the call (`approver failed`), and
 * the `approval_resolved` event carries the failure as `error`.
 */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** How a headless run answers approval requests: `allow`, `read-only` or `ask`. */
export type ApprovalMode = "allow" | "read-only" | "ask";

/**
 * Creates an approver that never asks anyone: `allow` allows everything, `read-only` blocks
 * every tool that is not read-only (an untrusted foreign tool never is), and `ask` blocks
 * every call that needs approval, because with nobody watching "ask" means no.
 *
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

/** The text the model reads for a refused call. */
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

/**
 * Checks what an approver answered: approvers are user code, so anything but a well-formed
 * decision counts as a failure.
 */
export function checkDecision(decision: unknown): ApprovalDecision {
  const { type, reason } = (decision ?? {}) as { type?: unknown; reason?: unknown };
  if (type === "allow") return { type: "allow" };
  if ((type === "deny" || type === "block") && typeof reason === "string") return { type, reason };
  throw new TypeError("not an approval decision");
}

/**
 * What happens to a sending call when the turn holds both private data and untrusted content
 * (the "lethal trifecta"): `block` refuses it (the default), `ask` puts it to the approver even
 * for a read-only tool, `allow` lets it through to the usual gate. Under `block`, a foreign
 * tool whose hints are not trusted is put to the approver instead of refused (A3).
 */
export type InterlockPolicy = "block" | "ask" | "allow";

/** The policies `interlock` accepts, for checking options. */
export const INTERLOCK_POLICIES: readonly InterlockPolicy[] = ["block", "ask", "allow"];

const ASSUMED: Capabilities = {
  privateData: true,
  untrustedInput: true,
  externalSend: true,
  destructive: true,
};

/**
 * Returns the declaration the gates judge a tool by. A foreign tool whose hints are not
 * trusted counts as holding private data, reading untrusted content, sending and destroying,
 * whatever its backend declared (docs/design.md, "Trust").
 */
export function judgedInfo(info: ToolInfo): ToolInfo {
  return capabilitiesAssumed(info) ? { ...info, capabilities: ASSUMED } : info;
}

/**
 * Returns the taint a turn is judged by: the conversation's taint OR-ed with the declared
 * `privateData` / `untrustedInput` of every call in the batch, so a read and a send issued in
 * the same turn cannot slip through together.
 */
export function turnTaint(taint: Taint, batch: readonly ToolInfo[]): Taint {
  let { private: isPrivate, untrusted } = taint;
  for (const info of batch) {
    isPrivate ||= info.capabilities.privateData;
    untrusted ||= info.capabilities.untrustedInput;
  }
  return { private: isPrivate, untrusted };
}

/**
 * What the interlock does with one call: `pass` (not at risk, or `interlock: "allow"`), `ask`
 * (put it to the approver with the interlock's reason) or `refuse`.
 */
export function interlockVerdict(
  info: ToolInfo,
  taint: Taint,
  policy: InterlockPolicy,
): "pass" | "ask" | "refuse" {
  if (!info.capabilities.externalSend || !taint.private || !taint.untrusted) return "pass";
  if (policy === "allow") return "pass";
  if (policy === "ask" || capabilitiesAssumed(info)) return "ask";
  return "refuse";
}

/** Why the interlock stopped a call, as the person deciding reads it. */
export function interlockReason(name: string): string {
  return `\`${name}\` can send data outside the user's control, and this conversation holds both private data and untrusted content, so a prompt injection could leak the data.`;
}

/**
 * The refusal the model reads for an interlocked call, naming the safe delegates: tools that
 * read untrusted content but hold no private data and can neither send nor destroy.
 */
export function interlockRefusal(name: string, tools: readonly ToolInfo[]): string {
  const delegates = tools
    .filter(({ capabilities: c }) => c.untrustedInput && !c.privateData && !c.externalSend)
    .filter(({ capabilities: c }) => !c.destructive)
    .map((info) => `\`${info.name}\``);
  const offer =
    delegates.length === 0
      ? "No safe delegate is available."
      : `Safe delegates (they read untrusted content without private data and cannot send): ${delegates.join(", ")}.`;
  return `${BLOCKED_PREFIX} ${interlockReason(name)} ${offer}`;
}

/**
 * Grows a taint, in place, by what a call that ran could have brought in. Error results count
 * too: a failed fetch can still carry an attacker's body.
 */
export function growTaint(taint: Taint, info: ToolInfo): void {
  if (info.capabilities.privateData) taint.private = true;
  if (info.capabilities.untrustedInput) taint.untrusted = true;
}

/** Arms the private leg, in place, when a user message holds an image (a photo is private). */
export function armImageTaint(conversation: Conversation): void {
  if (conversation.taint.private) return;
  for (const message of conversation.messages) {
    if (message.role !== "user") continue;
    if (message.content.some((block) => block.type === "image")) {
      conversation.taint.private = true;
      return;
    }
  }
}
