import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent, type AgentEvent, type Summarizer } from "../../src/agent/index.ts";
import { defineTool } from "../../src/index.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/scripted-model.ts";

const echo = defineTool({
  name: "echo",
  description: "Echoes",
  readOnly: true,
  input: v.object({ text: v.string() }),
  call: ({ text }) => `echo ${text}`,
});

function call(text: string, inputTokens: number): ScriptedTurn {
  return {
    toolCalls: [{ name: "echo", arguments: { text } }],
    usage: { inputTokens, outputTokens: 1 },
  };
}

async function eventsOf(run: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

const overflow: ScriptedTurn = {
  error: { type: "context_overflow", provider: "scripted", status: 400, message: "too long" },
};

describe("compaction step", () => {
  test("summarises between turns once the reported prompt size reaches the threshold", async () => {
    const summaries: string[] = [];
    const summarizer: Summarizer = async ({ transcript }) => {
      summaries.push(transcript);
      return { text: "Echoed a and b." };
    };
    const model = scriptedModel([call("a", 10), call("b", 10), call("c", 5000), { text: "done" }]);
    const agent = new Agent({
      model,
      tools: [echo],
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer },
    });
    const run = agent.run("Echo things");
    const events = await eventsOf(run);
    const result = await run.result;
    expect(result.stop).toBe("done");
    expect(summaries).toHaveLength(1);
    const compacted = events.filter((e) => e.type === "compacted");
    expect(compacted).toMatchObject([
      { reason: "threshold", summarized: true, before: { messages: 7 } },
    ]);
    const sent = model.requests[3]?.messages ?? [];
    expect(sent.length).toBeLessThan(7);
    expect(JSON.stringify(sent[0])).toContain("Echo things");
    expect(JSON.stringify(sent[0])).toContain("Echoed a and b.");
    expect(result.conversation.rewritten).toHaveLength(1);
    expect(result.conversation.rewritten[0]).toHaveLength(7);
  });

  test("never compacts before a turn when no threshold or window is known", async () => {
    let asked = 0;
    const summarizer: Summarizer = async () => {
      asked += 1;
      return { text: "s" };
    };
    const model = scriptedModel([call("a", 9e9), call("b", 9e9), call("c", 9e9), { text: "done" }]);
    const run = new Agent({ model, tools: [echo], compaction: { summarizer } }).run("go");
    const events = await eventsOf(run);
    expect(events.some((e) => e.type === "compacted")).toBe(false);
    expect(asked).toBe(0);
  });

  test("stops attempting summaries for the run after one fails", async () => {
    let asked = 0;
    const summarizer: Summarizer = async () => {
      asked += 1;
      throw new Error("summariser down");
    };
    const turns = ["a", "b", "c", "d", "e"].map((text) => call(text, 5000));
    const model = scriptedModel([...turns, { text: "done" }]);
    const agent = new Agent({
      model,
      tools: [echo],
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer },
    });
    const result = await agent.run("go").result;
    expect(result.stop).toBe("done");
    expect(asked).toBe(1);
  });

  test("recovers from a context overflow by compacting and retrying the turn once", async () => {
    const model = scriptedModel([overflow, { text: "fits now" }]);
    const result = await new Agent({ model }).run("go").result;
    expect(result).toMatchObject({ stop: "done", text: "fits now", turns: 1 });
    expect(model.requests).toHaveLength(2);
  });

  test("a second overflow, or compaction turned off, stops with error", async () => {
    const twice = scriptedModel([overflow, overflow, { text: "never" }]);
    const first = await new Agent({ model: twice }).run("go").result;
    expect(first.stop).toBe("error");
    expect(twice.requests).toHaveLength(2);
    const off = scriptedModel([overflow, { text: "never" }]);
    const second = await new Agent({ model: off, compaction: false }).run("go").result;
    expect(second.stop).toBe("error");
    expect(off.requests).toHaveLength(1);
  });

  test("after a summary, a repeated identical call and result stops the run with loop", async () => {
    const summarizer: Summarizer = async () => ({ text: "Echoed a, b and c." });
    const model = scriptedModel([
      call("a", 10),
      call("b", 10),
      call("c", 5000),
      call("d", 10),
      call("d", 10),
      { text: "I was going in circles." },
    ]);
    const agent = new Agent({
      model,
      tools: [echo],
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer },
    });
    const result = await agent.run("go").result;
    expect(result).toMatchObject({ stop: "loop", turns: 5, text: "I was going in circles." });
    // The final turn still declares the tools (a transcript with tool blocks needs them), but
    // forbids calling them.
    expect(model.requests.at(-1)).toMatchObject({ tools: [{ name: "echo" }], toolChoice: "none" });
  });

  test("polling with a changing result does not trip the loop guard", async () => {
    let n = 0;
    const poll = defineTool({
      name: "poll",
      description: "Polls",
      readOnly: true,
      input: v.object({}),
      call: () => `status ${++n}`,
    });
    const summarizer: Summarizer = async () => ({ text: "Polled." });
    const polls = [10, 10, 5000, 10, 10, 10].map((inputTokens) => ({
      toolCalls: [{ name: "poll", arguments: {} }],
      usage: { inputTokens, outputTokens: 1 },
    }));
    const model = scriptedModel([...polls, { text: "ready" }]);
    const agent = new Agent({
      model,
      tools: [poll],
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer },
    });
    const result = await agent.run("go").result;
    expect(result).toMatchObject({ stop: "done", text: "ready" });
  });

  test("cancelling during a summary stops the run with cancelled and no further model call", async () => {
    const controller = new AbortController();
    const summarizer: Summarizer = (_request, { signal }) => {
      controller.abort();
      return new Promise((_resolve, reject) => {
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        if (signal?.aborted) reject(signal.reason);
      });
    };
    const model = scriptedModel([call("a", 10), call("b", 10), call("c", 5000), { text: "never" }]);
    const agent = new Agent({
      model,
      tools: [echo],
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer },
    });
    const result = await agent.run("go", { signal: controller.signal }).result;
    expect(result).toMatchObject({ stop: "cancelled", turns: 3 });
    expect(model.requests).toHaveLength(3);
    expect(result.conversation.messages).toHaveLength(7);
  });
});
