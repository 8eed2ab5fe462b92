import { EventEmitter } from "eventemitter3";
import {
  Agent,
  type AgentEvent,
  type AgentRun,
  type AgentRunOptions,
  type Approver,
  type Conversation,
  compact,
  emptyConversation,
  extractiveSummarizer,
  modelSummarizer,
  type RunResult,
  type Summarizer,
} from "../src/agent/index.ts";
import { isToolError, memoryStore, type Store as RunStore, Toolset } from "../src/index.ts";
import type { Model } from "../src/models/index.ts";
import {
  type CompactionRecord,
  compactionRecords,
  headParts,
  recordOf,
} from "./compaction-record.ts";
import { createDisplayLog, type DisplayItem, type DisplayLog } from "./display-log.ts";
import {
  createRunKeeper,
  type KeptRun,
  type RunKeeper,
  settleKeptRun,
  waitsForPerson,
} from "./kept-run.ts";
import { createPromptQueue, type PendingPrompt, type PromptQueue } from "./prompt-queue.ts";
import { createRemoteServers, type RemoteServers } from "./remote-servers.ts";
import { loadSession, saveItems, saveSession } from "./saved-session.ts";
import type { Store } from "./store.ts";
import { estimatedReading, type TokenReading, tokenReading } from "./token-reading.ts";
import type { DemoTools } from "./tools/demo-tools.ts";

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

