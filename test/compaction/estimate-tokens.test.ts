import { describe, expect, test } from "vitest";
import { estimateTokens } from "../../src/compaction/estimate-tokens.ts";
import { transcriptBytes } from "../../src/compaction/transcript-bytes.ts";
import { user } from "./fixtures.ts";

describe("estimateTokens", () => {
  test("is a quarter of the transcript's bytes, rounded up", () => {
    const messages = [user("x".repeat(1001))];
    expect(estimateTokens(messages)).toBe(Math.ceil(transcriptBytes(messages) / 4));
    expect(estimateTokens([user("x".repeat(4001))])).toBeGreaterThan(1000);
  });
});
