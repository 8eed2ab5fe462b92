import type {
  Block,
  Conversation,
  Message,
  RunSnapshot,
  SnapshotCall,
  ToolCallOutcome,
  ToolResultBlock,
} from "../src/agent/index.ts";
import type { Store } from "../src/index.ts";
import type { StoreMessage, ToolCard } from "../src/ui/index.ts";
import { unreachable } from "./unreachable.ts";

// The run in flight, kept across a reload (docs/demo.md, "A reload keeps your place"): the
// person's message from the moment it is sent, then the agent's latest signed snapshot
// (docs/design.md A9). Every write after the first is a compare-and-set against what this page
// last wrote or read, so when two tabs hold the same pending run only one of them can start
// its call: the other's checkpoint fails, and the agent then cancels the call instead of
// running it (a failed checkpoint keeps a call from starting).

/** What is kept of the run in flight. */
export interface KeptRun {
  /** What the person sent; it stays in the conversation whatever happens to the run. */
  input: string;
  /** The agent's latest checkpoint, once the run reached a turn's calls. */
  snapshot?: RunSnapshot;
}

/** Keeps one page's run in flight in a `Store`. */
export interface RunKeeper {
  /**
   * The key the agent signs snapshots with: made once per store (the first tab to ask claims
   * it) and kept beside the snapshots, so it protects against less than a server's would
   * (docs/demo.md says what).
   */
  secret(): Promise<string>;
  /** The run a previous page load left, if any; this page then owns it. */
  load(): Promise<KeptRun | undefined>;
  /** Keeps a new run's input (a new run replaces whatever was kept). */
  begin(input: string): Promise<void>;
  /**
   * Keeps the latest snapshot. @throws Error when another tab took the run over since this
   * page last wrote it (the agent then cancels the call instead of starting it).
   */
  checkpoint(snapshot: RunSnapshot): Promise<void>;
  /** Forgets the run, unless another tab took it over. */
  finish(): Promise<void>;
}

const RUN_KEY = "run";
const SECRET_KEY = "snapshot-secret";
// What a finished run leaves: a value rather than a deletion, so finishing is a compare-and-set
// too and cannot erase a run another tab took over.
const NONE = "none";

/**
 * Creates a run keeper over `store` (IndexedDB in the page, so the run survives a reload).
 *
 * @param store Where the run and the signing key are kept.
 * @returns The keeper; one per page load.
 */
export function createRunKeeper(store: Store): RunKeeper {
  // Written with every record: a resumed run's first snapshot can be byte for byte the one the
  // page before wrote, and a compare-and-set must still see that another page wrote it.
  const page = crypto.randomUUID();
  let secret: Promise<string> | undefined;
  let current: KeptRun | undefined;
  // What this page last wrote or read under RUN_KEY: the value a compare-and-set expects.
  let last: string | undefined;
  const claim = async (next: string) => {
    if (!(await store.compareAndSet(RUN_KEY, last, next))) {
      throw new Error("another tab of this page took the run over");
    }
    last = next;
  };
  return {
    secret() {
      secret ??= (async () => {
        const made = randomSecret();
        if (await store.compareAndSet(SECRET_KEY, undefined, made)) return made;
        return (await store.get(SECRET_KEY)) ?? made;
      })();
      return secret;
    },
    async load() {
      last = await store.get(RUN_KEY);
      current = parseKept(last);
      return current;
    },
    async begin(input) {
      current = { input };
      last = JSON.stringify({ ...current, page });
      await store.put(RUN_KEY, last);
    },
    async checkpoint(snapshot) {
      current = { input: current?.input ?? "", snapshot };
      await claim(JSON.stringify({ ...current, page }));
    },
    async finish() {
      current = undefined;
      if (last !== NONE) await claim(NONE).catch(() => {});
    },
  };
}

/**
 * Whether the kept run stopped where it waited for the person: an approval, or a question from
 * a running tool. Such a run is resumed after a reload (the card comes back); any other run
 * was working when the page went away and is settled instead, without running anything.
 */
export function waitsForPerson(kept: KeptRun): boolean {
  const calls = kept.snapshot?.body.calls ?? [];
  return calls.some(
    (call) =>
      (call.state === "waiting" && call.approval === true) ||
      (call.state === "running" && call.question !== undefined),
  );
}

/** One call of a settled run: its result as the model reads it. */
export interface SettledCall {
  id: string;
  name: string;
  arguments: unknown;
  result: ToolResultBlock;
  outcome: ToolCallOutcome;
}

