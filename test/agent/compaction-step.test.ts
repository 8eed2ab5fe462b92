import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { createCompactionStep } from "../../src/agent/compaction-step.ts";
import { Agent, type AgentEvent, type Summarizer } from "../../src/agent/index.ts";
import { SUMMARY_MARKER } from "../../src/compaction/head.ts";
import { defineTool } from "../../src/index.ts";
import type { Message } from "../../src/models/message.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/scripted-model.ts";

const echo = defineTool({
  name: "echo",
  description: "Echoes",
  readOnly: true,
  input: v.object({ text: v.string() }),
  call: ({ text }) => `echo ${text}`,
});

const read = defineTool({
  name: "read",
  description: "Reads a file",
  readOnly: true,
  input: v.object({ path: v.string(), size: v.number() }),
  call: ({ path, size }) => `${path}:${"x".repeat(size)}`,
});

function readTurn(path: string, size: number, inputTokens?: number): ScriptedTurn {
  const turn: ScriptedTurn = { toolCalls: [{ name: "read", arguments: { path, size } }] };
  if (inputTokens !== undefined) turn.usage = { inputTokens, outputTokens: 1 };
  return turn;
}

function textOf(message: Message | undefined): string {
  return JSON.stringify(message?.content ?? []);
}

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
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer, keepRewritten: true },
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
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer, keepRewritten: true },
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
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer, keepRewritten: true },
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
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer, keepRewritten: true },
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
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer, keepRewritten: true },
    });
    const result = await agent.run("go", { signal: controller.signal }).result;
    expect(result).toMatchObject({ stop: "cancelled", turns: 3 });
    expect(model.requests).toHaveLength(3);
    expect(result.conversation.messages).toHaveLength(7);
  });

  test("compacts on the predicted size when new results push the transcript over the threshold", async () => {
    let asked = 0;
    const summarizer: Summarizer = async () => {
      asked += 1;
      return { text: "Read a to d." };
    };
    // Every reading is far under 1,000; the 9,000-character result of turn 4 is not.
    const model = scriptedModel([
      readTurn("a", 10, 100),
      readTurn("b", 10, 110),
      readTurn("c", 10, 120),
      readTurn("d", 9000, 130),
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: [read],
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer, keepRewritten: true },
    });
    const run = agent.run("Read four files");
    const events = await eventsOf(run);
    const result = await run.result;
    expect(result.stop).toBe("done");
    expect(asked).toBe(1);
    const compacted = events.filter((e) => e.type === "compacted");
    expect(compacted).toMatchObject([{ reason: "predicted", summarized: true }]);
    expect(compacted[0]?.type === "compacted" && compacted[0].before.tokens).toBeGreaterThan(1000);
    // A prediction is bytes × a rate, but the sizes it reports are whole token counts.
    const sizes = compacted.flatMap((e) => (e.type === "compacted" ? [e.before, e.after] : []));
    expect(sizes.map((size) => Number.isInteger(size.tokens))).toEqual([true, true]);
    expect(textOf(model.requests[4]?.messages[0])).toContain("Read a to d.");
  });

  test("uses a local estimate once the provider answers without usage", async () => {
    let asked = 0;
    const summarizer: Summarizer = async () => {
      asked += 1;
      return { text: "Read a to d." };
    };
    const model = scriptedModel([
      readTurn("a", 10),
      readTurn("b", 10),
      readTurn("c", 10),
      readTurn("d", 9000),
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: [read],
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer, keepRewritten: true },
    });
    const run = agent.run("Read four files");
    const events = await eventsOf(run);
    expect((await run.result).stop).toBe("done");
    expect(asked).toBe(1);
    expect(events.filter((e) => e.type === "compacted")).toMatchObject([{ reason: "predicted" }]);
  });

  test("derives the threshold from the model's window: 0.66 × 1,500 is 990", async () => {
    const runWith = async (contextWindow: number) => {
      let asked = 0;
      const summarizer: Summarizer = async () => {
        asked += 1;
        return { text: "s" };
      };
      const turns = [call("a", 10), call("b", 10), call("c", 995), { text: "done" }];
      const model = scriptedModel(turns, { contextWindow });
      const agent = new Agent({ model, tools: [echo], compaction: { keepRecent: 2, summarizer } });
      await agent.run("go").result;
      return asked;
    };
    expect(await runWith(1500)).toBe(1);
    expect(await runWith(3000)).toBe(0);
  });

  test("lossless passes that free enough skip the summary, emit `compacted` and retire the reading", async () => {
    let asked = 0;
    const summarizer: Summarizer = async () => {
      asked += 1;
      return { text: "s" };
    };
    const model = scriptedModel([
      readTurn("big", 9000, 100),
      readTurn("a", 10, 2400),
      readTurn("b", 10, 300),
      { text: "done", usage: { inputTokens: 310, outputTokens: 1 } },
    ]);
    const agent = new Agent({
      model,
      tools: [read],
      compaction: { thresholdTokens: 2000, keepRecent: 1, summarizer, keepRewritten: true },
    });
    const run = agent.run("go");
    const events = await eventsOf(run);
    const result = await run.result;
    expect(result.stop).toBe("done");
    expect(asked).toBe(0);
    const compacted = events.filter((e) => e.type === "compacted");
    expect(compacted).toHaveLength(1);
    const [event] = compacted;
    if (event?.type !== "compacted") throw new Error("no compacted event");
    expect(event).toMatchObject({ reason: "threshold", summarized: false });
    expect(event.before).toEqual({ messages: 5, tokens: expect.any(Number) });
    expect(event.before.tokens).toBeGreaterThanOrEqual(2400);
    expect(event.after.messages).toBe(5);
    expect(event.after.tokens).toBeLessThan(2000);
    expect(textOf(model.requests[2]?.messages[2])).toContain("[thinned:");
    expect(result.conversation.rewritten).toHaveLength(1);
  });

  // Issue 22, item 8: with the defaults (threshold 0.66 × the model's window), the result the
  // model asked for is sent whole after a summary as long as the request fits the window.
  test("after a summary, the result the model has not read yet goes out whole while it fits the window", async () => {
    const summarizer: Summarizer = async () => ({ text: "Read files a to h." });
    const model = scriptedModel(
      [
        ..."abcdefgh".split("").map((path, i) => readTurn(path, 10, 100 + 50 * i)),
        readTurn("big", 24_000, 600),
        { text: "done", usage: { inputTokens: 8_300, outputTokens: 1 } },
      ],
      { contextWindow: 10_000 },
    );
    const agent = new Agent({ model, tools: [read], compaction: { summarizer } });
    const run = agent.run("go");
    const events = await eventsOf(run);
    const result = await run.result;
    expect(result.stop).toBe("done");
    expect(events.filter((e) => e.type === "compacted")).toMatchObject([{ summarized: true }]);
    const last = model.requests.at(-1)?.messages ?? [];
    expect(textOf(last[0])).toContain(SUMMARY_MARKER);
    expect(textOf(last.at(-1))).toContain(`big:${"x".repeat(24_000)}`);
    expect(textOf(last.at(-1))).not.toContain("[thinned:");
  });

  test("adds the default model summariser's tokens, validation included, to the run's usage", async () => {
    const model = scriptedModel([
      call("a", 10),
      call("b", 10),
      call("c", 5000),
      { text: "Echoed a, b and c.", usage: { inputTokens: 300, outputTokens: 40 } },
      { text: "NONE", usage: { inputTokens: 50, outputTokens: 2 } },
      { text: "done", usage: { inputTokens: 20, outputTokens: 3 } },
    ]);
    const agent = new Agent({
      model,
      tools: [echo],
      compaction: { thresholdTokens: 1000, keepRecent: 2 },
    });
    const result = await agent.run("Echo things").result;
    expect(result).toMatchObject({ stop: "done", text: "done", turns: 4 });
    expect(result.usage).toEqual({ inputTokens: 5390, outputTokens: 48 });
    const [summary, validation] = [model.requests[3], model.requests[4]];
    expect(summary?.tools).toEqual([]);
    expect(summary?.maxTokens).toBe(8192);
    expect(validation?.tools).toEqual([]);
    expect(textOf(model.requests[5]?.messages[0])).toContain("Echoed a, b and c.");
  });

  test("never installs a truncated summary, and stops attempting summaries for the run", async () => {
    const model = scriptedModel([
      call("a", 10),
      call("b", 10),
      call("c", 5000),
      { text: "Echoed a and", finish: "length" },
      call("d", 5000),
      call("e", 5000),
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: [echo],
      compaction: { thresholdTokens: 1000, keepRecent: 2, validate: false },
    });
    const result = await agent.run("go").result;
    expect(result).toMatchObject({ stop: "done", turns: 6 });
    // One summary request; every later request is an agent turn over the whole transcript.
    expect(model.requests.map((r) => r.tools.length)).toEqual([1, 1, 1, 0, 1, 1, 1]);
    expect(model.requests[6]?.messages).toHaveLength(11);
    expect(JSON.stringify(result.conversation.messages)).not.toContain(SUMMARY_MARKER);
    expect(result.conversation.rewritten).toEqual([]);
  });

  test("the `compact` tool has the transcript summarised before the next turn, with no threshold", async () => {
    const summaries: string[] = [];
    const summarizer: Summarizer = async ({ transcript }) => {
      summaries.push(transcript);
      return { text: "Echoed a to c." };
    };
    const script = [
      call("a", 10),
      call("b", 10),
      call("c", 10),
      { toolCalls: [{ name: "compact", arguments: { reason: "next step" } }] },
      { text: "done" },
    ];
    const model = scriptedModel(script);
    const agent = new Agent({
      model,
      tools: [echo],
      compaction: { keepRecent: 2, summarizer, compactTool: true },
    });
    const run = agent.run("go");
    const events = await eventsOf(run);
    expect((await run.result).stop).toBe("done");
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["compact", "echo"]);
    const tool = model.requests[0]?.tools.find((t) => t.name === "compact");
    expect(tool?.description).toMatch(
      /^Ask for the transcript to be compacted before the next turn/,
    );
    // One call, one summary: the request is consumed when it is served.
    expect(summaries).toHaveLength(1);
    expect(events.filter((e) => e.type === "compacted")).toMatchObject([
      { reason: "requested", summarized: true },
    ]);
    expect(model.requests[4]?.messages).toHaveLength(3);
    expect(textOf(model.requests[4]?.messages[0])).toContain("Echoed a to c.");
    // Without the setting the model is not offered the tool.
    const plain = scriptedModel([{ text: "hi" }]);
    await new Agent({ model: plain, tools: [echo], compaction: { summarizer } }).run("go").result;
    expect(plain.requests[0]?.tools.map((t) => t.name)).toEqual(["echo"]);
  });

  test("recovers from an overflow by thinning every result, the latest too, and summarising", async () => {
    let asked = 0;
    const summarizer: Summarizer = async () => {
      asked += 1;
      return { text: "Read a to c." };
    };
    const model = scriptedModel([
      readTurn("a", 3000),
      readTurn("b", 3000),
      readTurn("c", 3000),
      readTurn("d", 3000),
      overflow,
      { text: "fits now" },
    ]);
    const agent = new Agent({
      model,
      tools: [read],
      compaction: { keepRecent: 2, summarizer, keepRewritten: true },
    });
    const run = agent.run("go");
    const events = await eventsOf(run);
    const result = await run.result;
    expect(result).toMatchObject({ stop: "done", text: "fits now", turns: 5 });
    expect(asked).toBe(1);
    expect(events.filter((e) => e.type === "compacted")).toMatchObject([
      { reason: "overflow", summarized: true, before: { messages: 9 }, after: { messages: 3 } },
    ]);
    const retried = model.requests[5]?.messages ?? [];
    expect(retried).toHaveLength(3);
    expect(textOf(retried[0])).toContain("Read a to c.");
    expect(textOf(retried[2])).toContain("[thinned:");
    expect(result.conversation.rewritten).toEqual([model.requests[4]?.messages]);
  });

  test("fires whenever the reactive check would: predictions and requests only add reasons", async () => {
    const turn = fc.record({
      reported: fc.option(fc.integer({ min: 0, max: 6000 }), { nil: undefined }),
      size: fc.integer({ min: 0, max: 4000 }),
      request: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.integer({ min: 1, max: 5000 }), { nil: undefined }),
        fc.array(turn, { minLength: 1, maxLength: 30 }),
        async (threshold, turns) => {
          let acted = false;
          const summarizer: Summarizer = async () => {
            acted = true;
            return { text: "s" };
          };
          const settings = { keepRecent: 2, summarizer, compactTool: true };
          const step = createCompactionStep(
            threshold === undefined ? settings : { ...settings, thresholdTokens: threshold },
            scriptedModel([]),
            [],
          );
          const [requests] = step.toolsets;
          const conversation = {
            messages: [{ role: "user", content: [{ type: "text", text: "task" }] }] as Message[],
            taint: { private: false, untrusted: false },
            rewritten: [] as Message[][],
          };
          const context = {
            signal: new AbortController().signal,
            emit: (event: AgentEvent) => {
              if (event.type === "compacted") acted = true;
            },
            onUsage: () => {},
          };
          let reactive = false;
          let requested = false;
          for (const [i, t] of turns.entries()) {
            acted = false;
            const long = conversation.messages.length >= 7;
            await step.beforeTurn(conversation, context);
            // A summary is possible (the cut lands past index 4), so acting is observable.
            if (long && (reactive || requested)) expect(acted).toBe(true);
            if (threshold === undefined && !requested) expect(acted).toBe(false);
            const sent = conversation.messages.slice();
            const id = `c${i}`;
            conversation.messages.push(
              {
                role: "assistant",
                content: [{ type: "tool_use", id, name: "read", input: { path: id } }],
              },
              {
                role: "user",
                content: [
                  {
                    type: "tool_result",
                    toolUseId: id,
                    content: [{ type: "text", text: "r".repeat(t.size) }],
                    isError: false,
                  },
                ],
              },
            );
            step.observe(
              t.reported === undefined ? undefined : { inputTokens: t.reported, outputTokens: 1 },
              sent,
            );
            reactive =
              threshold !== undefined && t.reported !== undefined && t.reported >= threshold;
            requested = t.request;
            if (t.request) await requests?.call("compact", {});
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

const readLong = defineTool({
  name: "read",
  description: "Reads a file",
  readOnly: true,
  input: v.object({ path: v.string() }),
  call: ({ path }) => `${path}: ${"x".repeat(2000)}`,
});

describe("compaction reasons", () => {
  test("a compacted event carries why the loop compacted", async () => {
    const turn = (path: string, inputTokens: number) => ({
      toolCalls: [{ name: "read", arguments: { path } }],
      usage: { inputTokens, outputTokens: 1 },
    });
    const model = scriptedModel([
      turn("a", 10),
      turn("b", 10),
      turn("c", 10),
      turn("d", 5000),
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: [readLong],
      compaction: {
        thresholdTokens: 1000,
        keepRecent: 2,
        summarizer: async () => ({ text: "Read a, b and c." }),
      },
    });
    const run = agent.run("go");
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    expect((await run.result).stop).toBe("done");
    const reasons = events.flatMap((event) => (event.type === "compacted" ? [event.reason] : []));
    expect(reasons).toEqual(["threshold"]);
  });
});

describe("compaction over long runs", () => {
  test("a prompt still over the threshold after two compactions stops the run with compaction_stalled", async () => {
    // The task alone is about 2,000 tokens against a threshold of 1,000: no summary can help.
    const task = `TASK: ${"t".repeat(8000)}`;
    const script = (_request: unknown, n: number): ScriptedTurn =>
      n < 40 ? call(`x${n}`, 2500) : { text: "done" };
    const model = scriptedModel(script);
    const agent = new Agent({
      model,
      tools: [echo],
      compaction: { thresholdTokens: 1000, keepRecent: 2, summarizer: async () => ({ text: "s" }) },
    });
    const run = agent.run(task);
    const events = await eventsOf(run);
    const result = await run.result;
    expect(result.stop).toBe("compaction_stalled");
    // The final tool-less turn (here the script calls a tool anyway, which is dropped).
    expect(result.text).toBe(
      `No answer was produced: the run could not compact its transcript under the threshold after ${result.turns} turns.`,
    );
    const compacted = events.filter((e) => e.type === "compacted");
    const last = compacted.at(-1);
    expect(last?.type === "compacted" && last.overThreshold).toMatch(
      /^the task and the carried state alone are about \d+ tokens, against a threshold of 1000$/,
    );
    // Not a compaction every turn: the run stopped at the second one over the threshold.
    expect(compacted.filter((e) => e.type === "compacted" && e.overThreshold)).toHaveLength(2);
    expect(result.turns).toBeLessThan(10);
  });

  test("a run keeps no rewrites unless asked, and the `compacted` event carries the summary", async () => {
    const model = scriptedModel([call("a", 10), call("b", 10), call("c", 5000), { text: "done" }]);
    const agent = new Agent({
      model,
      tools: [echo],
      compaction: {
        thresholdTokens: 1000,
        keepRecent: 2,
        summarizer: async () => ({ text: "A, B." }),
      },
    });
    const run = agent.run("Echo things");
    const events = await eventsOf(run);
    const result = await run.result;
    expect(result.conversation.rewritten).toEqual([]);
    expect(events.filter((e) => e.type === "compacted")).toMatchObject([
      { summarized: true, summary: "A, B." },
    ]);
  });
});
