import { EventEmitter } from "eventemitter3";
import {
  Agent,
  type AgentEvent,
  type Conversation,
  compact,
  emptyConversation,
  extractiveSummarizer,
  modelSummarizer,
  type RunResult,
  type RunSnapshot,
  type Summarizer,
} from "../src/agent/index.ts";
import {
  isToolError,
  memoryStore,
  type Store as RunStore,
  type ToolInteractionRequest,
  type ToolInteractionResponse,
  Toolset,
} from "../src/index.ts";
import type { Model } from "../src/models/index.ts";
import {
  type AgentStore,
  type AgentStoreGates,
  createAgentStore,
  type StoreMessage,
} from "../src/ui/index.ts";
import {
  type CompactionRecord,
  compactionRecords,
  headParts,
  recordOf,
} from "./compaction-record.ts";
import {
  createRunKeeper,
  type KeptRun,
  type RunKeeper,
  settledMessages,
  settleKeptRun,
  waitsForPerson,
} from "./kept-run.ts";
import { createRemoteServers, type RemoteServers } from "./remote-servers.ts";
import { loadSession, type SavedTranscript, saveSession, saveTranscript } from "./saved-session.ts";
import type { Store } from "./store.ts";
import { estimatedReading, type TokenReading, tokenReading } from "./token-reading.ts";
import type { DemoTools } from "./tools/demo-tools.ts";
import { retryText, stopText, type TranscriptNote } from "./transcript-note.ts";

/** Messages a summary keeps verbatim in the demo (small, so compaction is easy to see). */
export const KEEP_RECENT = 4;

const INSTRUCTIONS = [
  "You are the assistant of the toolwire demo page, running in the user's browser.",
  "Use the tools: calculator for arithmetic, save_note/list_notes for notes, todo for a plan",
  "(keep it current), clock for the time, ask_user when you need information from the user,",
  "slow_task when asked to run it. Answer briefly.",
].join(" ");

/** Timeline entry interface: one agent event, as the timeline lists it. */
export interface TimelineEntry {
  /** Milliseconds since the run started. */
  ms: number;
  event: AgentEvent;
}

/**
 * Demo session events: what the views hear besides the agent store (which they subscribe to
 * for the messages, the cards and what waits for the person).
 */
export type DemoSessionEvents = {
  /** The notes between the messages changed. */
  notes: [];
  /** Everything was replaced (a load, a new conversation). */
  reset: [];
  timeline: [entry: TimelineEntry | undefined];
  context: [];
  /** The size changed during a run (a turn's usage, or a compaction). */
  tokens: [reading: TokenReading];
  busy: [busy: boolean];
  tools: [];
};

/** Demo session options interface. */
export interface DemoSessionOptions {
  store: Store;
  demo: DemoTools;
  /** Returns the model to use for the next run (the settings may have changed). */
  model(): Model | Promise<Model>;
  /** Whether the offline model is selected (it then summarises extractively). */
  offline(): boolean;
  /** The compaction threshold now. */
  thresholdTokens(): number;
  /**
   * Where the run in flight is kept, so a reload finds it (the page passes IndexedDB). Default:
   * memory, so it lasts as long as the session.
   */
  runs?: RunStore;
}

/**
 * The page's session: an agent store (toolwire/ui) the views render from, and what the page
 * keeps beside it: the notes between the messages, the compaction log, the saved session and
 * the run in flight across a reload. Open one with `DemoSession.open`.
 */
export class DemoSession extends EventEmitter<DemoSessionEvents> {
  /** The agent behind `subscribe` / `getSnapshot`: messages, cards, approvals, questions. */
  readonly store: AgentStore;
  /** Notices and compaction dividers, each after the messages it follows. */
  notes: readonly TranscriptNote[] = [];
  compactions: CompactionRecord[] = [];
  /** Connected MCP servers; their tools join the agent's. */
  readonly remotes: RemoteServers = createRemoteServers(() => this.emit("tools"));
  /**
   * Writing tools the person chose to allow without being asked (the Tools tab's checkboxes).
   * Empty at first: every write asks until the visitor ticks a box.
   */
  readonly alwaysAllow = new Set<string>();
  readonly local: Toolset;
  #options: DemoSessionOptions;
  #gates: AgentStoreGates | undefined;
  #model: Model;
  #secret: string;
  #runs: RunKeeper;
  #reading: TokenReading | undefined;
  #started = 0;
  #seenCompactions = 0;
  #work: Promise<void> | undefined;
  #compacting: AbortController | undefined;

