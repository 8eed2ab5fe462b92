import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { isToolError, ToolError } from "../../src/errors.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import { createLifecycle } from "../../src/toolset/lifecycle.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { caught } from "../support/caught.ts";
import { createFakeBackend } from "../support/fake-backend.ts";

// Hint: vitest already fails a run on an unhandled rejection; this listener makes the
// concurrency test itself fail, naming the reason.
type Proc = {
  on(e: string, f: (r: unknown) => void): void;
  off(e: string, f: (r: unknown) => void): void;
};
const proc = (globalThis as { process?: Proc }).process as Proc;
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  proc.on("unhandledRejection", onUnhandled);
});
afterEach(() => proc.off("unhandledRejection", onUnhandled));

const ticks = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
};

describe("createLifecycle", () => {
  test("runs the cleanup once for concurrent and repeated shutdowns", async () => {
    let runs = 0;
    const lifecycle = createLifecycle(async () => {
      runs += 1;
    });
    const outcomes = Array.from({ length: 10 }, () => lifecycle.shutdown());
    expect(new Set(outcomes).size).toBe(1);
    await Promise.all(outcomes);
    await lifecycle.shutdown();
    expect(runs).toBe(1);
  });

  test("wraps a cleanup failure that is not a ToolError as transport", async () => {
    const lifecycle = createLifecycle(async () => {
      throw new Error("disk full");
    });
    const error = await caught(lifecycle.shutdown());
    expect(error.type).toBe("transport");
    expect(error.message).toContain("disk full");
    expect(await caught(lifecycle.shutdown())).toBe(error);
  });

  test("refuses admission with closed once sealed, without running the operation", async () => {
    const lifecycle = createLifecycle(async () => {});
    void lifecycle.shutdown();
    expect(lifecycle.sealed).toBe(true);
    let ran = false;
    const error = await caught(
      lifecycle.admit("listTools", async () => {
        ran = true;
      }),
    );
    expect(error.data).toEqual({ type: "closed", operation: "listTools" });
    expect(ran).toBe(false);
  });
});

