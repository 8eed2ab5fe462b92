// Runs that pause and resume (docs/design.md, "The agent loop", A9): while a run with
// `snapshots` works on a turn's calls it keeps a signed snapshot of where each call is, and
// hands it to `onCheckpoint` (and the `store`, under the run's id) before anything
// irreversible (a call starting) and at every point that waits for a person (an approval, a
// question). `agent.resume(snapshot or id, decisions)` continues it in another page load or
// isolate: a completed call is never run again, a call that was running comes back interrupted
// (unless its tool is idempotent), and a snapshot that was tampered with, or whose tools
// changed, is refused. The agent imports this module on the first run of an agent with
// `snapshots`, so an agent without them never loads it (design.md, "Bundles and cold start").

import type { Conversation } from "../compaction/conversation.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { errorText, ToolError } from "../errors.ts";
import type { RemoteTaskRef } from "../execution/remote-task-hook.ts";
import type { ToolInteractionRequest } from "../interaction/interaction-request.ts";
import type { Message, ToolResultBlock } from "../models/message.ts";
import type { Store } from "../store/store.ts";
import { type ApprovalDecision, checkDecision } from "./gates.ts";
import type { ModelToolCall, ToolCallOutcome } from "./transcript.ts";

/** The snapshot format this version writes and reads. */
export const SNAPSHOT_FORMAT = "toolwire/run-snapshot/2";

/**
 * Where one call of the paused turn stands: `waiting` (not yet past its gates; `approval` when
 * a person was being asked), `approved` (allowed, never started), `running` (started, not
 * finished; `question` when it waited on one, `task` when it became a remote MCP task, which a
 * resumed run follows instead of calling the tool again), `done` (its result is recorded).
 */
export type SnapshotCall = ModelToolCall &
  (
    | { state: "waiting"; approval?: true }
    | { state: "approved" }
    | { state: "running"; question?: ToolInteractionRequest; task?: RemoteTaskRef }
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
 * canonical JSON, its messages by blocks of SHA-256), so it may pass through hands it should not
 * trust (a client, a queue, another service). Signed, not encrypted: whoever holds it can read
 * the conversation. The messages of the snapshots a run hands over are frozen: snapshots share
 * them.
 */
export interface RunSnapshot {
  body: RunSnapshotBody;
  /** The HMAC, base64url. */
  mac: string;
}

/** How an agent signs its snapshots, and where it keeps them. */
export interface SnapshotSettings {
  /**
   * The key, at least 32 characters (e.g. from the environment); every instance that may resume
   * the run must share it.
   */
  secret: string;
  /**
   * Keeps each run's latest snapshot under its id (`run.id`, key `toolwire/run/<id>`), so
   * `agent.resume(id)` continues it wherever the store reaches. Every write is a
   * `compareAndSet` against the run's own last write, so the store must support it (memory,
   * IndexedDB, a Durable Object's storage, Redis; not Workers KV): resuming claims the run, and
   * an instance that lost its claim stops before its next call starts. Default: none (snapshots
   * go only to `onCheckpoint` and `result.snapshot`).
   */
  store?: Store;
  /** How long a stored run is kept after its last write, in ms; default: until it is overwritten. */
  ttlMs?: number;
}

/**
 * Decisions for the paused calls, by call id: an approval decision for a call waiting on its
 * approval. A call without one is put to the agent's approver when the run resumes.
 */
export type ResumeDecisions = Record<string, ApprovalDecision>;

const encoder = new TextEncoder();

/**
 * What a run signed last: each message (by identity) with its canonical JSON and a deep-frozen
 * copy, shared by every snapshot of the run that holds it; and the closed blocks. The run's
 * next checkpoint reuses it up to its first new or swapped-in message.
 */
interface SignedMessages {
  entries: { message: unknown; text: string; copy?: unknown }[];
  /** Closed blocks: the index after their last message, and the SHA-256 of their text. */
  blocks: { end: number; hash: Promise<string> }[];
}

/** The fields of a body but its messages. */
type SnapshotFields = Omit<RunSnapshotBody, "conversation"> & {
  conversation: Omit<Conversation, "messages">;
};

/** Signs and verifies snapshots with one key. */
export interface SnapshotSigner {
  /** Signs `fields` with `messages`; `memo` holds what the run signed last (one per run). */
  sign(
    fields: SnapshotFields,
    messages: readonly Message[],
    memo: { last?: SignedMessages },
  ): Promise<RunSnapshot>;
  /** The body, or a `ToolError` `invalid_configuration` saying why the snapshot is refused. */
  verify(snapshot: unknown): Promise<RunSnapshotBody | ToolError>;
}

