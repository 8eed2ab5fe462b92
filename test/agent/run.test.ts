import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent, type AgentEvent } from "../../src/agent/index.ts";
import { addUsage, createAgentRun } from "../../src/agent/run.ts";
import { emptyConversation } from "../../src/compaction/conversation.ts";
import { defineTool, type ToolError } from "../../src/index.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { caught } from "../support/caught.ts";
import { createGate } from "../support/gate.ts";

describe("the run object", () => {
  const result = () => ({
    text: "t",
    stop: "done" as const,
    turns: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    conversation: emptyConversation(),
    blockedSends: 0,
  });

  describe("createAgentRun", () => {
    test("a reader that cancels the events stream does not stop the run or the forwarding", async () => {
      const release = createGate();
      const forwarded: AgentEvent[] = [];
      const run = createAgentRun(
        async (emit) => {
          emit({ type: "turn_start", turn: 1, final: false });
          await release.wait();
          emit({ type: "turn_start", turn: 2, final: false });
          return result();
        },
        (event) => forwarded.push(event),
        () => false,
      );
      const reader = run.events.getReader();
      expect((await reader.read()).value).toEqual({ type: "turn_start", turn: 1, final: false });
      await reader.cancel();
      release.open();
      expect((await run.result).stop).toBe("done");
      expect(forwarded).toHaveLength(2);
    });

    test("is async-iterable, ending when the run ends, and queues steering text", async () => {
      const seen: string[][] = [];
      const run = createAgentRun(
        async (emit, steering) => {
          await Promise.resolve();
          seen.push([...steering]);
          emit({ type: "turn_start", turn: 1, final: false });
          return result();
        },
        () => {},
        () => false,
      );
      run.steer("hint");
      run.steer("");
      const events: AgentEvent[] = [];
      for await (const event of run) events.push(event);
      expect(events).toHaveLength(1);
      expect(seen).toEqual([["hint"]]);
    });

    test("steer after the run ended throws unsupported instead of losing the text", async () => {
      const fromDone: Promise<ToolError>[] = [];
      let run: ReturnType<typeof createAgentRun> | undefined;
      const steerNow = (text: string) => caught(() => run?.steer(text));
      run = createAgentRun(
        async (emit, steering) => {
          await Promise.resolve();
          expect(steering).toEqual(["early"]);
          emit({ type: "done", result: result() });
          return result();
        },
        (event) => {
          if (event.type === "done") fromDone.push(steerNow("late"));
        },
        () => false,
      );
      run.steer("early");
      const done = await run.result;
      const [inListener] = await Promise.all(fromDone);
      expect(inListener?.data).toEqual({
        type: "unsupported",
        operation: "steer after the run ended; pass the text to the next run instead",
      });
      expect((await steerNow("after result")).type).toBe("unsupported");
      expect((await steerNow("")).type).toBe("unsupported");
      expect(done.stop).toBe("done");
    });

    test("a run whose body ends without done still refuses steering once its result settles", async () => {
      const run = createAgentRun(
        async () => result(),
        () => {},
        () => false,
      );
      await run.result;
      expect((await caught(() => run.steer("x"))).type).toBe("unsupported");
    });

    test("steer refuses text that is not a string, leaving the queue as it was", async () => {
      const seen: string[][] = [];
      const release = createGate();
      const run = createAgentRun(
        async (_emit, steering) => {
          await release.wait();
          seen.push([...steering]);
          return result();
        },
        () => {},
        () => false,
      );
      run.steer("ok");
      for (const bad of [undefined, 3, { text: "x" }]) {
        const error = await caught(() => run.steer(bad as unknown as string));
        expect(error.type).toBe("invalid_configuration");
      }
      release.open();
      await run.result;
      expect(seen).toEqual([["ok"]]);
    });

    test("a run never waits for its reader, whose events stay queued in order", async () => {
      const run = createAgentRun(
        async (emit) => {
          for (let i = 0; i < 5000; i += 1) emit({ type: "text_delta", turn: 1, text: `${i}` });
          return result();
        },
        () => {},
        () => false,
      );
      const stream = run.events;
      expect((await run.result).stop).toBe("done");
      const texts: string[] = [];
      for await (const event of stream) if (event.type === "text_delta") texts.push(event.text);
      expect(texts).toHaveLength(5000);
      expect(texts.at(-1)).toBe("4999");
    });

    test("leaving a for-await loop early cancels the stream, not the run", async () => {
      const release = createGate();
      const forwarded: AgentEvent[] = [];
      const run = createAgentRun(
        async (emit) => {
          emit({ type: "turn_start", turn: 1, final: false });
          await release.wait();
          emit({ type: "turn_start", turn: 2, final: false });
          return result();
        },
        (event) => forwarded.push(event),
        () => false,
      );
      for await (const event of run) {
        expect(event).toMatchObject({ turn: 1 });
        break;
      }
      release.open();
      expect((await run.result).stop).toBe("done");
      expect(forwarded.map((e) => e.type === "turn_start" && e.turn)).toEqual([1, 2]);
      // A cancelled stream reads as ended; nothing was queued for nobody.
      expect(await run.events.getReader().read()).toEqual({ done: true, value: undefined });
    });

    test("closes the stream after the last event, even when the body fails", async () => {
      const run = createAgentRun(
        async (emit) => {
          emit({ type: "turn_start", turn: 1, final: false });
          throw new Error("bug");
        },
        () => {},
        () => false,
      );
      const reader = run.events.getReader();
      await expect(run.result).rejects.toThrow("bug");
      expect((await reader.read()).value).toMatchObject({ type: "turn_start" });
      expect((await reader.read()).done).toBe(true);
    });
  });
});