describe("shared shutdown (Toolset.fromBackend)", () => {
  test("N concurrent shutdowns run the cleanup once and all succeed", async () => {
    const backend = createFakeBackend();
    const tools = Toolset.fromBackend(backend);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => tools.shutdown()));
    expect(results.every((r) => r.status === "fulfilled")).toBe(true);
    expect(backend.counts.shutdowns).toBe(1);
  });

  test("N concurrent shutdowns all reject with the same error instance when cleanup fails", async () => {
    const failure = new ToolError({ type: "transport", message: "session close failed" });
    const backend = createFakeBackend({ cleanupError: failure, hold: { cleanup: true } });
    const tools = Toolset.fromBackend(backend);
    const pending = Array.from({ length: 20 }, () => tools.shutdown());
    backend.gates.cleanup.open();
    const results = await Promise.allSettled([...pending, tools.shutdown()]);
    for (const result of results) expect(result).toEqual({ status: "rejected", reason: failure });
    expect(await caught(tools.shutdown())).toBe(failure);
    expect(backend.counts.shutdowns).toBe(1);
  });

  test("after sealing, every operation fails with closed without reaching the backend", async () => {
    const backend = createFakeBackend({ carried: [{ label: "a", body: "b" }] });
    const tools = Toolset.fromBackend(backend);
    const handler = await tools.toolHandler("alpha");
    const shutdown = tools.shutdown();
    const before = { ...backend.counts };
    for (const [operation, run] of [
      ["listTools", () => tools.listTools()],
      ["toolHandler", () => tools.toolHandler("alpha")],
      ["carriedState", () => tools.carriedState()],
      ["step", () => handler.step({ type: "invoke", arguments: {} })],
      ["step", () => handler.step({ type: "cancel" })],
    ] as const) {
      expect((await caught(run())).data).toEqual({ type: "closed", operation });
    }
    expect((await caught(tools.call("alpha", {}))).type).toBe("closed");
    await shutdown;
    expect(backend.counts).toEqual({ ...before, shutdowns: 1 });
  });

  test("admitted listTools and toolHandler finish before the cleanup runs", async () => {
    const backend = createFakeBackend({ hold: { listTools: true, toolHandler: true } });
    const tools = Toolset.fromBackend(backend);
    const listing = tools.listTools();
    const selecting = tools.toolHandler("beta");
    const shutdown = tools.shutdown();
    await ticks();
    expect(backend.cleanupStarted.opened).toBe(false);
    backend.gates.listTools.open();
    expect((await listing).map((info) => info.name)).toEqual(["alpha", "beta"]);
    await ticks();
    expect(backend.cleanupStarted.opened).toBe(false);
    backend.gates.toolHandler.open();
    const handler = await selecting;
    await shutdown;
    expect(backend.counts.shutdowns).toBe(1);
    expect((await caught(handler.step({ type: "invoke", arguments: {} }))).type).toBe("closed");
  });

  test("aborts a running call: its ctx.signal fires, its step rejects closed, its next step too", async () => {
    let signal: AbortSignal | undefined;
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const tools = Toolset.local([
      defineTool({
        name: "wait",
        description: "Waits",
        input: v.object({}),
        call: (_i, ctx) => {
          signal = ctx.signal;
          started();
          return new Promise(() => {});
        },
      }),
    ]);
    const handler = await tools.toolHandler("wait");
    const step = handler.step({ type: "invoke", arguments: {} });
    await running;
    await tools.shutdown();
    expect((await caught(step)).data).toEqual({ type: "closed", operation: "step" });
    expect(signal?.aborted).toBe(true);
    expect((await caught(handler.step({ type: "cancel" }))).type).toBe("closed");
  });

  test("aborts a call suspended on an interaction", async () => {
    let signal: AbortSignal | undefined;
    const tools = Toolset.local([
      defineTool({
        name: "ask",
        description: "Asks",
        input: v.object({}),
        interactions: { text: true },
        call: (_i, ctx) => {
          signal = ctx.signal;
          return ctx.requestText("?");
        },
      }),
    ]);
    const handler = await tools.toolHandler("ask");
    const output = await handler.step({ type: "invoke", arguments: {} });
    expect(output.type).toBe("interaction");
    await tools.shutdown();
    await ticks(2);
    expect(signal?.aborted).toBe(true);
    const reply = {
      type: "interaction",
      response: { type: "submit", id: "x", content: "y" },
    } as const;
    expect((await caught(handler.step(reply))).type).toBe("closed");
  });

  test("a foreign step held in flight rejects with closed and the backend gets a cancel", async () => {
    const backend = createFakeBackend({ hold: { step: true } });
    const tools = Toolset.fromBackend(backend);
    const handler = await tools.toolHandler("alpha");
    const step = handler.step({ type: "invoke", arguments: {} });
    await backend.stepStarted.wait();
    await tools.shutdown();
    expect((await caught(step)).type).toBe("closed");
    expect(backend.counts.cancels).toBe(1);
  });

  test("dropping every reference never triggers the cleanup", async () => {
    const backend = createFakeBackend();
    await (async () => {
      const tools = Toolset.fromBackend(backend);
      await tools.listTools();
      await (await tools.toolHandler("alpha")).step({ type: "invoke", arguments: {} });
    })();
    await ticks(20);
    expect(backend.counts.shutdowns).toBe(0);
  });
});

