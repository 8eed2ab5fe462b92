// Runs that pause and resume (docs/design.md, "The agent loop", A9): while a run with
// `snapshots` works on a turn's calls it keeps a signed snapshot of where each call is, and
// hands it to `onCheckpoint` before anything irreversible (a call starting) and at every point
// that waits for a person (an approval, a question). `agent.resume(snapshot, decisions)`
// continues it in another page load or isolate: a completed call is never run again, a call
// that was running comes back interrupted (unless its tool is idempotent), and a snapshot that
// was tampered with, or whose tools changed, is refused.

import type { Conversation } from "../compaction/conversation.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { errorText, ToolError } from "../errors.ts";
import type { ToolInteractionRequest } from "../interaction/interaction-request.ts";
import type { ToolResultBlock } from "../models/message.ts";
import type { ApprovalDecision } from "./gates.ts";
import type { ModelToolCall, ToolCallOutcome } from "./transcript.ts";

/** The snapshot format this version writes and reads. */
export const SNAPSHOT_FORMAT = "toolwire/run-snapshot/1";

/**
 * Where one call of the paused turn stands: `waiting` (not yet past its gates; `approval` when
 * a person was being asked), `approved` (allowed, never started), `running` (started, not
 * finished; `question` when it waited on one), `done` (its result is recorded).
 */
export type SnapshotCall = ModelToolCall &
  (
    | { state: "waiting"; approval?: true }
    | { state: "approved" }
    | { state: "running"; question?: ToolInteractionRequest }
    | { state: "done"; result: ToolResultBlock; outcome: ToolCallOutcome; started: boolean }
  );

/** What a snapshot holds; readable by the app (a pending card can be drawn from it). */
export interface RunSnapshotBody {
  format: typeof SNAPSHOT_FORMAT;
  /** The conversation, its last message the assistant turn whose calls are in `calls`. */
  conversation: Conversation;
  /** SHA-256 of the tools' declarations; a resume with other declarations is refused. */
  tools: string;
  /** Model turns taken so far. */
  turns: number;
  /** Sending calls the interlock refused so far. */
  blockedSends: number;
  /** The paused turn's calls, in call order. */
  calls: SnapshotCall[];
}

/**
 * A paused run: JSON, signed with the agent's `snapshots.secret` (HMAC-SHA-256 over the body's
 * canonical JSON), so it may pass through hands it should not trust (a client, a queue, another
 * service). Signed, not encrypted: whoever holds it can read the conversation.
 */
export interface RunSnapshot {
  body: RunSnapshotBody;
  /** The HMAC, base64url. */
  mac: string;
}

/** How an agent signs its snapshots. */
export interface SnapshotSettings {
  /**
   * The key, at least 32 characters (e.g. from the environment); every instance that may resume
   * the run must share it.
   */
  secret: string;
}

/**
 * Decisions for the paused calls, by call id: an approval decision for a call waiting on its
 * approval. A call without one is put to the agent's approver when the run resumes.
 */
export type ResumeDecisions = Record<string, ApprovalDecision>;

const encoder = new TextEncoder();

/** Signs and verifies snapshots with one key. */
export interface SnapshotSigner {
  sign(body: RunSnapshotBody): Promise<RunSnapshot>;
  /** The body, or a `ToolError` `invalid_configuration` saying why the snapshot is refused. */
  verify(snapshot: unknown): Promise<RunSnapshotBody | ToolError>;
}

/** Creates the signer for `settings` (checked: a short or missing secret throws). */
export function createSnapshotSigner(settings: SnapshotSettings): SnapshotSigner {
  const secret = (settings as { secret?: unknown } | undefined)?.secret;
  if (typeof secret !== "string" || secret.length < 32) {
    throw new ToolError({
      type: "invalid_configuration",
      message: "snapshots.secret must be a string of at least 32 characters",
    });
  }
  let key: Promise<CryptoKey> | undefined;
  const keyOf = () => {
    key ??= crypto.subtle.importKey(
      "raw",
      encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    return key;
  };
  return {
    async sign(body) {
      const mac = await crypto.subtle.sign(
        "HMAC",
        await keyOf(),
        encoder.encode(canonicalJson(body)),
      );
      return { body, mac: base64Url(new Uint8Array(mac)) };
    },
    async verify(snapshot) {
      const { body, mac } = (snapshot ?? {}) as { body?: unknown; mac?: unknown };
      if (typeof mac !== "string" || typeof body !== "object" || body === null) {
        return refusal("the snapshot is not a { body, mac } object");
      }
      const bytes = fromBase64Url(mac);
      let text: string;
      try {
        text = canonicalJson(body);
      } catch (error) {
        return refusal(`the snapshot's body is not JSON (${errorText(error)})`);
      }
      const valid =
        bytes !== undefined &&
        (await crypto.subtle.verify("HMAC", await keyOf(), bytes, encoder.encode(text)));
      if (!valid) {
        return refusal(
          "the snapshot's signature does not match: it was changed (its arguments, conversation or calls) or signed with another key",
        );
      }
      const checked = body as RunSnapshotBody;
      if (checked.format !== SNAPSHOT_FORMAT) {
        return refusal(`the snapshot's format is not ${SNAPSHOT_FORMAT}`);
      }
      return checked;
    },
  };
}

/** Returns the fingerprint of the tools' declarations (as the gates judge them, name order). */
export async function toolsFingerprint(infos: readonly ToolInfo[]): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", encoder.encode(canonicalJson(infos)));
  return base64Url(new Uint8Array(hash));
}

