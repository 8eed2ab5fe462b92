import { describe, expect, it } from "vitest";
import { DemoSession } from "../../demo/demo-session.ts";
import {
  createRunKeeper,
  settledMessages,
  settleKeptRun,
  waitsForPerson,
} from "../../demo/kept-run.ts";
import { offlineModel } from "../../demo/model/scripted-intents.ts";
import { type Store as DemoStore, memoryStore as demoMemoryStore } from "../../demo/store.ts";
import { createDemoTools } from "../../demo/tools/demo-tools.ts";
import type { RunSnapshot } from "../../src/agent/index.ts";
import { memoryStore, type Store } from "../../src/index.ts";
import type { Model, ModelEvent } from "../../src/models/index.ts";
import type { StoreMessage } from "../../src/ui/index.ts";
import {
  cards,
  idle,
  nextWaiting,
  onWaiting,
  statuses,
  transcriptText,
} from "../support/demo-session.ts";

// A page load of the demo over stores that outlive it (IndexedDB in the browser). `kill` makes
// the page's stores hang from then on, as a page that is gone writes nothing more.
async function page(stores: { data: DemoStore; runs: Store }) {
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
  const s = await DemoSession.open({
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

const notes = async (data: DemoStore) => (await data.get<{ text: string }[]>("notes")) ?? [];
const userTexts = (s: DemoSession) =>
  s.store
    .getSnapshot()
    .messages.filter((m) => m.role === "user")
    .map((m) => m.parts.map((p) => (p.type === "text" ? p.text : "")).join(""));

describe("a reload keeps the person's place in the demo", () => {
  it("brings back a pending approval with the person's message; approving runs the tool once", async () => {
    const stores = sharedStores();
    const first = await page(stores);
    const asked = nextWaiting(first.s);
    void first.s.send("add a note: buy oat milk");
    expect((await asked).type).toBe("approval");
    first.kill();

    // Reloaded twice while the approval waits: each load resumes the same pending call.
    const second = await page(stores);
    const askedAgain = nextWaiting(second.s);
    await second.s.load();
    expect((await askedAgain).type).toBe("approval");
    second.kill();
    const third = await page(stores);
    const waiting = nextWaiting(third.s);
    await third.s.load();
    const approval = await waiting;
    if (approval.type !== "approval") throw new Error("expected the approval back");
    expect(approval.pending).toMatchObject({
      toolName: "save_note",
      arguments: { text: "buy oat milk" },
    });
    expect(third.s.busy).toBe(true);
    expect(userTexts(third.s)).toEqual(["add a note: buy oat milk"]);
    expect(statuses(third.s)).toEqual([["save_note", "awaiting_approval"]]);

    const done = idle(third.s);
    third.s.store.approve(approval.pending.callId);
    await done;
    expect(await notes(stores.data)).toMatchObject([{ text: "buy oat milk" }]);
    expect(statuses(third.s)).toEqual([["save_note", "done"]]);
    expect(transcriptText(third.s)).toContain("Saved note #1: buy oat milk");

    // Once answered, nothing is left to resume, and the conversation holds the whole run.
    const fourth = await page(stores);
    await fourth.s.load();
    expect(fourth.s.busy).toBe(false);
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
    const first = await page(stores);
    const asked = nextWaiting(first.s);
    void first.s.send("ask me my favourite colour");
    expect((await asked).type).toBe("question");
    first.kill();

    const second = await page(stores);
    const waiting = nextWaiting(second.s);
    await second.s.load();
    const question = await waiting;
    if (question.type !== "question") throw new Error("expected the question back");
    expect(question.pending.request.prompt).toBe("What is your favourite colour?");
    const done = idle(second.s);
    second.s.store.answer(question.pending.callId, "teal");
    await done;
    expect(statuses(second.s)).toEqual([["ask_user", "done"]]);
    expect(transcriptText(second.s)).toContain("You said: “teal”");
  });

  it("settles a run that was working: the running call is reported, not run again", async () => {
    const stores = sharedStores();
    const first = await page(stores);
    const progressed = new Promise<void>((resolve) =>
      first.s.store.subscribe(() => {
        if (cards(first.s).some((c) => (c.progress?.progress ?? 0) >= 1)) resolve();
      }),
    );
    void first.s.send("run the slow task");
    await progressed;
    first.kill();

    const second = await page(stores);
    let prompted = false;
    onWaiting(second.s, () => {
      prompted = true;
    });
    await second.s.load();
    expect(second.s.busy).toBe(false);
    expect(prompted).toBe(false);
    expect(statuses(second.s)).toEqual([["slow_task", "interrupted"]]);
    expect(second.s.notes.at(-1)).toMatchObject({
      type: "notice",
      text: expect.stringContaining("slow_task was interrupted"),
    });
    // The model reads the same: the call has a result, and the conversation goes on.
    const last = second.s.conversation.messages.at(-1);
    expect(JSON.stringify(last)).toContain("Interrupted: the page was reloaded");
    await second.s.send("calculate 1+1");
    expect(transcriptText(second.s)).toContain("The result is **2**");
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
    const held = await DemoSession.open({
      store: stores.data,
      demo: createDemoTools(stores.data),
      model: () => model,
      offline: () => true,
      thresholdTokens: () => 100_000,
      runs: stores.runs,
    });
    void held.send("calculate 2+2");
    await streamed;

    const second = await page(stores);
    await second.s.load();
    expect(second.s.busy).toBe(false);
    expect(userTexts(second.s)).toEqual(["calculate 2+2"]);
    expect(second.s.conversation.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "calculate 2+2" }] },
    ]);
    expect(second.s.notes.at(-1)).toMatchObject({
      type: "notice",
      text: expect.stringContaining("Nothing was run again"),
    });
    await second.s.send("calculate 3+3");
    expect(transcriptText(second.s)).toContain("The result is **6**");
  });

  it("runs a call once when two tabs hold the same pending approval", async () => {
    const stores = sharedStores();
    const a = await page(stores);
    const askedA = nextWaiting(a.s);
    void a.s.send("add a note: once");
    const approvalA = await askedA;
    const b = await page(stores);
    const askedB = nextWaiting(b.s);
    await b.s.load();
    const approvalB = await askedB;

    const aDone = idle(a.s);
    a.s.store.approve(approvalA.pending.callId);
    await aDone;
    // Tab B took the run over when it resumed it, so tab A's call does not start.
    expect(statuses(a.s).map(([, status]) => status)).toEqual(["cancelled"]);
    const bDone = idle(b.s);
    b.s.store.approve(approvalB.pending.callId);
    await bDone;
    expect(statuses(b.s).map(([, status]) => status)).toEqual(["done"]);
    expect(await notes(stores.data)).toMatchObject([{ text: "once" }]);
  });

  it("refuses a kept snapshot that was edited, and runs nothing of it", async () => {
    const stores = sharedStores();
    const first = await page(stores);
    const asked = nextWaiting(first.s);
    void first.s.send("add a note: as approved");
    await asked;
    first.kill();
    const kept = JSON.parse((await stores.runs.get("run")) as string) as {
      snapshot: RunSnapshot;
    };
    const call = kept.snapshot.body.calls[0] as { arguments: unknown };
    call.arguments = { text: "something else" };
    await stores.runs.put("run", JSON.stringify(kept));

    const second = await page(stores);
    let prompted = false;
    onWaiting(second.s, () => {
      prompted = true;
    });
    const done = idle(second.s);
    await second.s.load();
    await done;
    expect(prompted).toBe(false);
    expect(second.s.notes.at(-1)).toMatchObject({
      type: "notice",
      text: expect.stringContaining(
        "could not be picked up again (the snapshot's signature does not match",
      ),
    });
    expect(statuses(second.s).map(([, status]) => status)).toEqual(["cancelled"]);
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

  it("ends each settled call's card as the call was settled, adding one the page had not saved", () => {
    const run = kept([
      { ...call("a"), state: "running" },
      { ...call("b"), state: "approved" },
    ]);
    const settled = settleKeptRun(
      { messages: [], taint: run.snapshot.body.conversation.taint, rewritten: [] },
      run,
    );
    const saved: StoreMessage[] = [
      { id: "a1", role: "user", parts: [{ type: "text", text: "do it" }] },
      {
        id: "a2",
        role: "assistant",
        parts: [
          {
            type: "tool",
            callId: "a",
            toolName: "save_note",
            status: "running",
            argumentsText: '{"text":"a"}',
            arguments: { text: "a" },
            progress: { progress: 1, total: 3 },
          },
        ],
      },
    ];
    const messages = settledMessages(saved, run, settled.calls);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const shown = messages[1]?.parts ?? [];
    expect(shown).toMatchObject([
      { callId: "a", status: "done", outcome: "interrupted", isError: true },
      { callId: "b", status: "done", outcome: "cancelled", arguments: { text: "b" } },
    ]);
    expect(shown[0]).not.toHaveProperty("progress");
    // The person's message is added when the page went before saving it (no snapshot yet).
    const lost = settledMessages([], { input: "hello" }, []);
    expect(lost).toMatchObject([{ role: "user", parts: [{ type: "text", text: "hello" }] }]);
    expect(settledMessages(lost, { input: "hello" }, [])).toHaveLength(1);
  });
});