// A checkpoint is taken before and after every call, so signing the whole conversation each
// time made a long run quadratic (`npm run bench`: a 100-turn run took 64× a plain one, a
// 400-turn run 108×). The messages are signed in blocks instead: a block closes once its
// messages' canonical JSON reaches BLOCK_CHARS and is hashed (SHA-256) once; the HMAC covers
// the other fields with the message count, the closed blocks' hashes and the open block's
// text. A checkpoint signs what is new (at most a block, and a hash per block), a verifier
// hashes the blocks in parallel, and an edited, added, dropped or moved message changes a
// block's hash or the open text.
const BLOCK_CHARS = 16_384;

// Brings `last` up to `messages`: it stays up to the first message that is not the same object
// (messages are appended, or swapped in by compaction, never written into).
function signMessages(
  messages: readonly unknown[],
  last: SignedMessages | undefined,
  copy: boolean,
): SignedMessages {
  const known = last?.entries ?? [];
  let same = 0;
  while (same < messages.length && known[same]?.message === messages[same]) same++;
  const entries = known.slice(0, same);
  const blocks = last?.blocks.filter((block) => block.end <= same) ?? [];
  for (const message of messages.slice(same)) {
    const text = canonicalJson(message);
    entries.push({ message, text, copy: copy ? deepFreeze(structuredClone(message)) : undefined });
  }
  let start = blocks.at(-1)?.end ?? 0;
  let size = 0;
  for (let end = start + 1; end <= entries.length; end++) {
    size += (entries[end - 1] as { text: string }).text.length;
    if (size < BLOCK_CHARS) continue;
    const text = entries.slice(start, end).map((entry) => entry.text);
    blocks.push({ end, hash: digest(text.join()) });
    start = end;
    size = 0;
  }
  return { entries, blocks };
}

// The text the HMAC covers: the body's other fields with its message count, then the blocks.
async function signedText(body: object, messages: number, signed: SignedMessages) {
  const { conversation } = body as { conversation: object };
  const counted = { ...body, conversation: { ...conversation, messages } };
  const hashes = await Promise.all(signed.blocks.map((block) => block.hash));
  const open = signed.entries.slice(signed.blocks.at(-1)?.end ?? 0).map((entry) => entry.text);
  return `${canonicalJson(counted)}\n${hashes.join()}\n${open.join()}`;
}

async function digest(text: string): Promise<string> {
  return base64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(Object.freeze(value))) deepFreeze(item);
  }
  return value;
}

