import { describe, expect, test } from "vitest";
import { anthropicDecoder } from "../../src/models/anthropic.ts";
import type { ModelEvent } from "../../src/models/model.ts";

function run(events: { type: string; [key: string]: unknown }[], end = false) {
  const decoder = anthropicDecoder([]);
  const out: ModelEvent[] = [];
  const emit = (e: ModelEvent) => out.push(e);
  for (const event of events)
    decoder.event({ event: event.type, data: JSON.stringify(event), id: "" }, emit);
  if (end) decoder.end(emit);
  return out;
}

const stop = (reason: string) => [
  { type: "message_delta", delta: { stop_reason: reason }, usage: { output_tokens: 2 } },
  { type: "message_stop" },
];

describe("anthropicDecoder", () => {
  test("maps stop reasons", () => {
    expect(run(stop("end_turn")).at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(run(stop("max_tokens")).at(-1)).toEqual({ type: "finish", reason: "length" });
    expect(run(stop("refusal")).at(-1)).toEqual({ type: "finish", reason: "refusal" });
    expect(run(stop("tool_use")).at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  });

  test("streams thinking as reasoning and keeps the whole block with its signature; skips pings and unknown events", () => {
    const out = run([
      { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "s" } },
      { type: "content_block_stop", index: 0 },
      { type: "ping" },
      { type: "brand_new_event" },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "ok" } },
      ...stop("end_turn"),
    ]);
    expect(out).toEqual([
      { type: "reasoning_delta", text: "hmm" },
      { type: "reasoning", block: { type: "reasoning", text: "hmm", signature: "s" } },
      { type: "text_delta", text: "ok" },
      { type: "usage", inputTokens: 3, outputTokens: 2 },
      { type: "finish", reason: "stop" },
    ]);
  });

  test("uses the event name when the data has no type, and finishes at the end of the body after a stop reason", () => {
    const decoder = anthropicDecoder([]);
    const out: ModelEvent[] = [];
    const emit = (e: ModelEvent) => out.push(e);
    decoder.event(
      { event: "message_delta", data: '{"delta":{"stop_reason":"end_turn"}}', id: "" },
      emit,
    );
    decoder.end(emit);
    expect(out).toEqual([{ type: "finish", reason: "stop" }]);
  });

  test("passes invalid tool JSON on as the raw string", () => {
    const out = run([
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: "f", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"a":' },
      },
      { type: "content_block_stop", index: 0 },
    ]);
    expect(out).toEqual([{ type: "tool_call", id: "t", name: "f", arguments: '{"a":' }]);
  });

  test("redacts secrets from the excerpt of an event that is not JSON", () => {
    const decoder = anthropicDecoder(["sk-ant"]);
    expect(() => decoder.event({ event: "ping", data: "key sk-ant {", id: "" }, () => {})).toThrow(
      "event ping is not JSON: key [redacted] {",
    );
  });
});
