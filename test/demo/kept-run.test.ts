import { describe, expect, it } from "vitest";
import { DemoSession } from "../../demo/demo-session.ts";
import type { ToolCard } from "../../demo/display-log.ts";
import { createRunKeeper, settleKeptRun, waitsForPerson } from "../../demo/kept-run.ts";
import { offlineModel } from "../../demo/model/scripted-intents.ts";
import type { PendingPrompt } from "../../demo/prompt-queue.ts";
import { type Store as DemoStore, memoryStore as demoMemoryStore } from "../../demo/store.ts";
import { createDemoTools } from "../../demo/tools/demo-tools.ts";
import type { RunSnapshot } from "../../src/agent/index.ts";
import { memoryStore, type Store } from "../../src/index.ts";
import type { Model, ModelEvent } from "../../src/models/index.ts";

// A page load of the demo over stores that outlive it (IndexedDB in the browser). `kill` makes
// the page's stores hang from then on, as a page that is gone writes nothing more.
function page(stores: { data: DemoStore; runs: Store }) {
  let dead = false;
  const hang = new Promise<never>(() => {});
  const alive = <T extends object>(store: T): T =>
    new Proxy(store, {
      get: (target, key) => {
        const value = Reflect.get(target, key);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => (dead ? hang : value.apply(target, args));
      },
    });
  const data = alive(stores.data);
  const s = new DemoSession({
    store: data,
    demo: createDemoTools(data, { tickMs: 20 }),
    model: () => offlineModel(),
    offline: () => true,
    thresholdTokens: () => 100_000,
    runs: alive(stores.runs),
  });
  return {
    s,
    kill: () => {
      dead = true;
    },
  };
}

function sharedStores() {
  return { data: demoMemoryStore(), runs: memoryStore() };
}

function nextPrompt(s: DemoSession): Promise<PendingPrompt> {
  return new Promise((resolve) => {
    const on = (prompt: PendingPrompt | undefined) => {
      if (!prompt) return;
      s.off("prompt", on);
      resolve(prompt);
    };
    s.on("prompt", on);
  });
}

function idle(s: DemoSession): Promise<void> {
  return new Promise((resolve) => {
    const on = (running: boolean) => {
      if (running) return;
      s.off("running", on);
      resolve();
    };
    s.on("running", on);
  });
}

// The page draws what the run reported: its events reach the transcript a moment after the
// approver or answerer is called.
const turnOver = () => new Promise((resolve) => setTimeout(resolve, 0));

const cards = (s: DemoSession) => s.log.items.filter((i): i is ToolCard => i.type === "tool");
const notes = async (data: DemoStore) => (await data.get<{ text: string }[]>("notes")) ?? [];

