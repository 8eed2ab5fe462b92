import { describe, expect, test } from "vitest";
import { compactionThreshold } from "../../src/compaction/compaction-threshold.ts";

describe("compactionThreshold", () => {
  test("derives 0.66 × the window, rounded down", () => {
    expect(compactionThreshold({ contextWindow: 32_768 })).toBe(21_626);
    expect(compactionThreshold({ contextWindow: 200_000 })).toBe(132_000);
  });

  test("prefers an explicit threshold", () => {
    expect(compactionThreshold({ thresholdTokens: 5000, contextWindow: 32_768 })).toBe(5000);
  });

  test("is off with neither a threshold nor a window", () => {
    expect(compactionThreshold({})).toBeUndefined();
    expect(compactionThreshold({ contextWindow: 0 })).toBeUndefined();
  });
});
