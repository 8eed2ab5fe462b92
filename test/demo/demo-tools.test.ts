import { describe, expect, it } from "vitest";
import { memoryStore } from "../../demo/store.ts";
import { createDemoTools } from "../../demo/tools/demo-tools.ts";
import { InteractionResponse, isToolError, Toolset } from "../../src/index.ts";

function setup() {
  const store = memoryStore();
  const demo = createDemoTools(store, { tickMs: 5 });
  return { store, demo, toolset: Toolset.local(demo.tools) };
}

describe("demo tools", () => {
  it("declares which tools write, so only those need approval", async () => {
    const { toolset } = setup();
    const tools = await toolset.listTools();
    const readOnly = Object.fromEntries(tools.map((t) => [t.name, t.annotations.readOnlyHint]));
    expect(readOnly).toEqual({
      ask_user: true,
      calculator: true,
      clock: true,
      list_notes: true,
      save_note: false,
      slow_task: true,
      todo: false,
    });
    const listNotes = tools.find((t) => t.name === "list_notes");
    expect(listNotes?.capabilities.privateData).toBe(true);
    expect(tools.find((t) => t.name === "ask_user")?.interactions.text).toBe(true);
  });

  it("calculates, and reports a bad expression as a result the model can read", async () => {
    const { toolset } = setup();
    const ok = await toolset.call("calculator", { expression: "2+3*4" });
    expect(ok).toMatchObject({ isError: false, content: [{ type: "text", text: "2+3*4 = 14" }] });
    const bad = await toolset.call("calculator", { expression: "1/0" });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("division by zero");
  });

  it("saves notes in the store and lists them", async () => {
    const { toolset, store } = setup();
    expect((await toolset.call("list_notes", {})).content).toEqual([
      { type: "text", text: "There are no notes yet." },
    ]);
    await toolset.call("save_note", { text: "buy oat milk" });
    await toolset.call("save_note", { text: "call Ada" });
    expect((await toolset.call("list_notes", {})).content).toEqual([
      { type: "text", text: "#1: buy oat milk\n#2: call Ada" },
    ]);
    // A second page load sees the same notes.
    const again = Toolset.local(createDemoTools(store).tools);
    expect(JSON.stringify((await again.call("list_notes", {})).content)).toContain("call Ada");
  });

  it("keeps the todo list as carried state with [ ] [~] [x] markers, across a reload", async () => {
    const { toolset, demo, store } = setup();
    expect(await toolset.carriedState()).toEqual([]);
    await toolset.call("todo", { action: "add", items: ["draft", "review", "ship"] });
    await toolset.call("todo", { action: "start", id: 2 });
    const done = await toolset.call("todo", { action: "complete", id: 1 });
    const body = "[x] 1. draft\n[~] 2. review\n[ ] 3. ship";
    expect(done.content).toEqual([{ type: "text", text: body }]);
    expect(await toolset.carriedState()).toEqual([{ label: "todo", body }]);
    expect(demo.todo.body()).toBe(body);

    const reloaded = createDemoTools(store);
    await reloaded.todo.load();
    expect(reloaded.todo.body()).toBe(body);
    const missing = await Toolset.local(reloaded.tools).call("todo", { action: "start", id: 9 });
    expect(missing.isError).toBe(true);
    await reloaded.todo.clear();
    expect(await Toolset.local(reloaded.tools).carriedState()).toEqual([]);
  });

  it("asks the user through a text interaction", async () => {
    const { toolset } = setup();
    const prompts: string[] = [];
    const result = await toolset.call(
      "ask_user",
      { question: "Favourite colour?" },
      {
        onInteraction: async (request) => {
          prompts.push(request.prompt);
          return InteractionResponse.submit(request.id, "teal");
        },
      },
    );
    expect(prompts).toEqual(["Favourite colour?"]);
    expect(result.content).toEqual([{ type: "text", text: "The user answered: teal" }]);
  });

  it("reports progress from the slow task and stops when cancelled", async () => {
    const { toolset } = setup();
    const seen: number[] = [];
    const finished = await toolset.call(
      "slow_task",
      {},
      { onProgress: (p) => seen.push(p.progress) },
    );
    expect(finished.isError).toBe(false);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

    const controller = new AbortController();
    const progress: number[] = [];
    const call = toolset.call(
      "slow_task",
      {},
      {
        signal: controller.signal,
        onProgress: (p) => {
          progress.push(p.progress);
          if (p.progress === 2) controller.abort();
        },
      },
    );
    await expect(call).rejects.toSatisfy((error) => isToolError(error, "cancelled"));
    expect(progress.at(-1)).toBe(2);
  });

  it("reads the clock in a named time zone", async () => {
    const { toolset } = setup();
    const result = await toolset.call("clock", { timeZone: "UTC" });
    expect(result.isError).toBe(false);
    expect(JSON.stringify(result.content)).toMatch(/UTC/);
    const bad = await toolset.call("clock", { timeZone: "Mars/Olympus" });
    expect(bad.isError).toBe(true);
  });
});