describe("a reload keeps the person's place in the demo", () => {
  it("brings back a pending approval with the person's message; approving runs the tool once", async () => {
    const stores = sharedStores();
    const first = page(stores);
    const asked = nextPrompt(first.s);
    void first.s.send("add a note: buy oat milk");
    expect((await asked).type).toBe("approval");
    first.kill();

    // Reloaded twice while the approval waits: each load resumes the same pending call.
    const second = page(stores);
    const askedAgain = nextPrompt(second.s);
    await second.s.load();
    expect((await askedAgain).type).toBe("approval");
    second.kill();
    const third = page(stores);
    const prompt = nextPrompt(third.s);
    await third.s.load();
    const approval = await prompt;
    if (approval.type !== "approval") throw new Error("expected the approval back");
    expect(approval.request).toMatchObject({
      toolName: "save_note",
      arguments: { text: "buy oat milk" },
    });
    await turnOver();
    expect(third.s.running).toBe(true);
    expect(third.s.log.items[0]).toMatchObject({ type: "user", text: "add a note: buy oat milk" });
    expect(cards(third.s).map((c) => [c.toolName, c.status])).toEqual([
      ["save_note", "awaiting_approval"],
    ]);

    const done = idle(third.s);
    approval.answer({ type: "allow" });
    await done;
    expect(await notes(stores.data)).toMatchObject([{ text: "buy oat milk" }]);
    expect(cards(third.s).map((c) => c.status)).toEqual(["done"]);
    expect(JSON.stringify(third.s.log.items)).toContain("Saved note #1: buy oat milk");

    // Once answered, nothing is left to resume, and the conversation holds the whole run.
    const fourth = page(stores);
    await fourth.s.load();
    expect(fourth.s.running).toBe(false);
    expect(fourth.s.conversation.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(await notes(stores.data)).toHaveLength(1);
  });

  it("asks a tool's question again after a reload, and the answer reaches the model", async () => {
    const stores = sharedStores();
    const first = page(stores);
    const asked = nextPrompt(first.s);
    void first.s.send("ask me my favourite colour");
    expect((await asked).type).toBe("interaction");
    first.kill();

    const second = page(stores);
    const prompt = nextPrompt(second.s);
    await second.s.load();
    const question = await prompt;
    if (question.type !== "interaction") throw new Error("expected the question back");
    expect(question.request.prompt).toBe("What is your favourite colour?");
    const done = idle(second.s);
    question.answer({ type: "submit", id: question.request.id, content: "teal" });
    await done;
    expect(cards(second.s).map((c) => [c.toolName, c.status])).toEqual([["ask_user", "done"]]);
    expect(JSON.stringify(second.s.log.items)).toContain("You said: “teal”");
  });

  it("settles a run that was working: the running call is reported, not run again", async () => {
    const stores = sharedStores();
    const first = page(stores);
    const progressed = new Promise<void>((resolve) =>
      first.s.on("items", (items) => {
        if (items.some((i) => i.type === "tool" && (i.progress?.progress ?? 0) >= 1)) resolve();
      }),
    );
    void first.s.send("run the slow task");
    await progressed;
    first.kill();

    const second = page(stores);
    let prompted = false;
    second.s.on("prompt", () => {
      prompted = true;
    });
    await second.s.load();
    expect(second.s.running).toBe(false);
    expect(prompted).toBe(false);
    expect(cards(second.s).map((c) => [c.toolName, c.status])).toEqual([
      ["slow_task", "interrupted"],
    ]);
    expect(second.s.log.items.at(-1)).toMatchObject({
      type: "notice",
      text: expect.stringContaining("slow_task was interrupted"),
    });
    // The model reads the same: the call has a result, and the conversation goes on.
    const last = second.s.conversation.messages.at(-1);
    expect(JSON.stringify(last)).toContain("Interrupted: the page was reloaded");
    await second.s.send("calculate 1+1");
    expect(JSON.stringify(second.s.log.items)).toContain("The result is **2**");
  });

  it("keeps the person's message when the page went away while the model streamed", async () => {
    const stores = sharedStores();
    // A model that starts its answer and never finishes it: the page goes away mid-stream.
    let streaming: () => void = () => {};
    const streamed = new Promise<void>((resolve) => {
      streaming = resolve;
    });
    const model: Model = {
      id: "never-finishes",
      stream: () =>
        new ReadableStream<ModelEvent>({
          start: (controller) => {
            controller.enqueue({ type: "text_delta", text: "Let me" });
            streaming();
          },
        }),
    };
    const held = new DemoSession({
      store: stores.data,
      demo: createDemoTools(stores.data),
      model: () => model,
      offline: () => true,
      thresholdTokens: () => 100_000,
      runs: stores.runs,
    });
    void held.send("calculate 2+2");
    await streamed;

    const second = page(stores);
    await second.s.load();
    expect(second.s.running).toBe(false);
    expect(second.s.log.items[0]).toMatchObject({ type: "user", text: "calculate 2+2" });
    expect(second.s.conversation.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "calculate 2+2" }] },
    ]);
    expect(second.s.log.items.at(-1)).toMatchObject({
      type: "notice",
      text: expect.stringContaining("Nothing was run again"),
    });
    await second.s.send("calculate 3+3");
    expect(JSON.stringify(second.s.log.items)).toContain("The result is **6**");
  });

  it("runs a call once when two tabs hold the same pending approval", async () => {
    const stores = sharedStores();
    const a = page(stores);
    const askedA = nextPrompt(a.s);
    void a.s.send("add a note: once");
    const approvalA = await askedA;
    const b = page(stores);
    const askedB = nextPrompt(b.s);
    await b.s.load();
    const approvalB = await askedB;
    if (approvalA.type !== "approval" || approvalB.type !== "approval")
      throw new Error("approvals");

    const aDone = idle(a.s);
    approvalA.answer({ type: "allow" });
    await aDone;
    // Tab B took the run over when it resumed it, so tab A's call does not start.
    expect(cards(a.s).map((c) => c.status)).toEqual(["cancelled"]);
    const bDone = idle(b.s);
    approvalB.answer({ type: "allow" });
    await bDone;
    expect(cards(b.s).map((c) => c.status)).toEqual(["done"]);
    expect(await notes(stores.data)).toMatchObject([{ text: "once" }]);
  });

  it("refuses a kept snapshot that was edited, and runs nothing of it", async () => {
    const stores = sharedStores();
    const first = page(stores);
    const asked = nextPrompt(first.s);
    void first.s.send("add a note: as approved");
    await asked;
    first.kill();
    const kept = JSON.parse((await stores.runs.get("run")) as string) as {
      snapshot: RunSnapshot;
    };
    const call = kept.snapshot.body.calls[0] as { arguments: unknown };
    call.arguments = { text: "something else" };
    await stores.runs.put("run", JSON.stringify(kept));

    const second = page(stores);
    let prompted = false;
    second.s.on("prompt", () => {
      prompted = true;
    });
    const done = idle(second.s);
    await second.s.load();
    await done;
    expect(prompted).toBe(false);
    expect(second.s.log.items.at(-1)).toMatchObject({
      type: "notice",
      text: expect.stringContaining(
        "could not be picked up again (the snapshot's signature does not match",
      ),
    });
    expect(cards(second.s).map((c) => c.status)).toEqual(["cancelled"]);
    expect(await notes(stores.data)).toEqual([]);
  });
});

