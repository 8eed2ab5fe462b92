// Questions without sessions (revision 2026-07-28, multi round-trip requests): a `tools/call`
// whose tool asks something is answered `input_required` with the question and a signed
// `requestState`; the client retries the same call with `inputResponses`, and the tool runs again
// from the start, each question it asks answered from what the rounds so far gathered. Nothing
// is kept on the server, so any instance holding the same `stateSecret` takes the retry. See
// `docs/design.md`, "Serving MCP", "2026-07-28".

import { ToolError } from "../../errors.ts";
import type { JournalEntries } from "../../execution/call-journal.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import { readSamplingResult } from "../../interaction/read-sampling.ts";
import { NOT_ROOTS, readRoots } from "../../interaction/roots.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { jsonRpcResult } from "../json-rpc.ts";
import type { ClientCapabilities, Round } from "./core.ts";
import { answerFrom, capabilityFor, questionFor } from "./questions.ts";

/** Why a round stopped before the tool completed. */
export type Stop =
  | { type: "input_required"; inputRequests: Record<string, unknown>; pending: Map<string, string> }
  | { type: "missing_capability"; required: Record<string, unknown>; why: string }
  | { type: "invalid_answer"; why: string };

/** The thrown value that stops a round; the call's outcome is read from the round, not from it. */
export const ROUND_STOPPED = "toolwire: the round stopped for input";

/**
 * Creates the `onInteraction` of one round. Each question gets a key (`questionKey`, default
 * `q<n>` for the n-th question of the call); one answered in an earlier round (same key, same
 * question) is answered again, one answered by this retry's `inputResponses` is answered and
 * remembered, and the unanswered ones end the round: questions the tool asks together
 * (`Promise.all`) are gathered until a macrotask passes with no new one, then `stop` records
 * them all as one `input_required` and the tool is aborted (which is why a tool should ask
 * before it acts). A question needing a capability this
 * request did not declare ends the round as `missing_capability`.
 */
export function roundAsker(options: {
  round: Round;
  inputResponses: Record<string, unknown> | undefined;
  capabilities: ClientCapabilities;
  questionKey: (question: ToolInteractionRequest, index: number) => string;
  stop: (stop: Stop) => void;
}): (request: ToolInteractionRequest, signal: AbortSignal) => Promise<ToolInteractionResponse> {
  const { round, inputResponses, capabilities, questionKey, stop } = options;
  let index = 0;
  // Questions still being fingerprinted, and the unanswered ones gathered for this round.
  let reading = 0;
  let unanswered: { inputRequests: Record<string, unknown>; pending: Map<string, string> };
  let gathered: Promise<void> | undefined;
  const gather = () =>
    new Promise<void>((resolve) => {
      let seen = -1;
      const settle = () =>
        setTimeout(() => {
          // Another question may still be on its way: its fingerprint is a crypto promise.
          if (reading > 0 || seen !== unanswered.pending.size) {
            seen = unanswered.pending.size;
            return settle();
          }
          stop({ type: "input_required", ...unanswered });
          resolve();
        }, 0);
      settle();
    });
  return async (request) => {
    const key = questionKey(request, index++);
    reading++;
    let fingerprint: string;
    try {
      fingerprint = await fingerprintOf(request);
    } finally {
      reading--;
    }
    const earlier = round.answers.get(key);
    if (earlier?.fingerprint === fingerprint) return answerOf(request, earlier.response);
    const capability = capabilityFor(request.kind);
    if (!capabilities[capability]) {
      const required =
        capability === "elicitation" ? { elicitation: { form: {} } } : { [capability]: {} };
      stop({
        type: "missing_capability",
        required,
        why: `tool \`${request.toolName}\` asks for input, which needs the client capability ${JSON.stringify(required)}`,
      });
      throw new ToolError({ type: "cancelled", tool: request.toolName, reason: ROUND_STOPPED });
    }
    const given = inputResponses?.[key];
    const expected = round.pending.get(key);
    if (given !== undefined && (expected === undefined || expected === fingerprint)) {
      const response = given as Record<string, unknown>;
      const problem = answerProblem(request, response);
      if (problem !== undefined) {
        stop({ type: "invalid_answer", why: `\`inputResponses.${key}\`: ${problem}` });
        throw new ToolError({ type: "cancelled", tool: request.toolName, reason: ROUND_STOPPED });
      }
      round.answers.set(key, { fingerprint, response });
      return answerOf(request, response);
    }
    const question = questionFor(request, key, "2025-11-25");
    if (!gathered) {
      unanswered = { inputRequests: {}, pending: new Map() };
      gathered = gather();
    }
    unanswered.inputRequests[key] = { method: question.method, params: question.params };
    unanswered.pending.set(key, fingerprint);
    await gathered;
    throw new ToolError({ type: "cancelled", tool: request.toolName, reason: ROUND_STOPPED });
  };
}

/**
 * Checks `inputResponses` before a round runs: an object whose every value is an object (an
 * `ElicitResult`, a `CreateMessageResult`, …). Returns why not, or `undefined` when it is fine.
 */
export function inputResponsesProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isJsonObject(value)) return "`inputResponses` must be an object keyed by question";
  for (const [key, answer] of Object.entries(value)) {
    if (!isJsonObject(answer)) return `\`inputResponses.${key}\` must be an object`;
  }
  return undefined;
}

/**
 * Why a client's answer is not one: a form answer needs `action` `accept`, `decline` or
 * `cancel`, a sampling answer must be a well-formed `CreateMessageResult`, a roots answer a
 * `ListRootsResult`. Such an answer is the
 * client's protocol error, so the call gets `-32602` rather than the tool a made-up answer.
 */
