import { describe, expect, it } from "vitest";
import { DemoSession } from "../../demo/demo-session.ts";
import { offlineModel } from "../../demo/model/scripted-intents.ts";
import { memoryStore, type Store } from "../../demo/store.ts";
import { createDemoTools } from "../../demo/tools/demo-tools.ts";
import { estimateTokens } from "../../src/agent/index.ts";
import { type Model, scriptedModel } from "../../src/models/index.ts";
import {
  cards,
  onWaiting,
  statuses,
  transcriptText,
  type Waiting,
} from "../support/demo-session.ts";

function open(store: Store, threshold: number) {
  const demo = createDemoTools(store, { tickMs: 20 });
  return DemoSession.open({
    store,
    demo,
    model: () => offlineModel(),
    offline: () => true,
    thresholdTokens: () => threshold,
  }).then((s) => ({ s, demo, store }));
}

/** A session whose visitor ticked "Allow without asking" for `todo` in the Tools tab. */
async function session(store: Store = memoryStore(), threshold = 600) {
  const opened = await open(store, threshold);
  opened.s.alwaysAllow.add("todo");
  return opened;
}

/** Answers each thing that waits for the person as it appears, with the answers in order. */
function answering(s: DemoSession, answers: ((item: Waiting) => void)[]) {
  onWaiting(s, (item) => queueMicrotask(() => answers.shift()?.(item)));
}

