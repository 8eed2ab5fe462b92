// The agent store as a UI drives it (docs/design.md, "The agent store"): subscribe, send,
// approve, deny, answer, cancel, and restore a paused run after a reload.

import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent, extractiveSummarizer, type RunSnapshot } from "../../src/agent/index.ts";
import { defineTool } from "../../src/index.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/scripted-model.ts";
import {
  type AgentStore,
  type AgentStoreState,
  createAgentStore,
  type ToolCard,
} from "../../src/ui/index.ts";
import { thrown } from "../support/caught.ts";

/** Resolves with the first state (now or after a change) that passes `test`, as a UI sees it. */
function when(store: AgentStore, test: (state: AgentStoreState) => boolean) {
  return new Promise<AgentStoreState>((resolve) => {
    const check = () => {
      const state = store.getSnapshot();
      if (!test(state)) return;
      stop();
      resolve(state);
    };
    const stop = store.subscribe(check);
    check();
  });
}

const cards = (state: AgentStoreState) =>
  state.messages.flatMap((m) => m.parts.filter((p): p is ToolCard => p.type === "tool"));
const card = (state: AgentStoreState, callId: string) =>
  cards(state).find((c) => c.callId === callId);

function files() {
  const written: string[] = [];
  const writeFile = defineTool({
    name: "write_file",
    description: "Writes a file",
    input: v.object({ path: v.string(), content: v.string() }),
    call: ({ path }) => {
      written.push(path);
      return `wrote ${path}`;
    },
  });
  const askCity = defineTool({
    name: "ask_city",
    description: "Asks the person for a city",
    readOnly: true,
    input: v.object({}),
    interactions: { text: true },
    call: async (_input, ctx) => `You chose ${await ctx.requestText("Which city?")}`,
  });
  return { written, tools: [writeFile, askCity] };
}

const twoWrites: ScriptedTurn = {
  streamArguments: true,
  toolCalls: [
    { id: "w1", name: "write_file", arguments: { path: "a.md", content: "# A\n\nA long body." } },
    { id: "w2", name: "write_file", arguments: { path: "b.md", content: "# B" } },
  ],
};

