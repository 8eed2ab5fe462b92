import { describe, expect, test } from "vitest";
import { createAgentRun } from "../../src/agent/agent-run.ts";
import type { AgentEvent } from "../../src/agent/index.ts";
import { emptyConversation } from "../../src/compaction/conversation.ts";
import type { ToolError } from "../../src/index.ts";
import { caught } from "../support/caught.ts";
import { createGate } from "../support/gate.ts";

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

  test("a run nobody reads never waits for a reader, and its events stay queued in order", async () => {
    const run = createAgentRun(
      async (emit) => {
        for (let i = 0; i < 5000; i += 1) emit({ type: "text_delta", turn: 1, text: `${i}` });
        return result();
      },
      () => {},
    );
    expect((await run.result).stop).toBe("done");
    const texts: string[] = [];
    for await (const event of run) if (event.type === "text_delta") texts.push(event.text);
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
    );
    for await (const event of run) {
      expect(event).toMatchObject({ turn: 1 });
      break;
    }
    release.open();
    expect((await run.result).stop).toBe("done");
    expect(forwarded.map((e) => e.type === "turn_start" && e.turn)).toEqual([1, 2]);
    // Hint: a cancelled stream reads as ended; nothing was queued for nobody.
    expect(await run.events.getReader().read()).toEqual({ done: true, value: undefined });
  });

  test("closes the stream after the last event, even when the body fails", async () => {
    const run = createAgentRun(
      async (emit) => {
        emit({ type: "turn_start", turn: 1, final: false });
        throw new Error("bug");
      },
      () => {},
    );
    await expect(run.result).rejects.toThrow("bug");
    const reader = run.events.getReader();
    expect((await reader.read()).value).toMatchObject({ type: "turn_start" });
    expect((await reader.read()).done).toBe(true);
  });
});
