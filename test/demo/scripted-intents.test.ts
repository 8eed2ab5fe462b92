import { describe, expect, it } from "vitest";
import { HELP_TEXT, offlineModel, scriptedIntents } from "../../demo/model/scripted-intents.ts";
import type { Message, ModelEvent, ModelRequest } from "../../src/models/index.ts";

const tools = ["calculator", "save_note", "todo", "clock", "ask_user", "slow_task"].map((name) => ({
  name,
  inputSchema: { type: "object" },
}));
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const request = (messages: Message[], withTools = tools): ModelRequest => ({
  messages,
  tools: withTools,
});
const newId = () => "call_x";

describe("scriptedIntents", () => {
  it("calls the tool the last user message asks for, and estimates usage", () => {
    const turn = scriptedIntents(request([user("calculate 2+3*4")]), { newId });
    expect(turn.toolCalls).toEqual([
      { id: "call_x", name: "calculator", arguments: { expression: "2+3*4" } },
    ]);
    expect(turn.text).toBeUndefined();
    expect(turn.usage?.inputTokens).toBeGreaterThan(0);
  });

  it("answers from the tool results, in call order, naming refusals and cancellations", () => {
    const messages: Message[] = [
      user("do things"),
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "a", name: "calculator", input: { expression: "2+3*4" } },
          { type: "tool_use", id: "b", name: "save_note", input: { text: "x" } },
          { type: "tool_use", id: "c", name: "slow_task", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "a",
            isError: false,
            content: [{ type: "text", text: "2+3*4 = 14" }],
          },
          {
            type: "tool_result",
            toolUseId: "b",
            isError: true,
            mark: "denied",
            content: [{ type: "text", text: "Denied by the user: not now" }],
          },
          {
            type: "tool_result",
            toolUseId: "c",
            isError: true,
            mark: "cancelled",
            content: [
              { type: "text", text: "Cancelled: the run was cancelled while this call ran." },
            ],
          },
        ],
      },
    ];
    const turn = scriptedIntents(request(messages), { newId });
    expect(turn.toolCalls).toBeUndefined();
    expect(turn.text).toBe(
      [
        "The result is **14** (2+3*4 = 14).",
        "OK, I did not run `save_note`: you denied it (“not now”).",
        "`slow_task` was cancelled before it finished.",
      ].join("\n\n"),
    );
  });

  it("explains itself when it does not understand or the tool is missing", () => {
    expect(scriptedIntents(request([user("write a sonnet")])).text).toBe(HELP_TEXT);
    expect(scriptedIntents(request([user("compact now")])).text).toMatch(/no tool of that name/);
    expect(scriptedIntents(request([user("what time is it")], [])).text).toMatch(
      /cannot call tools/,
    );
  });

  it("streams through scriptedModel as tool calls, usage and finish", async () => {
    const model = offlineModel();
    const events: ModelEvent[] = [];
    const reader = model.stream(request([user("add todos: a, b")])).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(r.value);
    expect(events.map((e) => e.type)).toEqual(["tool_call", "usage", "finish"]);
    expect(events[0]).toMatchObject({
      name: "todo",
      arguments: { action: "add", items: ["a", "b"] },
    });
    expect(events[2]).toEqual({ type: "finish", reason: "tool_calls" });
  });
});