describe("createAgentStore", () => {
  test("a UI streams the turn, approves one call, denies another and answers a question", async () => {
    const { written, tools } = files();
    const model = scriptedModel([
      twoWrites,
      { toolCalls: [{ id: "q1", name: "ask_city", arguments: {} }] },
      { text: "Wrote a.md; you chose Oslo." },
    ]);
    const store = createAgentStore((gates) => new Agent({ model, tools, ...gates }));
    const seen: AgentStoreState[] = [];
    store.subscribe(() => seen.push(store.getSnapshot()));

    const finished = store.send("Write two files");
    expect(store.getSnapshot()).toMatchObject({ status: "running", approvals: [] });
    expect(store.getSnapshot().messages[0]).toMatchObject({
      role: "user",
      parts: [{ type: "text", text: "Write two files" }],
    });

    const asking = await when(store, (s) => s.approvals.length === 1);
    expect(asking.approvals[0]).toMatchObject({
      callId: "w1",
      toolName: "write_file",
      arguments: { path: "a.md", content: "# A\n\nA long body." },
    });
    // The arguments streamed onto the card before the call was complete.
    const partial = seen.map((s) => card(s, "w1")).find((c) => c?.status === "streaming");
    expect(partial?.argumentsText.length).toBeGreaterThan(0);
    expect(JSON.stringify(twoWrites.toolCalls?.[0]?.arguments)).toContain(
      partial?.argumentsText ?? "-",
    );
    expect(card(asking, "w1")).toMatchObject({
      status: "approval",
      argumentsText: JSON.stringify({ path: "a.md", content: "# A\n\nA long body." }),
    });
    store.approve("w1");

    const second = await when(store, (s) => s.approvals[0]?.callId === "w2");
    expect(card(second, "w1")?.status).toBe("approved");
    expect(card(second, "w2")?.status).toBe("approval");
    store.deny("w2", "not that one");

    const question = await when(store, (s) => s.questions.length === 1);
    expect(question.questions[0]).toMatchObject({
      callId: "q1",
      toolName: "ask_city",
      request: { prompt: "Which city?" },
    });
    expect(card(question, "q1")?.status).toBe("question");
    store.answer("q1", "Oslo");

    const result = await finished;
    expect(result.stop).toBe("done");
    expect(written).toEqual(["a.md"]);
    const end = store.getSnapshot();
    expect(end).toMatchObject({ status: "idle", stop: "done", approvals: [], questions: [] });
    expect(end.checkpoint).toBeUndefined();
    expect(end.conversation).toBe(result.conversation);
    expect(end.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "assistant",
      "assistant",
    ]);
    expect(cards(end).map((c) => [c.callId, c.status, c.outcome, c.isError])).toEqual([
      ["w1", "done", "executed", false],
      ["w2", "done", "refused", true],
      ["q1", "done", "executed", false],
    ]);
    expect(card(end, "q1")?.content).toEqual([{ type: "text", text: "You chose Oslo" }]);
    // Each card says who decided it and what the tool asked, for a UI to show after the fact.
    expect(card(end, "w1")?.approval).toEqual({ decision: { type: "allow" }, by: "person" });
    expect(card(end, "w2")?.approval).toEqual({
      decision: { type: "deny", reason: "not that one" },
      by: "person",
    });
    expect(card(end, "q1")?.question).toMatchObject({
      request: { prompt: "Which city?" },
      response: { type: "submit", content: "Oslo" },
    });
    expect(end.messages.at(-1)?.parts).toEqual([
      { type: "text", text: "Wrote a.md; you chose Oslo." },
    ]);
  });

  test("getSnapshot returns one object until something changes, and unchanged messages keep their identity", async () => {
    const model = scriptedModel([{ text: "one two three four five six" }, { text: "again" }]);
    const store = createAgentStore((gates) => new Agent({ model, ...gates }));
    const idle = store.getSnapshot();
    expect(store.getSnapshot()).toBe(idle);
    let changes = 0;
    const stop = store.subscribe(() => changes++);
    await store.send("hi");
    const first = store.getSnapshot();
    expect(first).not.toBe(idle);
    expect(store.getSnapshot()).toBe(first);
    expect(first.messages.map((m) => m.parts)).toEqual([
      [{ type: "text", text: "hi" }],
      [{ type: "text", text: "one two three four five six" }],
    ]);
    // Each streamed piece was a change a UI could render.
    expect(changes).toBeGreaterThan(3);
    await store.send("more");
    const second = store.getSnapshot();
    expect(second.messages[0]).toBe(first.messages[0]);
    expect(second.messages[1]).toBe(first.messages[1]);
    expect(second.messages).toHaveLength(4);
    // A listener that unsubscribed hears nothing more.
    stop();
    const before = changes;
    await store.send("last").catch(() => {});
    expect(changes).toBe(before);
  });

  test("cancel while an approval waits: the approval goes, the call ends cancelled and never runs", async () => {
    const { written, tools } = files();
    const model = scriptedModel([twoWrites]);
    const store = createAgentStore((gates) => new Agent({ model, tools, ...gates }));
    const finished = store.send("Write");
    await when(store, (s) => s.approvals.length === 1);
    store.cancel();
    const result = await finished;
    expect(result.stop).toBe("cancelled");
    expect(written).toEqual([]);
    const end = store.getSnapshot();
    expect(end).toMatchObject({ status: "idle", stop: "cancelled", approvals: [] });
    expect(card(end, "w1")).toMatchObject({ status: "done", outcome: "cancelled" });
  });

  test("a reload mid-approval: a new store restores the checkpoint, shows the call again, and it runs once", async () => {
    const { written, tools } = files();
    const snapshots = { secret: "a-secret-of-at-least-32-characters!" };
    const script = (request: { messages: readonly { role: string }[] }): ScriptedTurn =>
      request.messages.some((m) => m.role === "assistant")
        ? { text: "Saved." }
        : {
            toolCalls: [
              { id: "w1", name: "write_file", arguments: { path: "a.md", content: "A" } },
            ],
          };
    const make = () =>
      createAgentStore(
        (gates) => new Agent({ model: scriptedModel(script), tools, snapshots, ...gates }),
      );

    const before = make();
    void before.send("Save a.md");
    const waiting = await when(before, (s) => s.approvals.length === 1 && !!s.checkpoint);
    // What the page stores as the state changes; the reload loses everything else.
    const saved = JSON.stringify(waiting.checkpoint);
    before.cancel();

    const after = make();
    const resumed = after.restore({ checkpoint: JSON.parse(saved) as RunSnapshot });
    expect(after.getSnapshot().messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(card(after.getSnapshot(), "w1")).toMatchObject({ toolName: "write_file" });
    const asking = await when(after, (s) => s.approvals.length === 1);
    expect(asking.approvals[0]).toMatchObject({
      callId: "w1",
      arguments: { path: "a.md", content: "A" },
    });
    after.approve("w1");
    const result = await resumed;
    expect(result?.stop).toBe("done");
    expect(written).toEqual(["a.md"]);
    const end = after.getSnapshot();
    expect(end.messages.at(-1)?.parts).toEqual([{ type: "text", text: "Saved." }]);
    expect(card(end, "w1")).toMatchObject({ status: "done", outcome: "executed" });
    expect(end.checkpoint).toBeUndefined();

    // A conversation saved after the run restores the messages without running anything.
    const later = make();
    expect(later.restore({ conversation: end.conversation })).toBeUndefined();
    expect(later.getSnapshot().messages.map((m) => m.role)).toEqual(
      end.messages.map((m) => m.role),
    );
    expect(card(later.getSnapshot(), "w1")).toMatchObject({ status: "done", isError: false });
  });

  test("a run paused at its approval leaves its checkpoint; a store restored from it finishes the run", async () => {
    const { written, tools } = files();
    const snapshots = { secret: "a-secret-of-at-least-32-characters!" };
    const make = () =>
      createAgentStore(
        (gates) =>
          new Agent({
            model: scriptedModel((request) =>
              request.messages.some((m) => m.role === "assistant")
                ? { text: "Saved." }
                : {
                    toolCalls: [
                      { id: "w1", name: "write_file", arguments: { path: "p.md", content: "P" } },
                    ],
                  },
            ),
            tools,
            snapshots,
            ...gates,
          }),
      );
    const first = make();
    expect(thrown(() => first.pause()).type).toBe("unsupported");
    const finished = first.send("Save p.md");
    await when(first, (s) => s.approvals.length === 1);
    first.pause();
    const paused = await finished;
    expect(paused.stop).toBe("paused");
    const state = first.getSnapshot();
    expect(state).toMatchObject({ status: "idle", stop: "paused", approvals: [] });
    expect(state.checkpoint).toEqual(paused.snapshot);

    const second = make();
    const resumed = second.restore({ checkpoint: JSON.parse(JSON.stringify(state.checkpoint)) });
    await when(second, (s) => s.approvals.length === 1);
    second.approve("w1");
    expect((await resumed)?.stop).toBe("done");
    expect(written).toEqual(["p.md"]);
  });

  test("a listener that throws neither stops the other listeners nor the run", async () => {
    const model = scriptedModel([{ text: "fine" }]);
    const store = createAgentStore((gates) => new Agent({ model, ...gates }));
    const reported: unknown[] = [];
    const original = console.error;
    console.error = (error: unknown) => reported.push(error);
    try {
      store.subscribe(() => {
        throw new Error("render failed");
      });
      let heard = 0;
      store.subscribe(() => heard++);
      const result = await store.send("hi");
      expect(result.stop).toBe("done");
      expect(heard).toBeGreaterThan(0);
      expect(reported.length).toBe(heard);
      expect(store.getSnapshot().messages.at(-1)?.parts).toEqual([{ type: "text", text: "fine" }]);
    } finally {
      console.error = original;
    }
  });

  test("a failed model turn is an error in the state until the next run", async () => {
    const model = scriptedModel([
      {
        text: "Part",
        error: { type: "stream", provider: "scripted", message: "connection reset" },
      },
      { text: "ok" },
    ]);
    const store = createAgentStore((gates) => new Agent({ model, ...gates }));
    await store.send("hi");
    expect(store.getSnapshot()).toMatchObject({ stop: "error", status: "idle" });
    expect(store.getSnapshot().error?.message).toContain("connection reset");
    await store.send("again");
    expect(store.getSnapshot().error).toBeUndefined();
    expect(store.getSnapshot().stop).toBe("done");
  });

  test("compactions are recorded as the run reports them", async () => {
    const echo = defineTool({
      name: "echo",
      description: "Echoes",
      readOnly: true,
      input: v.object({ text: v.string() }),
      call: ({ text }) => text.repeat(10),
    });
    const call = (text: string): ScriptedTurn => ({
      toolCalls: [{ name: "echo", arguments: { text } }],
    });
    const model = scriptedModel([
      call("a"),
      call("b"),
      call("c"),
      { toolCalls: [{ name: "compact", arguments: { reason: "next step" } }] },
      { text: "done" },
    ]);
    const store = createAgentStore(
      (gates) =>
        new Agent({
          model,
          tools: [echo],
          compaction: { keepRecent: 2, summarizer: extractiveSummarizer(), compactTool: true },
          ...gates,
        }),
    );
    await store.send("go");
    expect(store.getSnapshot().compactions).toMatchObject([
      { type: "compacted", reason: "requested", summarized: true },
    ]);
  });

  test("a call an approver that wraps the store's allowed itself is marked decided by policy", async () => {
    const { written, tools } = files();
    const model = scriptedModel([twoWrites, { text: "Done." }]);
    const store = createAgentStore(
      (gates) =>
        new Agent({
          model,
          tools,
          // "Always allow a.md", as a UI's remembered choice would.
          approver: (request, signal) =>
            (request.arguments as { path: string }).path === "a.md"
              ? Promise.resolve({ type: "allow" })
              : gates.approver(request, signal),
          onInteraction: gates.onInteraction,
        }),
    );
    const finished = store.send("Write");
    const asking = await when(store, (s) => s.approvals.length === 1);
    expect(asking.approvals.map((a) => a.callId)).toEqual(["w2"]);
    store.approve("w2");
    await finished;
    expect(written).toEqual(["a.md", "b.md"]);
    const end = store.getSnapshot();
    expect(card(end, "w1")?.approval).toEqual({ decision: { type: "allow" }, by: "policy" });
    expect(card(end, "w2")?.approval).toEqual({ decision: { type: "allow" }, by: "person" });
  });

  test("onCheckpoint keeps each checkpoint before the call starts; a rejection keeps it from starting", async () => {
    const { written, tools } = files();
    const snapshots = { secret: "a-secret-of-at-least-32-characters!" };
    const model = () =>
      scriptedModel((request) =>
        request.messages.some((m) => m.role === "assistant")
          ? { text: "Done." }
          : {
              toolCalls: [
                { id: "w1", name: "write_file", arguments: { path: "a.md", content: "A" } },
              ],
            },
      );
    const kept: { state: string | undefined; written: number }[] = [];
    const store = createAgentStore(
      (gates) => new Agent({ model: model(), tools, snapshots, ...gates }),
      {
        onCheckpoint: async (snapshot) => {
          // The state already holds it, and nothing ran before it was kept.
          expect(store.getSnapshot().checkpoint).toBe(snapshot);
          kept.push({ state: snapshot.body.calls[0]?.state, written: written.length });
          await new Promise((resolve) => setTimeout(resolve, 1));
        },
      },
    );
    void store.send("Save a.md");
    await when(store, (s) => s.approvals.length === 1);
    store.approve("w1");
    await when(store, (s) => s.status === "idle");
    expect(written).toEqual(["a.md"]);
    // The call started only after the checkpoint saying it runs was kept.
    expect(kept).toContainEqual({ state: "running", written: 0 });

    // A checkpoint that cannot be kept (another tab took the run over, say): the call never runs.
    const refusing = createAgentStore(
      (gates) => new Agent({ model: model(), tools, snapshots, ...gates }),
      {
        onCheckpoint: (snapshot) => {
          if (snapshot.body.calls[0]?.state === "running") throw new Error("taken over");
        },
      },
    );
    void refusing.send("Save a.md");
    await when(refusing, (s) => s.approvals.length === 1);
    refusing.approve("w1");
    const end = await when(refusing, (s) => s.status === "idle");
    expect(written).toEqual(["a.md"]);
    expect(card(end, "w1")).toMatchObject({ status: "done", outcome: "cancelled" });
  });

  test("reconfigure builds the agent again for the next run and keeps the state", async () => {
    let reply = "first model";
    const heard: string[] = [];
    const store = createAgentStore(
      (gates) => new Agent({ model: scriptedModel([{ text: reply }]), ...gates }),
      {
        onEvent: (event) => {
          // The state has taken the event in by the time it is heard.
          if (event.type !== "text_delta") return;
          const shown = store.getSnapshot().messages.at(-1)?.parts.at(-1);
          heard.push(shown?.type === "text" && shown.text.endsWith(event.text) ? event.text : "");
        },
      },
    );
    const first = store.agent;
    await store.send("hi");
    reply = "second model";
    store.reconfigure();
    expect(store.agent).not.toBe(first);
    const before = store.getSnapshot();
    await store.send("again");
    const end = store.getSnapshot();
    expect(end.messages[1]).toBe(before.messages[1]);
    expect(end.messages.map((m) => m.parts[0])).toEqual([
      { type: "text", text: "hi" },
      { type: "text", text: "first model" },
      { type: "text", text: "again" },
      { type: "text", text: "second model" },
    ]);
    // The old agent's events no longer reach the store, and onEvent hears the new one's.
    const changes: number[] = [];
    store.subscribe(() => changes.push(1));
    first.emit("text_delta", { type: "text_delta", turn: 1, text: "stale" });
    expect(changes).toEqual([]);
    expect(heard.join("")).toBe("first modelsecond model");
    const running = store.send("once more");
    expect(thrown(() => store.reconfigure()).type).toBe("unsupported");
    await running;
  });

  test("restore shows the messages an app saved, and results the loop wrote keep their outcome", async () => {
    const { tools } = files();
    const store = createAgentStore(
      (gates) => new Agent({ model: scriptedModel([twoWrites, { text: "ok" }]), tools, ...gates }),
    );
    const finished = store.send("Write");
    await when(store, (s) => s.approvals.length === 1);
    store.deny("w1", "no");
    await when(store, (s) => s.approvals[0]?.callId === "w2");
    store.cancel();
    await finished;
    const { conversation, messages } = store.getSnapshot();

    // From the conversation alone: the denied and the cancelled call read as such.
    const fromConversation = createAgentStore(
      (gates) => new Agent({ model: scriptedModel([]), ...gates }),
    );
    fromConversation.restore({ conversation });
    expect(cards(fromConversation.getSnapshot()).map((c) => [c.callId, c.outcome])).toEqual([
      ["w1", "refused"],
      ["w2", "cancelled"],
    ]);
    // With the messages saved beside it, exactly those.
    const withMessages = createAgentStore(
      (gates) => new Agent({ model: scriptedModel([]), ...gates }),
    );
    withMessages.restore({ conversation, messages: JSON.parse(JSON.stringify(messages)) });
    expect(withMessages.getSnapshot().messages).toEqual(messages);
    expect(withMessages.getSnapshot().conversation).toBe(conversation);
    // Messages it opens next do not reuse a saved message's id (a UI's list keys).
    await withMessages.send("more").catch(() => {});
    const ids = withMessages.getSnapshot().messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("misuse fails with a typed error: a decision for nothing pending, a second run at once", async () => {
    const { tools } = files();
    const store = createAgentStore(
      (gates) => new Agent({ model: scriptedModel([twoWrites]), tools, ...gates }),
    );
    expect(thrown(() => store.approve("nope")).type).toBe("invalid_interaction");
    const finished = store.send("go");
    expect(thrown(() => store.send("again")).type).toBe("unsupported");
    await when(store, (s) => s.approvals.length === 1);
    expect(thrown(() => store.answer("w1", "x")).type).toBe("invalid_interaction");
    store.cancel();
    expect((await finished).stop).toBe("cancelled");
  });
});
