import { describe, expect, test } from "vitest";
import { modelSummarizer, parseOmissions } from "../../src/compaction/model-summarizer.ts";
import { isToolError } from "../../src/errors.ts";
import type { ModelRequest } from "../../src/models/model.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/scripted-model.ts";

function promptOf(request: ModelRequest | undefined): string {
  const block = request?.messages[0]?.content[0];
  return block?.type === "text" ? block.text : "";
}

describe("modelSummarizer", () => {
  test("sends one tool-less request with its own system prompt and token limit", async () => {
    const model = scriptedModel([{ text: "the summary" }]);
    const summary = await modelSummarizer(model, { validate: false })(
      { transcript: "[user] do X" },
      {},
    );
    expect(summary.text).toBe("the summary");
    expect(summary.truncated).toBeUndefined();
    const [request] = model.requests;
    expect(model.requests).toHaveLength(1);
    expect(request?.tools).toEqual([]);
    expect(request?.maxTokens).toBe(8192);
    expect(request?.system).toMatch(/compress/i);
    expect(request?.messages).toHaveLength(1);
    const prompt = promptOf(request);
    expect(prompt.startsWith("[user] do X\n\n-----\n\n")).toBe(true);
    for (const kept of [
      /what was asked/,
      /exact values, paths/,
      /what failed/i,
      /what remains/,
      /exact position in any sequence/,
      /third-party content/,
      /No pleasantries/,
    ]) {
      expect(prompt).toMatch(kept);
    }
  });

  test("a fold sends the earlier summaries, then the new turns, and asks for one summary", async () => {
    const model = scriptedModel([{ text: "merged" }, { text: "NONE" }]);
    const summary = await modelSummarizer(model)(
      { transcript: "[user] do X\n[assistant] done X", summaries: ["did A", "did B"] },
      {},
    );
    expect(summary.text).toBe("merged");
    const [fold, check] = model.requests.map(promptOf);
    expect(fold).toMatch(
      /^Earlier summary 1:\ndid A\n\n-----\n\nEarlier summary 2:\ndid B\n\n-----\n\nTranscript since:\n\[user\] do X\n\[assistant\] done X\n\n-----\n\n/,
    );
    expect(fold).toMatch(/Write ONE summary that replaces all of them/);
    expect(fold).toMatch(/the newer one wins/);
    // The validator checks the fold against the same material.
    expect(check?.startsWith("Earlier summary 1:\ndid A")).toBe(true);
    expect(check).toContain("Summary:\nmerged");
  });

  test("marks a summary cut off by the token limit as truncated", async () => {
    const model = scriptedModel([{ text: "half", finish: "length" }]);
    const summary = await modelSummarizer(model, { maxTokens: 10 })({ transcript: "t" }, {});
    expect(summary).toEqual({ text: "half", truncated: true });
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.maxTokens).toBe(10);
  });

  test("installs the first summary without regeneration when the validator answers NONE", async () => {
    const model = scriptedModel([{ text: "first" }, { text: "- NONE." }]);
    const summary = await modelSummarizer(model)({ transcript: "t" }, {});
    expect(summary.text).toBe("first");
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.tools).toEqual([]);
    expect(promptOf(model.requests[1])).toContain("Summary:\nfirst");
  });

  test("regenerates exactly once with the omissions named", async () => {
    const model = scriptedModel([
      { text: "first", usage: { inputTokens: 10, outputTokens: 1 } },
      {
        text: "1. the path src/a.ts\n2. step 4 of 9 is next",
        usage: { inputTokens: 5, outputTokens: 2 },
      },
      { text: "second", usage: { inputTokens: 11, outputTokens: 3 } },
    ]);
    const summary = await modelSummarizer(model)({ transcript: "t" }, {});
    expect(summary).toEqual({ text: "second", usage: { inputTokens: 26, outputTokens: 6 } });
    expect(model.requests).toHaveLength(3);
    expect(promptOf(model.requests[2])).toContain("- the path src/a.ts\n- step 4 of 9 is next");
  });

  test.each<[string, ScriptedTurn]>([
    ["empty", { text: "" }],
    ["truncated", { text: "seco", finish: "length" }],
    ["failed", { error: { type: "http", provider: "scripted", status: 500, message: "x" } }],
  ])("keeps the first summary when the regeneration is %s", async (_, turn) => {
    const model = scriptedModel([{ text: "first" }, { text: "missing X" }, turn]);
    expect((await modelSummarizer(model)({ transcript: "t" }, {})).text).toBe("first");
    expect(model.requests).toHaveLength(3);
  });

  test("counts every call's tokens, even when the regeneration is thrown away", async () => {
    const usage = (inputTokens: number) => ({ inputTokens, outputTokens: 1 });
    const model = scriptedModel([
      { text: "first", usage: usage(100) },
      { text: "missing X", usage: usage(20) },
      { text: "seco", finish: "length", usage: usage(3) },
    ]);
    const summary = await modelSummarizer(model)({ transcript: "t" }, {});
    expect(summary).toEqual({ text: "first", usage: { inputTokens: 123, outputTokens: 3 } });
  });

  test.each<[string, ScriptedTurn[]]>([
    [
      "fails",
      [
        { text: "first" },
        { error: { type: "http", provider: "scripted", status: 500, message: "x" } },
      ],
    ],
    ["gives an empty reply", [{ text: "first" }, { text: "" }]],
  ])("installs the first summary when the validator %s", async (_, turns) => {
    const model = scriptedModel(turns);
    expect((await modelSummarizer(model)({ transcript: "t" }, {})).text).toBe("first");
    expect(model.requests).toHaveLength(2);
  });

  test("does not validate an empty or truncated first summary", async () => {
    const model = scriptedModel([{ text: "" }]);
    expect(await modelSummarizer(model)({ transcript: "t" }, {})).toEqual({ text: "" });
    expect(model.requests).toHaveLength(1);
  });

  test("rejects with the model's error when the first summary fails", async () => {
    const model = scriptedModel([
      { error: { type: "http", provider: "scripted", status: 500, message: "down" } },
    ]);
    await expect(modelSummarizer(model)({ transcript: "t" }, {})).rejects.toMatchObject({
      type: "http",
    });
  });

  test("rejects with `cancelled` when aborted, before or during the first summary", async () => {
    const model = scriptedModel([{ text: "partial", stall: true }]);
    const summarizer = modelSummarizer(model);
    const pre = await summarizer({ transcript: "t" }, { signal: AbortSignal.abort() }).catch(
      (e) => e,
    );
    expect(isToolError(pre, "cancelled")).toBe(true);
    expect(model.requests).toHaveLength(0);
    const controller = new AbortController();
    const stalling = scriptedModel(() => {
      controller.abort();
      return { text: "partial", stall: true };
    });
    const pending = modelSummarizer(stalling)({ transcript: "t" }, { signal: controller.signal });
    expect(isToolError(await pending.catch((e) => e), "cancelled")).toBe(true);
  });

  test("installs the first summary when cancelled during validation", async () => {
    const controller = new AbortController();
    const model = scriptedModel((_, turn) => {
      if (turn === 1) controller.abort();
      return { text: turn === 0 ? "first" : "", stall: turn === 1 };
    });
    const summary = await modelSummarizer(model)(
      { transcript: "t" },
      { signal: controller.signal },
    );
    expect(summary.text).toBe("first");
  });
});

describe("parseOmissions", () => {
  test.each(["NONE", "none", "- None.", "**NONE**", "Checked.\n  `none`  \n"])(
    "reads a whole NONE line (%j) as complete",
    (reply) => expect(parseOmissions(reply)).toEqual({ type: "complete" }),
  );

  test("counts a line that merely contains none as a finding", () => {
    expect(parseOmissions("none of the paths\n2. the step number")).toEqual({
      type: "omissions",
      omissions: ["none of the paths", "the step number"],
    });
  });

  test("gives no verdict for an empty reply", () => {
    expect(parseOmissions(" \n\n")).toEqual({ type: "unusable" });
  });
});