/** Demo session events: what the views listen to. */
export type DemoSessionEvents = {
  items: [items: DisplayItem[]];
  reset: [items: readonly DisplayItem[]];
  timeline: [entry: TimelineEntry | undefined];
  context: [];
  /** The size changed during a run (a turn's usage, or a compaction). */
  tokens: [reading: TokenReading];
  running: [running: boolean];
  prompt: [prompt: PendingPrompt | undefined];
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
 * The page's session: the conversation, its visible transcript, the compaction log, the
 * prompts waiting for the person, and the run in flight. Views listen to its events.
 */
export class DemoSession extends EventEmitter<DemoSessionEvents> {
  conversation: Conversation = emptyConversation();
  log: DisplayLog = createDisplayLog();
  compactions: CompactionRecord[] = [];
  /** Connected MCP servers; their tools join the agent's. */
  readonly remotes: RemoteServers = createRemoteServers(() => this.emit("tools"));
  /**
   * Writing tools the person chose to allow without being asked (the Tools tab's checkboxes).
   * Empty at first: every write asks until the visitor ticks a box.
   */
  readonly alwaysAllow = new Set<string>();
  readonly prompts: PromptQueue;
  readonly local: Toolset;
  #options: DemoSessionOptions;
  #controller: AbortController | undefined;
  #automatic = new Set<string>();
  #reading: TokenReading | undefined;
  #runs: RunKeeper;

  /**
   * Creates the session.
   *
   * @param options The store, tools, model and threshold.
   */
  constructor(options: DemoSessionOptions) {
    super();
    this.#options = options;
    this.local = Toolset.local(options.demo.tools);
    this.prompts = createPromptQueue((prompt) => this.emit("prompt", prompt));
    this.#runs = createRunKeeper(options.runs ?? memoryStore());
  }

  /** Whether a run or a compaction is in flight. */
  get running(): boolean {
    return this.#controller !== undefined;
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
    this.conversation = saved.conversation;
    this.#reading = undefined;
    this.log = createDisplayLog(saved.items);
    this.compactions = saved.compactions;
    this.emit("reset", this.log.items);
    this.emit("context");
    if (!kept) return;
    if (kept.snapshot && waitsForPerson(kept)) {
      // Not awaited: the resumed run waits for the person as a sent one does.
      void this.#resume(kept, kept.snapshot).catch((error: unknown) => {
        this.emit("items", [
          this.#notice(`The run could not resume: ${errorText(error)}`, "error"),
        ]);
      });
    } else await this.#settle(kept);
  }

  /** Clears the conversation, the todo list and the logs (notes stay: they are data). */
  async reset(): Promise<void> {
    this.stop();
    this.conversation = emptyConversation();
    this.#reading = undefined;
    this.log = createDisplayLog();
    this.compactions = [];
    await this.#options.demo.todo.clear();
    await this.#save();
    this.emit("reset", this.log.items);
    this.emit("timeline", undefined);
    this.emit("context");
  }

  /** Cancels everything in flight: the model request, running tools and open prompts. */
  stop(): void {
    this.#controller?.abort(new Error("stopped by the user"));
  }

  /**
   * Sends a message and runs the agent until it answers, stops or is stopped.
   *
   * @param text The user's message.
   */
  async send(text: string): Promise<void> {
    if (this.running || text.trim() === "") return;
    const controller = this.#begin();
    const runId = `r${Date.now().toString(36)}`;
    this.log.startRun(runId);
    this.emit("items", [this.log.add({ type: "user", id: `${runId}-u`, text })]);
    this.emit("timeline", undefined);
    // The person's message is kept before anything runs, so a reload never loses it.
    const kept = Promise.all([this.#runs.begin(text), this.#saveItems()]);
    // Awaited below, once the agent is made; a failure before that must not go unhandled.
    kept.catch(() => {});
    try {
      await this.#drive(controller, async (agent, options) => {
        await kept;
        return agent.run(text, { ...options, conversation: this.conversation });
      });
    } finally {
      this.#end(controller);
    }
  }

  // Resumes a run a reload stopped at an approval or a question: the approver and the answerer
  // ask the person again, with the very arguments the snapshot signed.
  async #resume(kept: KeptRun, snapshot: NonNullable<KeptRun["snapshot"]>): Promise<void> {
    const controller = this.#begin();
    this.log.startRun(`r${Date.now().toString(36)}`);
    this.emit("timeline", undefined);
    try {
      const refused = await this.#drive(
        controller,
        async (agent, options) => agent.resume(snapshot, options),
        true,
      );
      if (refused) await this.#settle(kept, refused);
    } finally {
      this.#end(controller);
    }
  }

  // Ends a run the page lost without running anything (kept-run.ts, settleKeptRun), and says so.
  async #settle(kept: KeptRun, refused?: string): Promise<void> {
    const settled = settleKeptRun(this.conversation, kept);
    this.conversation = settled.conversation;
    const changed: DisplayItem[] = [];
    for (const call of settled.calls) {
      const { id: callId, name: toolName } = call;
      const args = call.arguments;
      changed.push(
        ...this.log.apply({ type: "tool_call", turn: 0, callId, toolName, arguments: args }),
        ...this.log.apply({
          type: "tool_result",
          callId,
          toolName,
          outcome: call.outcome,
          isError: call.result.isError === true,
          content: call.result.content,
        }),
      );
    }
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
    changed.push(this.#notice(`${why}${calls} Send a message to go on.`, "warning"));
    this.emit("items", changed);
    await this.#save();
    await this.#runs.finish();
    this.emit("context");
  }

  // Runs one agent run (sent or resumed) to its end: its events into the transcript, its
  // snapshots into the run keeper, its result into the conversation, saved before the caller
  // says the session is idle. Returns why a resumed snapshot was refused, if it was (nothing of
  // it ran then). The kept run is forgotten only after the conversation holding it is saved:
  // a reload in between settles it from its last snapshot, which loses the final answer's
  // text from what the model reads (the transcript has it), never a call's result.
  async #drive(
    controller: AbortController,
    start: (agent: Agent, options: AgentRunOptions) => Promise<AgentRun>,
    resuming = false,
  ): Promise<string | undefined> {
    const started = performance.now();
    let refused: string | undefined;
    try {
      const agent = new Agent({
        model: await this.#options.model(),
        toolsets: this.toolsets,
        instructions: INSTRUCTIONS,
        approver: this.#approver,
        // Someone is watching, so a sending call in a turn holding private data and
        // untrusted content is put to them rather than blocked outright (the library default).
        interlock: "ask",
        onInteraction: (request, signal) => this.prompts.interact(request, signal),
        compaction: {
          thresholdTokens: this.#options.thresholdTokens(),
          keepRecent: KEEP_RECENT,
          compactTool: true,
          // The log shows each pre-rewrite transcript; the run keeps them and this session
          // empties `rewritten` after each run, so memory is bounded by one run's rewrites.
          keepRewritten: true,
          ...this.#summarizerOption(),
        },
        snapshots: { secret: await this.#runs.secret() },
      });
      const run = await start(agent, {
        signal: controller.signal,
        // A call starts only once the snapshot saying so is kept (docs/design.md A9).
        onCheckpoint: (snapshot) => this.#runs.checkpoint(snapshot),
      });
      const compacted: Extract<AgentEvent, { type: "compacted" }>[] = [];
      for await (const event of run) {
        this.emit("timeline", { ms: performance.now() - started, event });
        if (event.type === "compacted") compacted.push(event);
        // A resume is refused with `invalid_configuration` ("snapshot refused: …") before
        // anything runs; the caller settles the run and says so, not "the model failed".
        if (
          resuming &&
          event.type === "error" &&
          isToolError(event.error, "invalid_configuration")
        ) {
          refused = event.error.message.replace(/^.*?snapshot refused: /, "");
          continue;
        }
        const reading = tokenReading(event);
        if (reading) {
          this.#reading = reading;
          this.emit("tokens", reading);
        }
        const changed = this.log.apply(event, (callId) => this.#automatic.has(callId));
        if (changed.length > 0) this.emit("items", changed);
        // Where the person's place is: keep the transcript as it stands. A failed save costs
        // only how a card looks after a reload (the resumed or settled run redraws it).
        if (KEEP_ON.has(event.type)) void this.#saveItems().catch(() => {});
      }
      const result: RunResult = await run.result;
      if (refused === undefined) {
        this.conversation = { ...result.conversation, rewritten: [] };
        this.compactions.push(...compactionRecords(compacted, result));
      }
    } catch (error) {
      this.emit("items", [this.#notice(`The run could not start: ${errorText(error)}`, "error")]);
    } finally {
      await this.#save();
      if (refused === undefined) await this.#runs.finish();
    }
    return refused;
  }

  /** Compacts now, with a summary, whatever the size (between runs). */
  async compactNow(): Promise<void> {
    if (this.running) return;
    const controller = this.#begin();
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
        this.emit("items", [
          this.#notice(
            `Nothing to compact yet: a summary keeps the last ${KEEP_RECENT} messages verbatim, so the transcript needs a few more turns.`,
          ),
        ]);
        return;
      }
      const record = recordOf(
        result.event,
        "manual",
        before.messages.slice(),
        result.conversation.messages[0],
      );
      this.conversation = { ...result.conversation, rewritten: [] };
      this.#reading = undefined;
      this.compactions.push(record);
      const { before: b, after: a, summarized } = result.event;
      const id = `m${Date.now().toString(36)}`;
      this.emit("items", [
        this.log.add({
          type: "compaction",
          id,
          before: b.messages,
          after: a.messages,
          summarized,
          reason: "manual",
        }),
      ]);
    } catch (error) {
      this.emit("items", [this.#notice(`Compaction failed: ${errorText(error)}`, "error")]);
    } finally {
      this.#end(controller);
      await this.#save();
    }
  }

  readonly #approver: Approver = async (request, signal) => {
    if (this.alwaysAllow.has(request.toolName)) {
      this.#automatic.add(request.callId);
      return { type: "allow" };
    }
    return this.prompts.approve(request, signal);
  };

  #summarizerOption(): { summarizer?: Summarizer } {
    return this.#options.offline() ? { summarizer: extractiveSummarizer() } : {};
  }

  #notice(text: string, tone: "info" | "warning" | "error" = "info"): DisplayItem {
    return this.log.add({ type: "notice", id: `n-${crypto.randomUUID()}`, tone, text });
  }

  #begin(): AbortController {
    const controller = new AbortController();
    this.#controller = controller;
    this.emit("running", true);
    return controller;
  }

  #end(controller: AbortController): void {
    if (this.#controller === controller) this.#controller = undefined;
    this.emit("running", false);
    this.emit("context");
  }

  #saveItems(): Promise<void> {
    return saveItems(this.#options.store, this.log.items);
  }

  #save(): Promise<void> {
    const { conversation, compactions } = this;
    return saveSession(this.#options.store, { conversation, items: this.log.items, compactions });
  }
}

// The events after which the transcript is saved mid-run (the saves of a visible step; the
// run's own state is in its snapshot).
const KEEP_ON = new Set<AgentEvent["type"]>([
  "tool_call",
  "approval_requested",
  "interaction_requested",
  "tool_result",
]);

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
