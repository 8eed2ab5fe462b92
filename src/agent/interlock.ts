import type { Conversation, Taint } from "../compaction/conversation.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { BLOCKED_PREFIX } from "./approval.ts";

/** The interlock policies, as an `as const` list. */
export const INTERLOCK_POLICIES = ["block", "ask", "allow"] as const;

/**
 * Interlock policy type: what happens to a sending call when the turn holds both private data
 * and untrusted content (the "lethal trifecta"): `block` refuses it (the default), `ask` forces
 * approval even for a read-only tool, `allow` lets it through to the usual gate.
 */
export type InterlockPolicy = (typeof INTERLOCK_POLICIES)[number];

/**
 * Returns the taint a turn is judged by: the conversation's taint OR-ed with the declared
 * `privateData` / `untrustedInput` of every call in the batch.
 *
 * Hint: judging each call by the taint before the batch would let a read and a send issued in
 * the same turn slip through together.
 *
 * @param taint The conversation's taint.
 * @param batch The declarations of the turn's calls (unknown tools are left out).
 * @returns A new taint.
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
 * Checks whether the interlock applies to a call: the tool can send data out and the turn
 * holds both private data and untrusted content.
 *
 * @param info The tool's declaration.
 * @param taint The turn's taint.
 * @returns Whether the call is at risk.
 */
export function isInterlocked(info: ToolInfo, taint: Taint): boolean {
  return info.capabilities.externalSend && taint.private && taint.untrusted;
}

/**
 * Returns the refusal the model reads for an interlocked call, naming the safe delegates:
 * tools that read untrusted content but hold no private data and can neither send nor destroy.
 *
 * @param name The refused tool.
 * @param tools Every tool the model may call.
 * @returns The `Blocked by policy:` text.
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
  return `${BLOCKED_PREFIX} \`${name}\` can send data outside the user's control, and this conversation holds both private data and untrusted content, so a prompt injection could leak the data. ${offer}`;
}

/**
 * Grows a taint by what a call that ran could have brought in. Error results count too: a
 * failed fetch can still carry an attacker's body.
 *
 * @param taint The taint to grow, in place.
 * @param info The declaration of the tool that ran.
 */
export function growTaint(taint: Taint, info: ToolInfo): void {
  if (info.capabilities.privateData) taint.private = true;
  if (info.capabilities.untrustedInput) taint.untrusted = true;
}

/**
 * Arms the private leg when a user message holds an image (a photo is private by default).
 *
 * @param conversation The conversation, updated in place.
 */
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
