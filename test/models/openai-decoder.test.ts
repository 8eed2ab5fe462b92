import { describe, expect, test } from "vitest";
import type { ModelEvent } from "../../src/models/model.ts";
import { isModelError } from "../../src/models/model-error.ts";
import { openAIDecoder } from "../../src/models/openai-compatible.ts";

function run(chunks: unknown[], done = true): { events: ModelEvent[]; error?: unknown } {
  const decoder = openAIDecoder(["sk-x"]);
  const events: ModelEvent[] = [];
  const emit = (e: ModelEvent) => events.push(e);
  try {
    for (const chunk of chunks)
      decoder.event({ event: "message", data: JSON.stringify(chunk), id: "" }, emit);
    if (done) decoder.event({ event: "message", data: "[DONE]", id: "" }, emit);
    else decoder.end(emit);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

const choice = (delta: object, finish_reason: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason }],
});

describe("openAIDecoder", () => {
  test("numbers calls without an id and accepts arguments sent as one object", () => {
    const { events } = run([
      choice({
        tool_calls: [
          { index: 0, function: { name: "a", arguments: { x: 1 } } },
          { index: 1, function: { name: "b" } },
        ],
      }),
      choice({}, "tool_calls"),
    ]);
    expect(events).toEqual([
      { type: "tool_call", id: "call_1", name: "a", arguments: { x: 1 } },
      { type: "tool_call", id: "call_2", name: "b", arguments: {} },
      { type: "finish", reason: "tool_calls" },
    ]);
  });

  test("reports tool_calls when a server says stop after calling tools", () => {
    const { events } = run([
      choice(
        { tool_calls: [{ index: 0, id: "c", function: { name: "a", arguments: "{}" } }] },
        "stop",
      ),
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  test("maps length and content_filter", () => {
    expect(run([choice({ content: "a" }, "length")]).events.at(-1)).toEqual({
      type: "finish",
      reason: "length",
    });
    expect(run([choice({}, "content_filter")]).events.at(-1)).toEqual({
      type: "finish",
      reason: "content_filter",
    });
  });

  test("accepts a body that ends after the finish reason without [DONE]", () => {
    const { events, error } = run(
      [
        choice({ content: "hi" }, "stop"),
        { choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } },
      ],
      false,
    );
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "text_delta", text: "hi" },
      { type: "usage", inputTokens: 1, outputTokens: 2 },
      { type: "finish", reason: "stop" },
    ]);
  });

  test("fails with invalid_response for a chunk that is not JSON or a call without a name", () => {
    const decoder = openAIDecoder([]);
    expect(() => decoder.event({ event: "message", data: "{oops", id: "" }, () => {})).toThrow(
      /not JSON/,
    );
    const { error } = run([
      choice({ tool_calls: [{ index: 0, id: "c", function: { arguments: "{}" } }] }, "tool_calls"),
    ]);
    expect(isModelError(error, "invalid_response")).toBe(true);
  });

  test("redacts secrets from error chunks", () => {
    const { error } = run([{ error: { message: "bad key sk-x", type: "auth" } }]);
    expect((error as Error).message).not.toContain("sk-x");
  });

  test("redacts secrets from the excerpt of a chunk that is not JSON", () => {
    const decoder = openAIDecoder(["sk-x"]);
    expect(() =>
      decoder.event({ event: "message", data: "echo: key sk-x {", id: "" }, () => {}),
    ).toThrow("chunk is not JSON: echo: key [redacted] {");
  });
});