/**
 * Ends a run the page lost while it was working, without running anything: the person's
 * message stays; a call that had finished keeps its recorded result; a call that was running
 * is reported as interrupted (it may or may not have taken effect) and one that had not
 * started as never run. The conversation returned is valid for the next run (every call has
 * its result).
 *
 * @param conversation The conversation before the run (used when no snapshot was taken).
 * @param kept The kept run.
 * @returns The conversation to go on from, and each call's result.
 */
export function settleKeptRun(
  conversation: Conversation,
  kept: KeptRun,
): { conversation: Conversation; calls: SettledCall[] } {
  const body = kept.snapshot?.body;
  if (!body) {
    const messages = conversation.messages.slice();
    if (kept.input !== "") appendUser(messages, [{ type: "text", text: kept.input }]);
    return { conversation: { ...conversation, messages, rewritten: [] }, calls: [] };
  }
  const calls = body.calls.map(settledCall);
  const messages = body.conversation.messages.slice();
  appendUser(
    messages,
    calls.map((call) => call.result),
  );
  return {
    conversation: { messages, taint: { ...body.conversation.taint }, rewritten: [] },
    calls,
  };
}

function settledCall(call: SnapshotCall): SettledCall {
  const { id, name } = call;
  // Marked as the agent marks the results it writes itself (`ToolResultBlock.mark`).
  const settled = (outcome: "interrupted" | "cancelled", text: string): SettledCall => ({
    id,
    name,
    arguments: call.arguments,
    outcome,
    result: {
      type: "tool_result",
      toolUseId: id,
      content: [{ type: "text", text }],
      isError: true,
      mark: outcome,
    },
  });
  switch (call.state) {
    case "done":
      return { id, name, arguments: call.arguments, outcome: call.outcome, result: call.result };
    case "running":
      return settled(
        "interrupted",
        "Interrupted: the page was reloaded while this call ran; it may or may not have taken effect, and it was not run again.",
      );
    case "approved":
    case "waiting":
      return settled("cancelled", "Cancelled: the page was reloaded before this call started.");
    default:
      return unreachable(call);
  }
}

/**
 * Returns the transcript a settled run leaves: each call's card ends as `settleKeptRun` ended
 * the call (a card the page had not saved yet is added), and the person's message is there
 * even when the page went away before saving it.
 *
 * @param messages The transcript as the page last saved it.
 * @param kept The kept run.
 * @param calls Its calls, settled.
 * @returns The transcript.
 */
export function settledMessages(
  messages: readonly StoreMessage[],
  kept: KeptRun,
  calls: readonly SettledCall[],
): StoreMessage[] {
  const out = messages.slice();
  const lastUser = [...out].reverse().find((message) => message.role === "user");
  const said = lastUser?.parts.some((part) => part.type === "text" && part.text === kept.input);
  if (!kept.snapshot && kept.input !== "" && !said) {
    out.push({
      id: `u-${crypto.randomUUID()}`,
      role: "user",
      parts: [{ type: "text", text: kept.input }],
    });
  }
  for (const call of calls) {
    const ended = {
      status: "done",
      outcome: call.outcome,
      isError: call.result.isError === true,
      content: call.result.content,
    } as const;
    const end = (card: ToolCard): ToolCard => {
      const { progress: _, ...rest } = card;
      return { ...rest, ...ended };
    };
    const m = out.findIndex((message) =>
      message.parts.some((part) => part.type === "tool" && part.callId === call.id),
    );
    const message = out[m];
    if (message) {
      out[m] = {
        ...message,
        parts: message.parts.map((part) =>
          part.type === "tool" && part.callId === call.id ? end(part) : part,
        ),
      };
      continue;
    }
    const card: ToolCard = {
      type: "tool",
      callId: call.id,
      toolName: call.name,
      argumentsText: JSON.stringify(call.arguments) ?? "",
      arguments: call.arguments,
      ...ended,
    };
    const last = out.at(-1);
    if (last?.role === "assistant") out[out.length - 1] = { ...last, parts: [...last.parts, card] };
    else out.push({ id: `s-${crypto.randomUUID()}`, role: "assistant", parts: [card] });
  }
  return out;
}

// As the agent folds input: into the last message when it is the user's, so no two user
// messages follow each other.
function appendUser(messages: Message[], content: Block[]): void {
  const last = messages.at(-1);
  if (last?.role === "user")
    messages[messages.length - 1] = { ...last, content: [...last.content, ...content] };
  else messages.push({ role: "user", content });
}

function parseKept(text: string | undefined): KeptRun | undefined {
  if (text === undefined || text === NONE) return undefined;
  try {
    const { input, snapshot } = JSON.parse(text) as KeptRun;
    if (typeof input !== "string") return undefined;
    return snapshot === undefined ? { input } : { input, snapshot };
  } catch {
    return undefined;
  }
}

function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