  /**
   * Opens a session: the first agent needs the model and the key snapshots are signed with.
   *
   * @param options The store, tools, model and threshold.
   */
  static async open(options: DemoSessionOptions): Promise<DemoSession> {
    const runs = createRunKeeper(options.runs ?? memoryStore());
    const [model, secret] = await Promise.all([options.model(), runs.secret()]);
    return new DemoSession(options, runs, model, secret);
  }

  private constructor(options: DemoSessionOptions, runs: RunKeeper, model: Model, secret: string) {
    super();
    this.#options = options;
    this.#runs = runs;
    this.#model = model;
    this.#secret = secret;
    this.local = Toolset.local(options.demo.tools);
    this.store = createAgentStore((gates) => this.#agent(gates), {
      // A call starts only once the snapshot saying so is kept (docs/design.md A9); the
      // transcript is kept beside it, so a reload finds the cards as they stood.
      onCheckpoint: async (snapshot) => this.#keep(snapshot),
      // The inspector's feed, which the state does not keep: every event for the timeline, the
      // transcript size the model counted, and the provider's retries.
      onEvent: (event) => this.#inspect(event),
    });
    this.store.subscribe(() => this.#divide());
  }

  /** Whether a run or a compaction is in flight. */
  get busy(): boolean {
    return this.#work !== undefined;
  }

  /** What the model reads (the visible transcript is the store's messages). */
  get conversation(): Conversation {
    return this.store.getSnapshot().conversation;
  }

  /** The toolsets the agent gets: connected servers first, local tools last (they win). */
  get toolsets(): Toolset[] {
    return [...this.remotes.list.map((remote) => remote.toolset), this.local];
  }

  /** The transcript's size: the model's latest count (live during runs), else an estimate. */
  get tokens(): TokenReading {
    return this.#reading ?? estimatedReading(this.conversation.messages);
  }

  /** The carried-state block in message 0, header excluded. */
  get carried(): string | undefined {
    return headParts(this.conversation.messages[0]).carried;
  }

  /**
   * Puts a question to the person through the store (the dock shows it); for tools called
   * from outside the agent, such as the browser's agent through WebMCP.
   */
  ask(request: ToolInteractionRequest, signal: AbortSignal): Promise<ToolInteractionResponse> {
    if (!this.#gates) throw new Error("the session has no agent yet");
    return this.#gates.onInteraction(request, signal);
  }

  /**
   * Restores the saved conversation, transcript, compaction log and todo list, and the run a
   * reload cut short: one waiting for the person (an approval, a question) is resumed, so its
   * card comes back; one that was working is settled without running anything again.
   */
  async load(): Promise<void> {
    const { store, demo } = this.#options;
    const [saved, kept] = await Promise.all([
      loadSession(store),
      // A run store that fails to open loses only the cut-short run, not the page.
      this.#runs.load().catch(() => undefined),
      demo.todo.load(),
    ]);
    this.#reading = undefined;
    this.compactions = saved.compactions;
    this.notes = saved.transcript.notes;
    this.store.restore({ conversation: saved.conversation, messages: saved.transcript.messages });
    this.emit("reset");
    this.emit("context");
    if (!kept) return;
    const { snapshot } = kept;
    if (snapshot && waitsForPerson(kept)) {
      // Not awaited: the resumed run waits for the person as a sent one does.
      void this.#busy(() => this.#resume(kept, snapshot, saved.conversation)).catch(
        (error: unknown) => this.#note(`The run could not resume: ${errorText(error)}`, "error"),
      );
    } else await this.#busy(() => this.#settle(kept, saved.conversation));
  }

  /** Clears the conversation, the todo list and the logs (notes stay: they are data). */
  async reset(): Promise<void> {
    this.stop();
    await this.#work?.catch(() => {});
    this.#reading = undefined;
    this.compactions = [];
    this.notes = [];
    this.store.restore({ conversation: emptyConversation(), messages: [] });
    await this.#options.demo.todo.clear();
    await this.#save();
    this.emit("reset");
    this.emit("context");
  }

  /** Cancels everything in flight: the model request, running tools and open prompts. */
  stop(): void {
    this.store.cancel();
    this.#compacting?.abort(new Error("stopped by the user"));
  }