describe("DemoSession with the offline model", () => {
  it("starts with an empty always-allow list, so a todo write asks first", async () => {
    const { s } = await open(memoryStore(), 600);
    expect([...s.alwaysAllow]).toEqual([]);
    const asked: string[] = [];
    onWaiting(s, (item) => {
      if (item.type !== "approval") return;
      asked.push(item.pending.toolName);
      queueMicrotask(() => s.store.approve(item.pending.callId));
    });
    await s.send("add todos: draft the post, review it");
    expect(asked).toEqual(["todo"]);
    expect(cards(s)[0]).toMatchObject({
      toolName: "todo",
      status: "done",
      approval: { decision: { type: "allow" }, by: "person" },
    });
  });

  it("marks a call the always-allow list let through as allowed by policy", async () => {
    const { s } = await session();
    await s.send("add todos: draft the post, review it");
    expect(cards(s)[0]?.approval).toEqual({ decision: { type: "allow" }, by: "policy" });
  });

  it("runs a read-only call, an approved and a denied write, and an ask_user exchange", async () => {
    const { s } = await session();
    answering(s, [
      (w) => w.type === "approval" && s.store.approve(w.pending.callId),
      (w) => w.type === "approval" && s.store.deny(w.pending.callId, "not that one"),
      (w) => w.type === "question" && s.store.answer(w.pending.callId, "teal"),
    ]);
    await s.send("calculate 2+3*4");
    await s.send("add a note: buy oat milk");
    await s.send("add a note: sell the car");
    await s.send("ask me my favourite colour");
    expect(statuses(s)).toEqual([
      ["calculator", "done"],
      ["save_note", "done"],
      ["save_note", "refused"],
      ["ask_user", "done"],
    ]);
    expect(transcriptText(s)).toContain("The result is **14**");
    expect(transcriptText(s)).toContain("you denied it (“not that one”)");
    expect(transcriptText(s)).toContain("You said: “teal”");
    expect(cards(s)[3]?.question).toMatchObject({
      request: { prompt: "What is your favourite colour?" },
      response: { type: "submit", content: "teal" },
    });
  });

  it("stops a slow task and cancels a pending approval when stopped", async () => {
    const { s, store } = await session();
    const stopAtTwo = s.store.subscribe(() => {
      if (cards(s).some((c) => (c.progress?.progress ?? 0) >= 2)) s.stop();
    });
    await s.send("run the slow task");
    stopAtTwo();
    expect(statuses(s)).toEqual([["slow_task", "cancelled"]]);
    expect(s.busy).toBe(false);
    expect(s.notes.at(-1)).toMatchObject({ text: "Stopped. Everything in flight was cancelled." });

    onWaiting(s, () => queueMicrotask(() => s.stop()));
    await s.send("add a note: never saved");
    expect(statuses(s).at(-1)).toEqual(["save_note", "cancelled"]);
    expect(await store.get("notes")).toBeUndefined();
  });

  it("compacts past the threshold and carries the todo list verbatim, and reloads", async () => {
    const { s, demo, store } = await session();
    await s.send("add todos: draft the post, review it, publish");
    await s.send("start todo 1");
    for (const prompt of ["calculate 1+1", "what time is it", "calculate 2*21", "list my notes"]) {
      await s.send(prompt);
    }
    for (let i = 0; i < 8 && s.compactions.filter((c) => c.summarized).length < 2; i += 1) {
      await s.send(`calculate ${i} + ${i}`);
    }
    const summarized = s.compactions.filter((c) => c.summarized);
    expect(summarized.length).toBeGreaterThanOrEqual(2);
    const body = "[~] 1. draft the post\n[ ] 2. review it\n[ ] 3. publish";
    expect(demo.todo.body()).toBe(body);
    expect(s.carried).toBe(`## todo\n${body}`);
    for (const record of summarized) {
      expect(record.carried).toBe(`## todo\n${body}`);
      expect(record.summary).toMatch(/Task: add todos/);
      expect(record.transcript.length).toBe(record.before.messages);
    }
    // Each compaction has its divider in the transcript, which still shows every message.
    expect(s.notes.filter((n) => n.type === "compaction")).toHaveLength(s.compactions.length);
    expect(s.store.getSnapshot().messages.filter((m) => m.role === "user").length).toBeGreaterThan(
      s.conversation.messages.filter((m) => m.role === "user").length,
    );

    const again = (await session(store)).s;
    await again.load();
    expect(again.store.getSnapshot().messages).toEqual(s.store.getSnapshot().messages);
    expect(again.notes).toEqual(s.notes);
    expect(again.conversation.messages).toEqual(s.conversation.messages);
    expect(again.compactions.length).toBe(s.compactions.length);
  });

  it("stays under its threshold over many todo turns, message 0 bounded by the fold", async () => {
    const threshold = 600;
    const { s } = await session(memoryStore(), threshold);
    await s.send(`add todos: ${Array.from({ length: 8 }, (_, i) => `step ${i + 1}`).join(", ")}`);
    const heads: number[] = [];
    for (let turn = 0; turn < 120; turn++) {
      const id = (turn % 8) + 1;
      const kind = turn % 3;
      await s.send(
        kind === 0
          ? `start todo ${id}`
          : kind === 1
            ? `complete todo ${id}`
            : `calculate ${turn}+1`,
      );
      heads.push(estimateTokens(s.conversation.messages.slice(0, 1)));
    }
    expect(s.compactions.filter((c) => c.summarized).length).toBeGreaterThan(50);
    expect(s.compactions.some((c) => c.folded)).toBe(true);
    for (const record of s.compactions) expect(record.after.tokens).toBeLessThan(threshold);
    // Message 0 (task, one folded summary, the todo list) stops growing early on.
    const early = Math.max(...heads.slice(0, 60));
    const late = Math.max(...heads.slice(60));
    expect(late).toBeLessThanOrEqual(early * 1.05);
    expect(late).toBeLessThan(threshold * 0.7);
  });

  it("compacts on request and clears everything on reset", async () => {
    const { s, demo } = await session(memoryStore(), 100_000);
    await s.send("add todos: one, two");
    await s.compactNow();
    expect(s.notes.at(-1)).toMatchObject({ type: "notice" });
    for (const prompt of ["calculate 1+2", "calculate 3+4", "calculate 5+6"]) await s.send(prompt);
    await s.compactNow();
    expect(s.compactions.at(-1)).toMatchObject({ reason: "manual", summarized: true });
    expect(s.notes.at(-1)).toMatchObject({ type: "compaction", reason: "manual" });
    expect(s.carried).toBe("## todo\n[ ] 1. one\n[ ] 2. two");
    await s.reset();
    expect(s.store.getSnapshot().messages).toEqual([]);
    expect(s.notes).toEqual([]);
    expect(s.conversation.messages).toEqual([]);
    expect(demo.todo.body()).toBe("");
  });

  it("updates the token reading live from each turn's usage, and estimates between runs", async () => {
    const { s } = await session(memoryStore(), 100_000);
    const empty = s.tokens;
    expect(empty.source).toBe("estimated");
    const readings: { source: string; tokens: number; running: boolean }[] = [];
    s.on("tokens", (reading) => readings.push({ ...reading, running: s.busy }));
    await s.send("calculate 2+3*4");
    // One reading per model turn (the calculator call, then the answer), each while running.
    expect(readings.map((r) => [r.source, r.running])).toEqual([
      ["model's count, turn 1", true],
      ["model's count, turn 2", true],
    ]);
    const [first, second] = readings.map((r) => r.tokens);
    expect(first).toBeGreaterThan(empty.tokens);
    expect(second).toBeGreaterThan(first ?? Number.POSITIVE_INFINITY);
    expect(s.tokens).toEqual({ tokens: second, source: "model's count, turn 2" });
    await s.reset();
    expect(s.tokens).toEqual(empty);
  });

  it("builds its agent again for each run, so a model picked in Settings answers the next", async () => {
    const store = memoryStore();
    let picked: Model = offlineModel();
    const s = await DemoSession.open({
      store,
      demo: createDemoTools(store),
      model: () => picked,
      offline: () => true,
      thresholdTokens: () => 100_000,
    });
    await s.send("calculate 1+1");
    const first = s.store.agent;
    picked = scriptedModel([{ text: "The other model here." }]);
    await s.send("hello");
    expect(s.store.agent).not.toBe(first);
    expect(s.store.getSnapshot().messages.at(-1)?.parts).toEqual([
      { type: "text", text: "The other model here." },
    ]);
  });
});
