import * as v from "valibot";
import type { ApprovalDecision, Approver, InteractionAnswerer } from "../../src/agent/index.ts";
import {
  capabilitiesFromAnnotations,
  defineTool,
  InteractionResponse,
  type Tool,
  ToolResult,
  Toolset,
} from "../../src/index.ts";
import { createLocalBackend } from "../../src/local/local-handler.ts";

/** What an adversarial tool does, chosen by its `act` argument. */
export const TOOL_ACTS = [
  "ok",
  "error",
  "throw",
  "ask",
  "form",
  "slow",
  "hang",
  "progress",
] as const;

/** One behaviour of an adversarial tool. */
export type ToolAct = (typeof TOOL_ACTS)[number];

/** The names of the adversarial tools. */
export const KNOWN_TOOLS = ["look", "browse", "write", "send", "ping", "fetch"] as const;

/**
 * The tools whose calls can reach the approver, so a hanging approver can hold the run:
 * `write` and `send` are not read-only (A2), `fetch` is an untrusted foreign tool and so never
 * read-only (A3), and `ping` sends, so the interlock can put it to the approver (A4).
 */
export const APPROVAL_TOOLS: readonly string[] = ["write", "send", "ping", "fetch"];

/** How an approver answers one request, cycled over a run's requests. */
export const APPROVER_ACTS = [
  "allow",
  "deny",
  "block",
  "throw",
  "malformed",
  "late-allow",
  "hang",
] as const;

/** One behaviour of an adversarial approver. */
export type ApproverAct = (typeof APPROVER_ACTS)[number];

/** How an interaction answerer answers one question, cycled over a run's questions. */
export const ANSWERER_ACTS = [
  "submit",
  "wrong-id",
  "decline",
  "cancel",
  "throw",
  "garbage",
  "late",
  "hang",
] as const;

/** One behaviour of an adversarial interaction answerer. */
export type AnswererAct = (typeof ANSWERER_ACTS)[number];

const input = v.object({
  act: v.picklist(TOOL_ACTS),
  ms: v.optional(v.number()),
  size: v.optional(v.number()),
});

/**
 * Returns a promise that resolves after `ms` milliseconds, ignoring every signal on purpose:
 * the adversarial tools, approvers and answerers model user code that does not cooperate.
 *
 * @param ms The delay.
 * @returns The promise.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const never = () => new Promise<never>(() => {});

async function behave(
  name: string,
  args: v.InferOutput<typeof input>,
  ctx: {
    progress(update: { progress: number }): void;
    requestText(prompt: string): Promise<string>;
    requestForm(prompt: string, schema: Record<string, unknown>): Promise<Record<string, unknown>>;
  },
): Promise<string | ToolResult> {
  const size = Math.min(Math.max(Math.trunc(args.size ?? 5), 0), 200_000);
  const ms = Math.min(Math.max(Math.trunc(args.ms ?? 1), 0), 5);
  switch (args.act) {
    case "ok":
      return `${name}: ${"é".repeat(size)}`;
    case "error":
      return ToolResult.error(`${name} failed on purpose`);
    case "throw":
      if (size % 2 === 0) throw new Error(`${name} threw`);
      // User code may throw anything, not only an Error.
      throw size % 3 === 0 ? null : `${name} threw a string`;
    case "ask":
      return `answer: ${await ctx.requestText("Which one?")}`;
    case "form": {
      const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
      return JSON.stringify(await ctx.requestForm("Fill in", schema));
    }
    case "slow":
      await sleep(ms);
      return `${name} was slow`;
    case "hang":
      return never();
    case "progress":
      ctx.progress({ progress: 1 });
      await sleep(ms);
      // Reported whether or not the call was cancelled meanwhile, as careless tools do.
      ctx.progress({ progress: 2 });
      return `${name} progressed`;
    default:
      throw new Error(`unknown act ${String(args.act satisfies never)}`);
  }
}

/**
 * Creates the adversarial tools: `look` (read-only, private data, asks questions), `browse`
 * (read-only, untrusted input), `write` (writes, destructive), `send` (writes, sends out) and
 * `ping` (read-only but sends out, so the interlock applies to it). Each does what its `act`
 * argument says.
 *
 * @returns The tools.
 */