  /**
   * Sends a message and runs the agent until it answers, stops or is stopped.
   *
   * @param text The user's message.
   */
  async send(text: string): Promise<void> {
    if (this.busy || text.trim() === "") return;
    await this.#busy(async () => {
      try {
        await this.#prepare();
        // The person's message is kept before anything runs, so a reload never loses it.
        await this.#runs.begin(text);
      } catch (error) {
        this.#note(`The run could not start: ${errorText(error)}`, "error");
        return;
      }
      const started = this.store.getSnapshot().compactions.length;
      const result = this.store.send(text);
      void this.#saveTranscript().catch(() => {});
      await this.#finish(await result, started);
    });
  }

  /** Compacts now, with a summary, whatever the size (between runs). */
  async compactNow(): Promise<void> {
    if (this.busy) return;
    await this.#busy(async () => {
      const controller = new AbortController();
      this.#compacting = controller;
      const before = this.conversation;
      try {
        const summarizer = this.#options.offline()
          ? extractiveSummarizer()
          : modelSummarizer(await this.#options.model());
        const result = await compact(before, {
          toolsets: this.toolsets,
          force: true,
          keepRecent: KEEP_RECENT,
          summarizer,
          signal: controller.signal,
        });
        if (!result.changed || !result.event) {
          this.#note(
            `Nothing to compact yet: a summary keeps the last ${KEEP_RECENT} messages verbatim, so the transcript needs a few more turns.`,
          );
          return;
        }
        const { event } = result;
        const head = result.conversation.messages[0];
        this.compactions.push(recordOf(event, "manual", before.messages.slice(), head));
        this.#reading = undefined;
        this.store.restore({
          conversation: { ...result.conversation, rewritten: [] },
          messages: this.store.getSnapshot().messages,
        });
        this.#divider(event, "manual");
      } catch (error) {
        this.#note(`Compaction failed: ${errorText(error)}`, "error");
      } finally {
        this.#compacting = undefined;
        await this.#save();
      }
    });
  }

  // The agent the store runs, built again before each run (`store.reconfigure`): the model,
  // the tools and the threshold may have changed since the last.
  #agent(gates: AgentStoreGates): Agent {
    this.#gates = gates;
    return new Agent({
      model: this.#model,
      toolsets: this.toolsets,
      instructions: INSTRUCTIONS,
      // A tool the person ticked in the Tools tab is allowed here; the store's approver asks
      // for the rest, and marks which was which on the card.
      approver: (request, signal) =>
        this.alwaysAllow.has(request.toolName)
          ? Promise.resolve({ type: "allow" })
          : gates.approver(request, signal),
      // Someone is watching, so a sending call in a turn holding private data and
      // untrusted content is put to them rather than blocked outright (the library default).
      interlock: "ask",
      onInteraction: gates.onInteraction,
      compaction: {
        thresholdTokens: this.#options.thresholdTokens(),
        keepRecent: KEEP_RECENT,
        compactTool: true,
        // The log shows each pre-rewrite transcript; the run keeps them and this session
        // empties `rewritten` after each run, so memory is bounded by one run's rewrites.
        keepRewritten: true,
        ...this.#summarizerOption(),
      },
      snapshots: { secret: this.#secret },
    });
  }

  async #prepare(): Promise<void> {
    this.#model = await this.#options.model();
    this.store.reconfigure();
    this.#started = performance.now();
    this.emit("timeline", undefined);
  }

  #inspect(event: AgentEvent): void {
    this.emit("timeline", { ms: performance.now() - this.#started, event });
    const reading = tokenReading(event);
    if (reading) {
      this.#reading = reading;
      this.emit("tokens", reading);
    }
    if (event.type === "model_retry") this.#note(retryText(event));
  }

  // Resumes a run a reload stopped at an approval or a question: the store's approver and
  // answerer ask the person again, with the very arguments the snapshot signed.
  async #resume(kept: KeptRun, snapshot: RunSnapshot, before: Conversation): Promise<void> {
    await this.#prepare();
    const started = this.store.getSnapshot().compactions.length;
    const messages = this.store.getSnapshot().messages;
    const result = await this.store.restore({ checkpoint: snapshot, messages });
    if (!result) return;
    // A resume is refused with `invalid_configuration` ("snapshot refused: …") before
    // anything runs; the run is settled then, and the page says so, not "the model failed".
    const { error } = this.store.getSnapshot();
    if (result.stop === "error" && isToolError(error?.error, "invalid_configuration")) {
      const refused = error.error.message.replace(/^.*?snapshot refused: /, "");
      await this.#settle(kept, before, refused);
    } else await this.#finish(result, started);
  }

  // Ends a run the page lost without running anything (kept-run.ts, settleKeptRun), and says so.
  async #settle(kept: KeptRun, before: Conversation, refused?: string): Promise<void> {
    const settled = settleKeptRun(before, kept);
    const messages = settledMessages(this.store.getSnapshot().messages, kept, settled.calls);
    this.store.restore({ conversation: settled.conversation, messages });
    const interrupted = settled.calls.filter((call) => call.outcome === "interrupted");
    const why = refused
      ? `The run that waited for you could not be picked up again (${refused}), so it stopped there.`
      : "The page was reloaded while the agent was working, so the run stopped there.";
    const calls =
      interrupted.length === 0
        ? " Nothing was run again."
        : interrupted.length === 1
          ? ` ${interrupted[0]?.name} was interrupted: it may or may not have taken effect, and it was not run again.`
          : ` ${interrupted.map((call) => call.name).join(", ")} were interrupted: they may or may not have taken effect, and none was run again.`;
    this.#note(`${why}${calls} Send a message to go on.`, "warning");
    await this.#save();
    await this.#runs.finish();
  }

  // A run's end: its compactions into the log, what the model reads trimmed of the
  // pre-rewrite copies, a notice for how it stopped; saved before the kept run is forgotten,
  // so a reload in between settles it from its last snapshot (the transcript keeps the answer).
  async #finish(result: RunResult, started: number): Promise<void> {
    const state = this.store.getSnapshot();
    this.compactions.push(...compactionRecords(state.compactions.slice(started), result));
    this.store.restore({
      conversation: { ...result.conversation, rewritten: [] },
      messages: state.messages,
    });
    if (result.stop === "error" && state.error) {
      this.#note(`The model failed: ${state.error.message}`, "error");
    }
    const stopped = stopText(result.stop);
    if (stopped) this.#note(stopped, "warning");
    try {
      await this.#save();
    } finally {
      await this.#runs.finish();
    }
  }

  async #keep(snapshot: RunSnapshot): Promise<void> {
    await this.#runs.checkpoint(snapshot);
    // A failed save costs only how a card looks after a reload (the resumed or settled run
    // redraws it).
    void this.#saveTranscript().catch(() => {});
  }

  // A divider for each compaction the store recorded during a run, where the transcript was.
  #divide(): void {
    const { compactions } = this.store.getSnapshot();
    if (compactions.length < this.#seenCompactions) this.#seenCompactions = 0;
    for (const record of compactions.slice(this.#seenCompactions)) {
      this.#divider(record, record.reason);
    }
    this.#seenCompactions = compactions.length;
  }

  #divider(
    event: { before: { messages: number }; after: { messages: number }; summarized: boolean },
    reason: string,
  ): void {
    this.#add({
      type: "compaction",
      id: `c-${crypto.randomUUID()}`,
      at: this.#at(),
      from: event.before.messages,
      to: event.after.messages,
      summarized: event.summarized,
      reason,
    });
  }

  #note(text: string, tone: "info" | "warning" | "error" = "info"): void {
    this.#add({ type: "notice", id: `n-${crypto.randomUUID()}`, at: this.#at(), tone, text });
  }

  // After the messages on screen; before a turn the model has not written anything into yet.
  #at(): number {
    const { messages } = this.store.getSnapshot();
    const last = messages.at(-1);
    return last?.role === "assistant" && last.parts.length === 0
      ? messages.length - 1
      : messages.length;
  }

  #add(note: TranscriptNote): void {
    this.notes = [...this.notes, note];
    this.emit("notes");
  }

  async #busy(work: () => Promise<void>): Promise<void> {
    const running = work();
    this.#work = running;
    this.emit("busy", true);
    try {
      await running;
    } finally {
      this.#work = undefined;
      this.emit("busy", false);
      this.emit("context");
    }
  }

  #summarizerOption(): { summarizer?: Summarizer } {
    return this.#options.offline() ? { summarizer: extractiveSummarizer() } : {};
  }

  #transcript(): SavedTranscript {
    const messages: readonly StoreMessage[] = this.store.getSnapshot().messages;
    return { messages, notes: this.notes };
  }

  #saveTranscript(): Promise<void> {
    return saveTranscript(this.#options.store, this.#transcript());
  }

  #save(): Promise<void> {
    const { conversation, compactions } = this;
    const transcript = this.#transcript();
    return saveSession(this.#options.store, { conversation, transcript, compactions });
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
