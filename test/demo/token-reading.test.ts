import { describe, expect, it } from "vitest";
import { estimatedReading, tokenReading } from "../../demo/token-reading.ts";
import { type AgentEvent, estimateTokens, type Message } from "../../src/agent/index.ts";

describe("tokenReading", () => {
  it("reads a turn's usage as the prompt plus the reply, naming the turn", () => {
    const event: AgentEvent = {
      type: "usage",
      turn: 4,
      usage: { inputTokens: 1200, outputTokens: 35, cacheReadTokens: 1000 },
    };
    // Cached tokens are already part of inputTokens; counting them again would double them.
    expect(tokenReading(event)).toEqual({ tokens: 1235, source: "model's count, turn 4" });
  });

  it("reads a compaction's size after the rewrite", () => {
    const event: AgentEvent = {
      type: "compacted",
      reason: "threshold",
      before: { messages: 12, tokens: 900 },
      after: { messages: 5, tokens: 310 },
      summarized: true,
    };
    expect(tokenReading(event)).toEqual({ tokens: 310, source: "after compaction" });
  });

  it("says nothing for events that do not measure the transcript", () => {
    expect(tokenReading({ type: "turn_start", turn: 1, final: false })).toBeUndefined();
    expect(tokenReading({ type: "text_delta", turn: 1, text: "hi" })).toBeUndefined();
  });
});

describe("estimatedReading", () => {
  it("reads an empty conversation as 0 tokens (nothing is sent)", () => {
    expect(estimatedReading([])).toEqual({ tokens: 0, source: "estimated" });
  });

  it("estimates like compaction does", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "x".repeat(400) }] },
    ];
    expect(estimatedReading(messages)).toEqual({
      tokens: estimateTokens(messages),
      source: "estimated",
    });
    expect(estimatedReading(messages).tokens).toBeGreaterThan(100);
  });
});