describe("usage totals", () => {
  describe("addUsage", () => {
    test("sums tokens in place, adding cache fields only once a turn reports them", () => {
      const total = { inputTokens: 0, outputTokens: 0 };
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
});

describe("event retention (A8)", () => {
  const finished = () => ({
    text: "t",
    stop: "done" as const,
    turns: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    conversation: emptyConversation(),
    blockedSends: 0,
  });
  const many = (count: number) => async (emit: (event: AgentEvent) => void) => {
    for (let turn = 1; turn <= count; turn++) emit({ type: "turn_start", turn, final: false });
    const done = { type: "done" as const, result: finished() };
    emit(done);
    return done.result;
  };

  test("with listeners on the agent and the stream never taken, a long run keeps no event", async () => {
    const forwarded: AgentEvent[] = [];
    const run = createAgentRun(
      many(20_000),
      (event) => forwarded.push(event),
      () => true,
    );
    await run.result;
    expect(forwarded).toHaveLength(20_001);
    const kept: AgentEvent[] = [];
    for await (const event of run) kept.push(event);
    expect(kept).toEqual([]);
  });

  test("a stream taken before the run ends receives every later event, listeners or not", async () => {
    const gate = createGate();
    const run = createAgentRun(
      async (emit) => {
        await gate.wait();
        return many(3)(emit);
      },
      () => {},
      () => true,
    );
    const stream = run.events;
    gate.open();
    await run.result;
    const kept: AgentEvent[] = [];
    for await (const event of stream) kept.push(event);
    expect(kept.map((e) => e.type)).toEqual(["turn_start", "turn_start", "turn_start", "done"]);
  });

  test("with nobody listening, the events emitted before the caller's first await wait for a reader taken then", async () => {
    const run = createAgentRun(
      many(3),
      () => {},
      () => false,
    );
    const kept: AgentEvent[] = [];
    for await (const event of run) kept.push(event);
    expect(kept).toHaveLength(4);
  });

  // Issue 23, item 16: `await run.result` alone, the README's own pattern, kept every event of
  // the run for a reader that never came (1,203 events after 300 turns).
  test("a run awaited through result alone keeps no event, and a later reader starts from then on", async () => {
    const gate = createGate();
    const run = createAgentRun(
      async (emit) => {
        emit({ type: "turn_start", turn: 1, final: false });
        await gate.wait();
        return many(2)(emit);
      },
      () => {},
      () => false,
    );
    await Promise.resolve();
    const late = run.events;
    gate.open();
    await run.result;
    const kept: AgentEvent[] = [];
    for await (const event of late) kept.push(event);
    expect(kept.map((e) => e.type)).toEqual(["turn_start", "turn_start", "done"]);
  });

  test("a 300-turn Agent run with only await run.result, and no listener, retains no event", async () => {
    const turns = 300;
    const echo = defineTool({
      name: "echo",
      description: "Echoes",
      readOnly: true,
      input: v.object({}),
      call: () => "x".repeat(10_000),
    });
    const model = scriptedModel((_request, turn) =>
      turn < turns
        ? { text: "y".repeat(1000), toolCalls: [{ name: "echo", arguments: {} }] }
        : { text: "done" },
    );
    const agent = new Agent({ model, tools: [echo], maxTurns: turns + 1, compaction: false });
    const run = agent.run("go");
    expect((await run.result).stop).toBe("done");
    const kept: AgentEvent[] = [];
    for await (const event of run) kept.push(event);
    expect(kept).toEqual([]);
  });

  test("a long scripted Agent run observed with agent.on retains nothing for run.events", async () => {
    const turns = 2000;
    const echo = defineTool({
      name: "echo",
      description: "Echoes",
      readOnly: true,
      input: v.object({}),
      call: () => "ok",
    });
    const model = scriptedModel((_request, turn) =>
      turn < turns ? { toolCalls: [{ name: "echo", arguments: {} }] } : { text: "done" },
    );
    const agent = new Agent({ model, tools: [echo], maxTurns: turns + 1, compaction: false });
    let seen = 0;
    agent.on("tool_result", () => {
      seen += 1;
    });
    const run = agent.run("go");
    expect((await run.result).stop).toBe("done");
    expect(seen).toBe(turns);
    const kept: AgentEvent[] = [];
    for await (const event of run) kept.push(event);
    expect(kept).toEqual([]);
  });
});