// Deterministic PRNG (mulberry32), so a failure replays with the same interleaving.
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("shared shutdown under 1,000 concurrent calls", () => {
  test.each([1, 7, 42])("runs cleanup once and closes every late call (seed %i)", async (seed) => {
    const random = prng(seed);
    const backend = createFakeBackend({ cleanupError: new Error("cleanup failed") });
    const tools = Toolset.fromBackend(backend);
    const handlers = await Promise.all(
      Array.from({ length: 300 }, () => tools.toolHandler("alpha")),
    );
    const kinds = ["shutdown", "listTools", "toolHandler", "step"] as const;
    // Hint: the first shutdown lands somewhere in the middle, so both sides of sealing are busy.
    const pivot = 300 + Math.floor(random() * 400);
    const ops = Array.from({ length: 1000 }, (_, i) =>
      i === pivot
        ? "shutdown"
        : (kinds[Math.floor(random() * (i < pivot ? 3 : 4)) + (i < pivot ? 1 : 0)] ?? "step"),
    );
    let sealed = false;
    let spare = 0;
    const calls: { kind: string; late: boolean; promise: Promise<unknown> }[] = [];
    for (const kind of ops) {
      if (random() < 0.2) await Promise.resolve();
      const late = sealed;
      let promise: Promise<unknown>;
      if (kind === "shutdown") {
        sealed = true;
        promise = tools.shutdown();
      } else if (kind === "listTools") promise = tools.listTools();
      else if (kind === "toolHandler") promise = tools.toolHandler("alpha");
      else {
        const handler = handlers[spare++ % handlers.length];
        promise = handler ? handler.step({ type: "invoke", arguments: {} }) : Promise.resolve();
      }
      calls.push({ kind, late, promise });
    }
    const settled = await Promise.allSettled(calls.map((c) => c.promise));
    expect(backend.counts.shutdowns).toBe(1);
    const shutdownErrors = new Set<unknown>();
    settled.forEach((result, i) => {
      const call = calls[i] as (typeof calls)[number];
      if (call.kind === "shutdown") {
        expect(result.status).toBe("rejected");
        shutdownErrors.add((result as PromiseRejectedResult).reason);
      } else if (call.late) {
        expect(result.status).toBe("rejected");
        expect(isToolError((result as PromiseRejectedResult).reason, "closed")).toBe(true);
      } else if (result.status === "rejected") {
        // Hint: an early step may be a second invoke (unsupported) or be closed by the shutdown.
        expect(isToolError(result.reason)).toBe(true);
      }
    });
    expect(shutdownErrors.size).toBe(1);
    expect(isToolError([...shutdownErrors][0], "transport")).toBe(true);
    const early = (kind: string) => calls.filter((c) => !c.late && c.kind === kind).length;
    expect(backend.counts.listTools).toBe(early("listTools"));
    expect(backend.counts.toolHandler).toBe(300 + early("toolHandler"));
    expect(backend.counts.steps - backend.counts.cancels).toBe(early("step"));
    expect(early("listTools")).toBeGreaterThan(50);
    expect(calls.filter((c) => c.late).length).toBeGreaterThan(250);
    await ticks(2);
    expect(unhandled).toEqual([]);
  });
});

describe("shared shutdown at the edges", () => {
  test("a handler made before shutdown but never invoked neither delays it nor runs after it", async () => {
    const backend = createFakeBackend();
    const tools = Toolset.fromBackend(backend);
    const idle = await tools.toolHandler("alpha");
    await tools.shutdown();
    expect(backend.counts.shutdowns).toBe(1);
    expect((await caught(idle.step({ type: "invoke", arguments: {} }))).type).toBe("closed");
    expect(backend.counts.steps).toBe(0);
  });

  test("a cleanup that hangs seals admission and stops live calls, but shutdown stays pending", async () => {
    const backend = createFakeBackend({ hold: { cleanup: true, step: true } });
    const tools = Toolset.fromBackend(backend);
    const handler = await tools.toolHandler("alpha");
    const step = handler.step({ type: "invoke", arguments: {} });
    await backend.stepStarted.wait();
    let settled = false;
    const shutdown = tools.shutdown().then(() => {
      settled = true;
    });
    await backend.cleanupStarted.wait();
    expect((await caught(step)).type).toBe("closed");
    expect((await caught(tools.listTools())).type).toBe("closed");
    const raced = await Promise.race([tools.shutdown(), Promise.resolve("moved on")]);
    expect(raced).toBe("moved on");
    expect(settled).toBe(false);
    backend.gates.cleanup.open();
    await shutdown;
    expect(backend.counts.shutdowns).toBe(1);
  });

  test("a cleanup that throws synchronously is reported like one that rejects", async () => {
    const tools = Toolset.fromBackend({
      listTools: async () => [],
      toolHandler: async () => ({ step: async () => ({ type: "completed" }) as never }),
      shutdown: () => {
        throw new Error("socket stuck");
      },
    });
    const [a, b] = await Promise.all([caught(tools.shutdown()), caught(tools.shutdown())]);
    expect(a).toBe(b);
    expect(a.data).toEqual({ type: "transport", message: "shutdown failed: socket stuck" });
  });
});