/**
 * The durable state of the turn whose calls a run is handling: where each call stands, written
 * through `save` (the agent signs it and hands it to `onCheckpoint`) one snapshot at a time, in
 * order. After `freeze` (the run paused) nothing more is written.
 */
export interface DurableTurn {
  /** Where each call of the turn stands, by index; the calls of a resumed turn start here. */
  readonly calls: SnapshotCall[];
  /** Records a change and waits until the snapshot holding it was handed over. */
  update(index: number, call: SnapshotCall): Promise<void>;
  /** Stops writing; returns the snapshot of the state at this moment. */
  freeze(): Promise<RunSnapshot>;
  /** Whether the run paused. */
  readonly frozen: boolean;
}

/**
 * Creates the durable state of one turn. `capture` takes the state of now (synchronously, so a
 * write never mixes one moment's calls with a later moment's conversation) and returns how to
 * sign it; `write` queues the handing over, one run-wide queue, so the last snapshot handed over
 * is always of the latest state, whichever turn wrote it.
 */
function createDurableTurn(
  calls: SnapshotCall[],
  capture: (calls: SnapshotCall[]) => () => Promise<RunSnapshot>,
  write: (sign: () => Promise<RunSnapshot>) => Promise<void>,
  isFrozen: () => boolean,
): DurableTurn {
  return {
    calls,
    get frozen() {
      return isFrozen();
    },
    update(index, call) {
      if (isFrozen()) return Promise.reject(refusal("the run paused"));
      calls[index] = call;
      return write(capture(structuredClone(calls)));
    },
    freeze: () => capture(structuredClone(calls))(),
  };
}

/** What a run's snapshots are taken from besides its calls. */
export interface RunPosition {
  conversation: Conversation;
  turns: number;
  blockedSends: number;
}

/** A run's snapshots: the turn in progress, a resumed turn, and pausing. */
export interface RunDurability {
  /** The snapshot being resumed (verified) and the decisions the app gave. */
  readonly resume: { body: RunSnapshotBody; decisions: ResumeDecisions } | undefined;
  /** Starts keeping the durable state of a turn's calls. */
  begin(calls: SnapshotCall[], position: () => RunPosition, tools: string): DurableTurn;
  /** The turn's calls are all settled: nothing is left to pause at. */
  end(): void;
  /** Stops writing and returns the snapshot of now; `undefined` when no turn is in progress. */
  pause(): Promise<RunSnapshot> | undefined;
}

/**
 * Creates a run's snapshots, signed by `signer` and handed to `onCheckpoint` (awaited: a call
 * starts only once the snapshot that says it runs was handed over).
 */
export function createRunDurability(
  signer: SnapshotSigner,
  onCheckpoint: ((snapshot: RunSnapshot) => void | Promise<void>) | undefined,
  resume: RunDurability["resume"],
): RunDurability {
  let current: DurableTurn | undefined;
  let queue: Promise<void> = Promise.resolve();
  let frozen = false;
  const write = (sign: () => Promise<RunSnapshot>) => {
    // A failed write fails its own update only; the next one still goes out.
    const next = queue
      .catch(() => {})
      .then(async () => {
        if (!frozen) await onCheckpoint?.(await sign());
      });
    queue = next;
    return next;
  };
  return {
    resume,
    begin(calls, position, tools) {
      const capture = (copy: SnapshotCall[]) => {
        const { conversation, turns, blockedSends } = position();
        // The messages of now: later ones are appended (or swapped in by compaction), never
        // written into these.
        const messages = conversation.messages.slice();
        const taint = { ...conversation.taint };
        return () =>
          signer.sign({
            format: SNAPSHOT_FORMAT,
            conversation: structuredClone({ messages, taint, rewritten: [] }),
            tools,
            turns,
            blockedSends,
            calls: copy,
          });
      };
      current = createDurableTurn(calls, capture, write, () => frozen);
      return current;
    },
    end() {
      current = undefined;
    },
    pause() {
      if (!current) return undefined;
      frozen = true;
      const turn = current;
      return queue.catch(() => {}).then(() => turn.freeze());
    },
  };
}

/** The calls of a fresh turn, each waiting for its gates. */
export function waitingCalls(calls: readonly ModelToolCall[]): SnapshotCall[] {
  return calls.map((call) => ({ ...call, state: "waiting" }));
}

/** The `ToolError` refusing a snapshot, a resume or a pause. */
export function refusal(why: string): ToolError {
  return new ToolError({ type: "invalid_configuration", message: `snapshot refused: ${why}` });
}

// JSON text with object keys sorted, so equal values sign the same. (The MCP server has its own
// copy; importing it would bring the server into every agent bundle.)
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.fromEntries(
          Object.keys(item)
            .sort()
            .map((key) => [key, (item as Record<string, unknown>)[key]]),
        )
      : item,
  );
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    return Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) =>
      c.charCodeAt(0),
    );
  } catch {
    return undefined;
  }
}