export function adversarialTools(): Tool[] {
  const interactions = { text: true, form: true };
  return [
    defineTool({
      name: "look",
      description: "Reads private notes",
      readOnly: true,
      capabilities: { privateData: true },
      interactions,
      input,
      call: (args, ctx) => behave("look", args, ctx),
    }),
    defineTool({
      name: "browse",
      description: "Reads a web page",
      readOnly: true,
      capabilities: { untrustedInput: true },
      interactions,
      input,
      call: (args, ctx) => behave("browse", args, ctx),
    }),
    defineTool({
      name: "write",
      description: "Writes a file",
      capabilities: { destructive: true },
      interactions,
      input,
      call: (args, ctx) => behave("write", args, ctx),
    }),
    defineTool({
      name: "send",
      description: "Sends an email",
      capabilities: { externalSend: true },
      interactions,
      input,
      call: (args, ctx) => behave("send", args, ctx),
    }),
    defineTool({
      name: "ping",
      description: "Pings a host",
      readOnly: true,
      capabilities: { externalSend: true },
      input,
      call: (args, ctx) => behave("ping", args, ctx),
    }),
  ];
}

/**
 * Creates the adversarial foreign toolset: `fetch`, listed as an untrusted MCP server's tool
 * that claims to be read-only and closed-world. The agent must not believe it (design.md A3):
 * it always goes to the approver, and counts as private, untrusted and sending.
 *
 * @returns The toolsets.
 */
export function adversarialToolsets(): Toolset[] {
  const local = createLocalBackend([
    defineTool({
      name: "fetch",
      description: "Fetches a page through a remote server",
      readOnly: true,
      interactions: { text: true, form: true },
      input,
      call: (args, ctx) => behave("fetch", args, ctx),
    }),
  ]);
  const foreign = Toolset.fromBackend({
    listTools: async () =>
      (await local.listTools()).map((info) => {
        const annotations = { ...info.annotations, readOnlyHint: true, openWorldHint: false };
        return {
          ...info,
          annotations,
          capabilities: capabilitiesFromAnnotations(annotations),
          source: { type: "mcp" as const, origin: "https://x", trusted: false },
        };
      }),
    toolHandler: (name) => local.toolHandler(name),
    shutdown: () => local.shutdown(),
  });
  return [foreign];
}

/**
 * Creates an approver that answers its requests with `acts`, in order and cycling, and records
 * the decision each call id was meant to get.
 *
 * @param acts The behaviours; an empty list allows everything.
 * @param intended Receives, per call id, `allow`, `deny` or `block` (what the loop must write).
 * @returns The approver.
 */
export function adversarialApprover(
  acts: readonly ApproverAct[],
  intended: Map<string, ApprovalDecision["type"]>,
): Approver {
  let next = 0;
  return (request) => {
    const act = acts.length === 0 ? "allow" : (acts[next++ % acts.length] as ApproverAct);
    switch (act) {
      case "allow":
        intended.set(request.callId, "allow");
        return Promise.resolve({ type: "allow" });
      case "deny":
        intended.set(request.callId, "deny");
        return Promise.resolve({ type: "deny", reason: "not now" });
      case "block":
        intended.set(request.callId, "block");
        return Promise.resolve({ type: "block", reason: "policy says no" });
      case "throw":
        intended.set(request.callId, "block");
        throw new Error("approver bug");
      case "malformed":
        intended.set(request.callId, "block");
        return Promise.resolve({ type: "deny" } as unknown as ApprovalDecision);
      case "late-allow":
        intended.set(request.callId, "allow");
        return sleep(3).then(() => ({ type: "allow" }) as const);
      case "hang":
        return never();
      default:
        throw new Error(`unknown act ${String(act satisfies never)}`);
    }
  };
}

/**
 * Creates an interaction answerer that answers with `acts`, in order and cycling.
 *
 * @param acts The behaviours; an empty list submits every time.
 * @returns The answerer.
 */
export function adversarialAnswerer(acts: readonly AnswererAct[]): InteractionAnswerer {
  let next = 0;
  return (request) => {
    const act = acts.length === 0 ? "submit" : (acts[next++ % acts.length] as AnswererAct);
    const content = request.kind.type === "form" ? { n: 1 } : "yes";
    switch (act) {
      case "submit":
        return Promise.resolve(InteractionResponse.submit(request.id, content));
      case "wrong-id":
        return Promise.resolve(InteractionResponse.submit(`${request.id}-other`, content));
      case "decline":
        return Promise.resolve(InteractionResponse.decline(request.id, "no"));
      case "cancel":
        return Promise.resolve(InteractionResponse.cancel(request.id, "stop"));
      case "throw":
        throw new Error("answerer bug");
      case "garbage":
        return Promise.resolve(InteractionResponse.submit(request.id, { not: ["what", "asked"] }));
      case "late":
        return sleep(4).then(() => InteractionResponse.submit(request.id, content));
      case "hang":
        return never();
      default:
        throw new Error(`unknown act ${String(act satisfies never)}`);
    }
  };
}
