import { describe, expect, test } from "vitest";
import { Agent } from "../../src/agent/agent.ts";
import { addUsage, emptyUsage, STOP_CAUSES } from "../../src/agent/run-result.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";

describe("STOP_CAUSES", () => {
  test("a run reports one of the stop causes", async () => {
    const result = await new Agent({ model: scriptedModel([{ text: "hi" }]) }).run("go").result;
    expect(STOP_CAUSES).toContain(result.stop);
  });
});

describe("emptyUsage", () => {
  test("starts at zero with no cache fields, and each call gives a fresh record", () => {
    const usage = emptyUsage();
    expect(usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    usage.inputTokens = 5;
    expect(emptyUsage().inputTokens).toBe(0);
  });
});

describe("addUsage", () => {
  test("sums tokens in place, adding cache fields only once a turn reports them", () => {
    const total = emptyUsage();
    addUsage(total, { inputTokens: 10, outputTokens: 2 });
    expect(total).toEqual({ inputTokens: 10, outputTokens: 2 });
    addUsage(total, { inputTokens: 20, outputTokens: 3, cacheReadTokens: 15 });
    addUsage(total, { inputTokens: 5, outputTokens: 1, cacheReadTokens: 4, cacheWriteTokens: 7 });
    expect(total).toEqual({
      inputTokens: 35,
      outputTokens: 6,
      cacheReadTokens: 19,
      cacheWriteTokens: 7,
    });
  });
});
