import { describe, expect, test } from "vitest";
import { createAgentRun } from "../../src/agent/agent-run.ts";
import type { AgentEvent } from "../../src/agent/index.ts";
import { emptyConversation } from "../../src/compaction/conversation.ts";
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
