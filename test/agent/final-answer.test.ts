import { describe, expect, test } from "vitest";
import type { AgentEvent } from "../../src/agent/events.ts";
import { answerFinally, FINAL_ANSWER_NUDGE } from "../../src/agent/final-answer.ts";
import type { Message } from "../../src/models/message.ts";
import type { Model, ModelEvent, ModelTool } from "../../src/models/model.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { transcriptProblems } from "../support/model-transcript.ts";

const tools: ModelTool[] = [{ name: "echo", inputSchema: { type: "object" } }];

function afterToolTurn(): Message[] {
  return [
    { role: "user", content: [{ type: "text", text: "go" }] },
    { role: "assistant", content: [{ type: "tool_use", id: "a", name: "echo", input: {} }] },
    {
      role: "user",
      content: [{ type: "tool_result", toolUseId: "a", isError: false, content: [] }],
    },
  ];
}

function state(messages: Message[], overrides: { tools?: ModelTool[]; signal?: AbortSignal } = {}) {
  const events: AgentEvent[] = [];
  return {
    events,
    state: {
      messages,
      tools: overrides.tools ?? tools,
      signal: overrides.signal ?? new AbortController().signal,
      emit: (event: AgentEvent) => events.push(event),
      turns: 4,
      cause: "max_turns" as const,
    },
  };
}

/** A model that ignores `toolChoice` and calls a tool anyway, after some text. */
function disobedientModel(text: string): Model {
  return {
    id: "disobedient",
    stream: () =>
      new ReadableStream<ModelEvent>({
        start(controller) {
          if (text) controller.enqueue({ type: "text_delta", text });
          controller.enqueue({ type: "tool_call", id: "z", name: "echo", arguments: {} });
          controller.enqueue({ type: "finish", reason: "tool_calls" });
          controller.close();
        },
      }),
  };
}

describe("answerFinally", () => {
  test("declares the tools but forbids calls, folding the nudge into the results message", async () => {
    const model = scriptedModel([
      { text: "Here is all I found.", usage: { inputTokens: 9, outputTokens: 3 } },
    ]);
    const messages = afterToolTurn();
    const { state: s, events } = state(messages);
    const answer = await answerFinally({ model, instructions: "Be brief." }, s);
    expect(answer).toEqual({
      text: "Here is all I found.",
      cancelled: false,
      usage: { inputTokens: 9, outputTokens: 3 },
    });
    expect(model.requests[0]).toMatchObject({ tools, toolChoice: "none", system: "Be brief." });
    expect(messages).toHaveLength(4);
    expect(messages[2]?.content.at(-1)).toEqual({ type: "text", text: FINAL_ANSWER_NUDGE });
    expect(messages[3]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Here is all I found." }],
    });
    expect(events[0]).toEqual({ type: "turn_start", turn: 5, final: true });
    expect(transcriptProblems(messages)).toEqual([]);
  });

  test("sends no tool choice when the run has no tools", async () => {
    const model = scriptedModel([{ text: "ok" }]);
    const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "go" }] }];
    await answerFinally({ model, instructions: undefined }, state(messages, { tools: [] }).state);
    expect(model.requests[0]).toEqual({ messages: expect.any(Array), tools: [] });
  });

  test("drops calls a model makes anyway, so no tool_use is left unanswered", async () => {
    const messages = afterToolTurn();
    const answer = await answerFinally(
      { model: disobedientModel("Partly done."), instructions: undefined },
      state(messages).state,
    );
    expect(answer.text).toBe("Partly done.");
    expect(JSON.stringify(messages)).not.toContain('"z"');
    expect(transcriptProblems(messages)).toEqual([]);
  });

  test("stands in a fixed explanation for an empty, failed or call-only answer", async () => {
    const failing = scriptedModel([
      { error: { type: "http", provider: "scripted", message: "x" } },
    ]);
    for (const model of [scriptedModel([{}]), failing, disobedientModel("")]) {
      const messages = afterToolTurn();
      const answer = await answerFinally({ model, instructions: undefined }, state(messages).state);
      expect(answer.text).toBe(
        "No answer was produced: the run reached its turn limit after 4 turns.",
      );
      expect(messages.at(-1)?.role).toBe("user");
      expect(transcriptProblems(messages)).toEqual([]);
    }
    const loop = { ...state(afterToolTurn()).state, cause: "loop" as const };
    const answer = await answerFinally(
      { model: scriptedModel([{}]), instructions: undefined },
      loop,
    );
    expect(answer.text).toContain("was stopped in a loop after 4 turns");
  });

  test("reports a cancellation and makes no call when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const model = scriptedModel([{ text: "never" }]);
    const answer = await answerFinally(
      { model, instructions: undefined },
      state(afterToolTurn(), { signal: controller.signal }).state,
    );
    expect(answer.cancelled).toBe(true);
    expect(model.requests).toHaveLength(0);
  });
});