export function answerProblem(
  request: ToolInteractionRequest,
  response: Record<string, unknown>,
): string | undefined {
  if (request.kind.type === "sampling") {
    const read = readSamplingResult(response);
    return typeof read === "string" ? `not a sampling result (${read})` : undefined;
  }
  if (request.kind.type === "roots") {
    return readRoots(response.roots) ? undefined : `\`roots\` ${NOT_ROOTS}`;
  }
  return ["accept", "decline", "cancel"].includes(response.action as string)
    ? undefined
    : "`action` must be accept, decline or cancel";
}

export function answerOf(
  request: ToolInteractionRequest,
  response: Record<string, unknown>,
): ToolInteractionResponse {
  return answerFrom(request, jsonRpcResult(request.id, response));
}

/** What must stay the same for a stored answer to be reused: the kind and the prompt. */
export async function fingerprintOf(request: ToolInteractionRequest): Promise<string> {
  return digest(canonicalJson([request.prompt, request.kind]));
}

const encoder = new TextEncoder();

async function digest(text: string): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return base64Url(new Uint8Array(hash).subarray(0, 12));
}

/** JSON text with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    isJsonObject(item)
      ? Object.fromEntries(
          Object.keys(item)
            .sort()
            .map((key) => [key, item[key]]),
        )
      : item,
  );
}

/** What a `requestState` is bound to besides its own content. */
export interface StateBinding {
  /** The caller's identity key (see `identityOf`). */
  readonly identity: string | undefined;
  readonly tool: string;
  readonly args: unknown;
}

/**
 * Signs and verifies `requestState`: `<payload>.<mac>`, both base64url, the MAC an HMAC-SHA-256
 * over the payload together with the caller's identity, the tool and its arguments (so state
 * replayed by another caller, on another tool or with other arguments fails), the payload
 * holding the expiry and the round. Signed, not encrypted: it holds what the client itself
 * answered, fingerprints of the questions and the results of the tool's `ctx.once` effects (so a
 * tool should not record there what the client must not read).
 */
export interface StateCodec {
  sign(round: Round & { pending: Map<string, string> }, binding: StateBinding): Promise<string>;
  /** The round the state carries, or `undefined` for tampered, expired or foreign state. */
  verify(state: string, binding: StateBinding): Promise<Round | undefined>;
}

/**
 * Creates the codec. Without a secret every handler instance draws its own random key, so a
 * retry must reach the instance that asked; with one, every instance sharing it accepts the
 * others' state.
 *
 * @param secret At least 32 bytes of UTF-8 text, e.g. from the environment.
 * @param ttlMs How long a state stays valid after it was issued.
 * @param now The clock, in ms.
 */
export function createStateCodec(
  secret: string | undefined,
  ttlMs: number,
  now: () => number = Date.now,
): StateCodec {
  let key: Promise<CryptoKey> | undefined;
  const keyOf = () => {
    key ??= crypto.subtle.importKey(
      "raw",
      secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    return key;
  };
  const signed = (payload: string, binding: StateBinding) =>
    encoder.encode(
      canonicalJson([
        "toolwire/mrtr/1",
        binding.identity ?? null,
        binding.tool,
        binding.args,
        payload,
      ]),
    );
  return {
    async sign(round, binding) {
      const body = {
        exp: now() + ttlMs,
        answers: Object.fromEntries(
          [...round.answers].map(([k, { fingerprint, response }]) => [k, [fingerprint, response]]),
        ),
        pending: Object.fromEntries(round.pending),
        steps: Object.fromEntries(round.steps),
      };
      const payload = base64Url(encoder.encode(JSON.stringify(body)));
      const mac = await crypto.subtle.sign("HMAC", await keyOf(), signed(payload, binding));
      return `${payload}.${base64Url(new Uint8Array(mac))}`;
    },
    async verify(state, binding) {
      const [payload, mac, extra] = state.split(".");
      if (payload === undefined || mac === undefined || extra !== undefined) return undefined;
      const macBytes = fromBase64Url(mac);
      const payloadBytes = fromBase64Url(payload);
      if (!macBytes || !payloadBytes) return undefined;
      const valid = await crypto.subtle.verify(
        "HMAC",
        await keyOf(),
        macBytes,
        signed(payload, binding),
      );
      if (!valid) return undefined;
      let body: unknown;
      try {
        body = JSON.parse(new TextDecoder().decode(payloadBytes));
      } catch {
        return undefined;
      }
      if (!isJsonObject(body) || typeof body.exp !== "number" || body.exp <= now())
        return undefined;
      const answers: Round["answers"] = new Map();
      for (const [k, entry] of Object.entries(isJsonObject(body.answers) ? body.answers : {})) {
        if (Array.isArray(entry) && typeof entry[0] === "string" && isJsonObject(entry[1])) {
          answers.set(k, { fingerprint: entry[0], response: entry[1] });
        }
      }
      const pending = new Map<string, string>();
      for (const [k, fp] of Object.entries(isJsonObject(body.pending) ? body.pending : {})) {
        if (typeof fp === "string") pending.set(k, fp);
      }
      const steps: JournalEntries = new Map();
      for (const [k, text] of Object.entries(isJsonObject(body.steps) ? body.steps : {})) {
        if (typeof text === "string" || text === null) steps.set(k, text);
      }
      return { answers, pending, steps };
    },
  };
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
