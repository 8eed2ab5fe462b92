import { describe, expect, it } from "vitest";
import { DemoSession } from "../../demo/demo-session.ts";
import { offlineModel } from "../../demo/model/scripted-intents.ts";
import type { PendingPrompt } from "../../demo/prompt-queue.ts";
import { memoryStore, type Store } from "../../demo/store.ts";
import { createDemoTools } from "../../demo/tools/demo-tools.ts";
import { estimateTokens } from "../../src/agent/index.ts";

/** A session whose visitor ticked "Allow without asking" for `todo` in the Tools tab. */
function session(store: Store = memoryStore(), threshold = 600) {
  const demo = createDemoTools(store, { tickMs: 20 });
  const s = new DemoSession({
    store,
    demo,
    model: () => offlineModel(),
    offline: () => true,
    thresholdTokens: () => threshold,
  });
  s.alwaysAllow.add("todo");
  return { s, demo, store };
}

/** Answers each prompt as it appears, with the given answers in order. */
function answering(s: DemoSession, answers: ((p: PendingPrompt) => void)[]) {
  s.on("prompt", (prompt) => {
    if (prompt) queueMicrotask(() => answers.shift()?.(prompt));
  });
}

const textOf = (s: DemoSession) => JSON.stringify(s.log.items);

describe("DemoSession with the offline model", () => {
  it("starts with an empty always-allow list, so a todo write asks first", async () => {
    const store = memoryStore();
    const demo = createDemoTools(store, { tickMs: 20 });
    const s = new DemoSession({
      store,
      demo,
      model: () => offlineModel(),
      offline: () => true,
      thresholdTokens: () => 600,
    });
    expect([...s.alwaysAllow]).toEqual([]);
    const asked: string[] = [];
    s.on("prompt", (prompt) => {
      if (prompt?.type !== "approval") return;
      asked.push(prompt.request.toolName);
      queueMicrotask(() => prompt.answer({ type: "allow" }));
    });
    await s.send("add todos: draft the post, review it");
    expect(asked).toEqual(["todo"]);
    expect(s.log.items.find((i) => i.type === "tool")).toMatchObject({
      toolName: "todo",
      status: "done",
      approval: { decision: "allow", automatic: false },
    });
  });

  it("runs a read-only call, an approved and a denied write, and an ask_user exchange", async () => {
    const { s } = session();
    answering(s, [
      (p) => p.type === "approval" && p.answer({ type: "allow" }),
      (p) => p.type === "approval" && p.answer({ type: "deny", reason: "not that one" }),
      (p) =>
        p.type === "interaction" && p.answer({ type: "submit", id: p.request.id, content: "teal" }),
    ]);
    await s.send("calculate 2+3*4");
    await s.send("add a note: buy oat milk");
    await s.send("add a note: sell the car");
    await s.send("ask me my favourite colour");
    const cards = s.log.items.filter((i) => i.type === "tool");
    expect(cards.map((c) => [c.toolName, c.status])).toEqual([
      ["calculator", "done"],
      ["save_note", "done"],
      ["save_note", "refused"],
      ["ask_user", "done"],
    ]);
    expect(textOf(s)).toContain("The result is **14**");
    expect(textOf(s)).toContain("you denied it (“not that one”)");
    expect(textOf(s)).toContain("You said: “teal”");
  });

  it("stops a slow task and denies a pending approval when stopped", async () => {
    const { s, store } = session();
    s.on("items", (items) => {
      for (const item of items) {
        if (item.type === "tool" && (item.progress?.progress ?? 0) >= 2) s.stop();
      }
    });
    await s.send("run the slow task");
    const card = s.log.items.find((i) => i.type === "tool");
    expect(card).toMatchObject({ toolName: "slow_task", status: "cancelled" });
    expect(s.running).toBe(false);

    s.removeAllListeners("items");
    s.on("prompt", (prompt) => {
      if (prompt) queueMicrotask(() => s.stop());
    });
    await s.send("add a note: never saved");
    expect(s.log.items.at(-2)).toMatchObject({ toolName: "save_note", status: "cancelled" });
    expect(await store.get("notes")).toBeUndefined();
  });

  it("compacts past the threshold and carries the todo list verbatim, and reloads", async () => {
    const { s, demo, store } = session();
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

    const again = session(store).s;
    await again.load();
    expect(again.log.items).toEqual(s.log.items);
    expect(again.conversation.messages).toEqual(s.conversation.messages);
    expect(again.compactions.length).toBe(s.compactions.length);
  });

  it("stays under its threshold over many todo turns, message 0 bounded by the fold", async () => {
    const threshold = 600;
    const { s } = session(memoryStore(), threshold);
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
    const { s, demo } = session(memoryStore(), 100_000);
    await s.send("add todos: one, two");
    await s.compactNow();
    expect(s.log.items.at(-1)).toMatchObject({ type: "notice" });
    for (const prompt of ["calculate 1+2", "calculate 3+4", "calculate 5+6"]) await s.send(prompt);
    await s.compactNow();
    expect(s.compactions.at(-1)).toMatchObject({ reason: "manual", summarized: true });
    expect(s.carried).toBe("## todo\n[ ] 1. one\n[ ] 2. two");
    await s.reset();
    expect(s.log.items).toEqual([]);
    expect(s.conversation.messages).toEqual([]);
    expect(demo.todo.body()).toBe("");
  });

  it("updates the token reading live from each turn's usage, and estimates between runs", async () => {
    const { s } = session(memoryStore(), 100_000);
    const empty = s.tokens;
    expect(empty.source).toBe("estimated");
    const readings: { source: string; tokens: number; running: boolean }[] = [];
    s.on("tokens", (reading) => readings.push({ ...reading, running: s.running }));
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
});