/** Creates the signer for `secret` (the agent checked it: a string of at least 32 characters). */
export function createSnapshotSigner(secret: string): SnapshotSigner {
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
    async sign(fields, messages, memo) {
      const signed = signMessages(messages, memo.last, true);
      memo.last = signed;
      const text = await signedText(fields, messages.length, signed);
      const mac = await crypto.subtle.sign("HMAC", await keyOf(), encoder.encode(text));
      const copies = signed.entries.map((entry) => entry.copy as Message);
      const body = { ...fields, conversation: { ...fields.conversation, messages: copies } };
      return { body, mac: base64Url(new Uint8Array(mac)) };
    },
    async verify(snapshot) {
      const { body, mac } = (snapshot ?? {}) as { body?: unknown; mac?: unknown };
      if (typeof mac !== "string" || typeof body !== "object" || body === null) {
        return refusal("the snapshot is not a { body, mac } object");
      }
      const { format, conversation } = body as Partial<RunSnapshotBody>;
      // Before the signature only to say why: a snapshot of another format is refused anyway.
      if (format !== SNAPSHOT_FORMAT) {
        return refusal(`the snapshot's format is not ${SNAPSHOT_FORMAT}`);
      }
      const messages: unknown = conversation?.messages;
      if (!Array.isArray(messages)) {
        return refusal("the snapshot's body holds no conversation.messages array");
      }
      const bytes = fromBase64Url(mac);
      let text: string;
      try {
        text = await signedText(body, messages.length, signMessages(messages, undefined, false));
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
      return body as RunSnapshotBody;
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
  /**
   * Whether the run paused or another instance claimed it: either way its calls are put aside,
   * not given up (a remote task goes on for whoever resumes the run).
   */
  readonly detached: boolean;
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
  isDetached: () => boolean,
): DurableTurn {
  return {
    calls,
    get frozen() {
      return isFrozen();
    },
    get detached() {
      return isDetached();
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
  /**
   * Takes the fingerprint of the run's tools; for a resumed run, returns why it cannot go on
   * here (other tools, a decision for a call that is not waiting), checking the decisions.
   */
  prepare(infos: readonly ToolInfo[]): Promise<ToolError | undefined>;
  /** Starts keeping the durable state of a fresh turn's calls, each waiting for its gates. */
  begin(calls: readonly ModelToolCall[], position: () => RunPosition): DurableTurn;
  /** Starts keeping the resumed turn's calls, where the snapshot left them. */
  beginResumed(position: () => RunPosition): DurableTurn;
  /** The turn's calls are all settled: nothing is left to pause at. */
  end(): void;
  /** Stops writing and returns the snapshot of now; `undefined` when no turn is in progress. */
  pause(): Promise<RunSnapshot> | undefined;
  /** The run ended with `stop`: a stored run that did not pause is marked ended. */
  close(stop: string): Promise<void>;
}

/** Where a run is kept in a `Store`, as one instance holds it. */
export interface KeptRun {
  store: Store;
  id: string;
  ttlMs: number | undefined;
  /** This instance's claim, written into every entry it stores. */
  owner: string;
  /** The entry this instance wrote (or claimed) last; `undefined` for a run not stored yet. */
  last: string | undefined;
  /** Told once when another instance claimed the run: this one must stop. */
  onLost(error: ToolError): void;
}

/** A stored run: its latest snapshot, or how it ended; `owner` is the instance that wrote it. */
type StoredRun = { owner: string; snapshot: RunSnapshot } | { owner: string; ended: string };

/** The store key of run `id`. */
export function runKey(id: string): string {
  return `toolwire/run/${id}`;
}

/**
 * Loads run `id` from the store, verifies its snapshot and claims it for `owner` (a
 * compare-and-set against the entry read, so of two instances resuming at once one wins).
 * Returns the verified body and the claimed entry, or the refusal.
 */
export async function claimRun(
  signer: SnapshotSigner,
  kept: Pick<KeptRun, "store" | "id" | "ttlMs" | "owner">,
): Promise<{ body: RunSnapshotBody; last: string } | ToolError> {
  const key = runKey(kept.id);
  const text = await kept.store.get(key);
  if (text === undefined) return refusal(`no run \`${kept.id}\` in the store`);
  let entry: { snapshot?: unknown; ended?: unknown } | null;
  try {
    entry = JSON.parse(text);
  } catch {
    return refusal(`the store's entry for run \`${kept.id}\` is not JSON`);
  }
  if (typeof entry?.ended === "string") {
    return refusal(`run \`${kept.id}\` ended (${entry.ended}); there is nothing to resume`);
  }
  // Verified before it is claimed: an instance with another key leaves the run as it was.
  const body = await signer.verify(entry?.snapshot);
  if (body instanceof ToolError) return body;
  const claimed = JSON.stringify({ owner: kept.owner, snapshot: entry?.snapshot });
  if (!(await kept.store.compareAndSet(key, text, claimed, ttlOptions(kept.ttlMs)))) {
    return refusal(`run \`${kept.id}\` was resumed by another instance first`);
  }
  return { body, last: claimed };
}

/**
 * Creates a run's snapshots, signed by `signer`, written to the store (`kept`) and then handed
 * to `onCheckpoint` (awaited: a call starts only once the snapshot that says it runs was handed
 * over).
 */
export function createRunDurability(
  signer: SnapshotSigner,
  onCheckpoint: ((snapshot: RunSnapshot) => void | Promise<void>) | undefined,
  resume: RunDurability["resume"],
  kept: KeptRun | undefined,
): RunDurability {
  let current: DurableTurn | undefined;
  let queue: Promise<void> = Promise.resolve();
  let frozen = false;
  let lost = false;
  let tools = "";
  const enqueue = (task: () => Promise<void>) => {
    // A failed write fails its own update only; the next one still goes out.
    const next = queue.catch(() => {}).then(task);
    queue = next;
    return next;
  };
  // Writes over this instance's own last write only: anything else there means another
  // instance claimed the run (or a fresh run's id was taken), and this one must stop.
  const store = async (entry: StoredRun) => {
    if (!kept) return;
    const text = JSON.stringify(entry);
    if (
      !lost &&
      (await kept.store.compareAndSet(runKey(kept.id), kept.last, text, ttlOptions(kept.ttlMs)))
    ) {
      kept.last = text;
      return;
    }
    const error = refusal(
      kept.last === undefined
        ? `the store already holds a run \`${kept.id}\` (give each run its own id)`
        : `run \`${kept.id}\` was resumed by another instance; this one stops`,
    );
    if (!lost) kept.onLost(error);
    lost = true;
    throw error;
  };
  const write = (sign: () => Promise<RunSnapshot>) =>
    enqueue(async () => {
      if (frozen) return;
      const snapshot = await sign();
      if (kept) await store({ owner: kept.owner, snapshot });
      await onCheckpoint?.(snapshot);
    });
  // What this run signed last; signing goes through the one queue, so one at a time.
  const memo: { last?: SignedMessages } = {};
  const open = (calls: SnapshotCall[], position: () => RunPosition) => {
    const capture = (copy: SnapshotCall[]) => {
      const { conversation, turns, blockedSends } = position();
      // The messages of now: later ones are appended (or swapped in by compaction), never
      // written into these.
      const messages = conversation.messages.slice();
      const taint = { ...conversation.taint };
      return () =>
        signer.sign(
          {
            format: SNAPSHOT_FORMAT,
            conversation: { taint, rewritten: [] },
            tools,
            turns,
            blockedSends,
            calls: copy,
          },
          messages,
          memo,
        );
    };
    current = createDurableTurn(
      calls,
      capture,
      write,
      () => frozen,
      () => frozen || lost,
    );
    return current;
  };
  return {
    resume,
    async prepare(infos) {
      tools = await toolsFingerprint(infos);
      return resume && resumeProblem(resume.body, resume.decisions, tools);
    },
    begin: (calls, position) =>
      open(
        calls.map((call) => ({ ...call, state: "waiting" })),
        position,
      ),
    beginResumed: (position) => open(structuredClone(resume?.body.calls ?? []), position),
    end() {
      current = undefined;
    },
    pause() {
      if (!current) return undefined;
      frozen = true;
      const turn = current;
      const paused = queue.catch(() => {}).then(() => turn.freeze());
      // The store keeps the paused state, so `resume(id)` starts from exactly this snapshot.
      if (kept) enqueue(async () => store({ owner: kept.owner, snapshot: await paused }));
      return paused;
    },
    close(stop) {
      if (!kept) return Promise.resolve();
      if (stop === "paused" || lost) return queue.catch(() => {});
      return enqueue(() => store({ owner: kept.owner, ended: stop })).catch(() => {});
    },
  };
}

// Why a verified snapshot cannot be resumed here: other tools, or a decision for a call that
// is not waiting for one.
function resumeProblem(
  body: RunSnapshotBody,
  decisions: ResumeDecisions,
  tools: string,
): ToolError | undefined {
  if (body.tools !== tools) {
    return refusal("the tools' declarations changed since the run paused");
  }
  for (const [id, decision] of Object.entries(decisions)) {
    const call = body.calls.find((candidate) => candidate.id === id);
    if (call?.state !== "waiting") return refusal(`no call \`${id}\` waits for a decision`);
    try {
      decisions[id] = checkDecision(decision);
    } catch {
      return refusal(`the decision for \`${id}\` is not an approval decision`);
    }
  }
  return undefined;
}

function ttlOptions(ttlMs: number | undefined): { ttlMs: number } | undefined {
  return ttlMs === undefined ? undefined : { ttlMs };
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

/** What `openRun` needs to set up a run's snapshots. */
export interface RunOpening {
  settings: SnapshotSettings;
  /** The agent's signer, made on its first run. */
  signer: SnapshotSigner | undefined;
  /** The run's id in `settings.store`, when there is a store. */
  id: string | undefined;
  /** What is being resumed: a snapshot, or (a string) the id of a stored run. */
  resuming: { snapshot: unknown; decisions: ResumeDecisions } | undefined;
  onCheckpoint: ((snapshot: RunSnapshot) => void | Promise<void>) | undefined;
  onLost(error: ToolError): void;
}

/**
 * Sets up a run's snapshots: verifies (and, by id, claims) what is resumed. Returns the run's
 * durability, the signer and the resumed conversation; throws the refusal.
 */
export async function openRun(
  opening: RunOpening,
): Promise<{ durability: RunDurability; signer: SnapshotSigner; conversation?: Conversation }> {
  const { settings, id, resuming } = opening;
  const signer = opening.signer ?? createSnapshotSigner(settings.secret);
  const kept: KeptRun | undefined =
    settings.store && id !== undefined
      ? {
          store: settings.store,
          id,
          ttlMs: settings.ttlMs,
          owner: crypto.randomUUID(),
          last: undefined,
          onLost: opening.onLost,
        }
      : undefined;
  if (!resuming) {
    return {
      durability: createRunDurability(signer, opening.onCheckpoint, undefined, kept),
      signer,
    };
  }
  let body: RunSnapshotBody | ToolError;
  if (typeof resuming.snapshot === "string") {
    if (!kept) throw refusal("resume by id needs an agent with `snapshots.store`");
    const claimed = await claimRun(signer, kept);
    if (claimed instanceof ToolError) throw claimed;
    kept.last = claimed.last;
    body = claimed.body;
  } else {
    body = await signer.verify(resuming.snapshot);
    if (body instanceof ToolError) throw body;
  }
  const conversation = structuredClone(body.conversation);
  const resumed = { body: { ...body, conversation }, decisions: resuming.decisions };
  return {
    durability: createRunDurability(signer, opening.onCheckpoint, resumed, kept),
    signer,
    conversation,
  };
}
