import { describe, expect, it } from "vitest";
import { parseIntent } from "../../demo/model/intent.ts";

describe("parseIntent", () => {
  it("recognises every suggested prompt", () => {
    expect(parseIntent("Calculate 2+3*4")).toEqual({ type: "calculate", expression: "2+3*4" });
    expect(parseIntent("what is (1 + 2) * 3?")).toEqual({
      type: "calculate",
      expression: "(1 + 2) * 3",
    });
    expect(parseIntent("Add a note: buy oat milk")).toEqual({
      type: "save_note",
      text: "buy oat milk",
    });
    expect(parseIntent("add todos: draft, review and ship")).toEqual({
      type: "add_todos",
      items: ["draft", "review", "ship"],
    });
    expect(parseIntent("add todo buy bread and milk")).toEqual({
      type: "add_todos",
      items: ["buy bread and milk"],
    });
    expect(parseIntent("start todo 2")).toEqual({ type: "update_todo", action: "start", id: 2 });
    expect(parseIntent("complete task #1")).toEqual({
      type: "update_todo",
      action: "complete",
      id: 1,
    });
    expect(parseIntent("show my todo list")).toEqual({ type: "list_todos" });
    expect(parseIntent("list my notes")).toEqual({ type: "list_notes" });
    expect(parseIntent("What time is it?")).toEqual({ type: "clock" });
    expect(parseIntent("what time is it in Asia/Tokyo")).toEqual({
      type: "clock",
      timeZone: "Asia/Tokyo",
    });
    expect(parseIntent("Ask me my favourite colour")).toEqual({
      type: "ask_user",
      question: "What is your favourite colour?",
    });
    expect(parseIntent("please ask me for my name")).toEqual({
      type: "ask_user",
      question: "What is your name?",
    });
    expect(parseIntent("ask me how I feel today")).toEqual({
      type: "ask_user",
      question: "How you feel today?",
    });
    expect(parseIntent("Run the slow task")).toEqual({ type: "slow_task" });
    expect(parseIntent("compact the conversation")).toEqual({ type: "compact" });
  });

  it("reads a direct tool call with JSON arguments", () => {
    expect(parseIntent('call echo {"text":"hi"}')).toEqual({
      type: "call_tool",
      name: "echo",
      arguments: { text: "hi" },
    });
    expect(parseIntent("use tool `ping`")).toEqual({
      type: "call_tool",
      name: "ping",
      arguments: {},
    });
  });

  it("falls back to help or a greeting", () => {
    expect(parseIntent("Hello there")).toEqual({ type: "greeting" });
    expect(parseIntent("write me a poem")).toEqual({ type: "help" });
    expect(parseIntent("what is love")).toEqual({ type: "help" });
  });
});