describe("createRunKeeper", () => {
  it("makes one signing key per store, whichever page asks first", async () => {
    const store = memoryStore();
    const [one, two] = await Promise.all([
      createRunKeeper(store).secret(),
      createRunKeeper(store).secret(),
    ]);
    expect(one).toBe(two);
    expect(one.length).toBeGreaterThanOrEqual(32);
    expect(await createRunKeeper(memoryStore()).secret()).not.toBe(one);
  });

  it("lets only the page that last wrote or read the run write it next", async () => {
    const store = memoryStore();
    const a = createRunKeeper(store);
    await a.begin("hello");
    const snapshot = { body: {}, mac: "x" } as unknown as RunSnapshot;
    await a.checkpoint(snapshot);
    const b = createRunKeeper(store);
    expect(await b.load()).toEqual({ input: "hello", snapshot });
    await b.checkpoint(snapshot);
    await expect(a.checkpoint(snapshot)).rejects.toThrow("another tab");
    // A's finish leaves B's run alone; B's own finish clears it.
    await a.finish();
    expect(await createRunKeeper(store).load()).toEqual({ input: "hello", snapshot });
    await b.finish();
    expect(await createRunKeeper(store).load()).toBeUndefined();
  });
});

describe("settleKeptRun and waitsForPerson", () => {
  const call = (id: string) => ({ id, name: "save_note", arguments: { text: id } });
  const kept = (calls: unknown[]) => ({
    input: "do it",
    snapshot: {
      mac: "",
      body: {
        conversation: {
          messages: [
            { role: "user", content: [{ type: "text", text: "do it" }] },
            {
              role: "assistant",
              content: calls.map((c) => ({ type: "tool_use", ...(c as object) })),
            },
          ],
          taint: { private: true, untrusted: false },
          rewritten: [],
        },
        calls,
      },
    } as unknown as RunSnapshot,
  });

  it("keeps recorded results, reports a running call as interrupted and an unstarted one as not run", () => {
    const result = {
      type: "tool_result",
      toolUseId: "a",
      content: [{ type: "text", text: "Saved note #1: a" }],
      isError: false,
    };
    const run = kept([
      { ...call("a"), state: "done", result, outcome: "executed", started: true },
      { ...call("b"), state: "running" },
      { ...call("c"), state: "approved" },
    ]);
    expect(waitsForPerson(run)).toBe(false);
    const settled = settleKeptRun(
      { messages: [], taint: run.snapshot.body.conversation.taint, rewritten: [] },
      run,
    );
    expect(settled.calls.map((c) => c.outcome)).toEqual(["executed", "interrupted", "cancelled"]);
    const last = settled.conversation.messages.at(-1);
    expect(last?.role).toBe("user");
    expect(last?.content.map((b) => (b.type === "tool_result" ? b.toolUseId : b.type))).toEqual([
      "a",
      "b",
      "c",
    ]);
    expect(settled.calls[0]?.result).toEqual(result);
    expect(settled.conversation.taint).toEqual({ private: true, untrusted: false });
  });

  it("says a run waits for the person at an approval or a question, not while it works", () => {
    expect(waitsForPerson(kept([{ ...call("a"), state: "waiting", approval: true }]))).toBe(true);
    expect(waitsForPerson(kept([{ ...call("a"), state: "waiting" }]))).toBe(false);
    const question = { id: "q", kind: { type: "text" }, prompt: "Colour?" };
    expect(waitsForPerson(kept([{ ...call("a"), state: "running", question }]))).toBe(true);
    expect(waitsForPerson({ input: "hi" })).toBe(false);
  });
});
