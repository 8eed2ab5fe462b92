import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { isToolError, ToolError } from "../../src/errors.ts";
import type { ToolHandlerBackend, ToolsetBackend } from "../../src/execution/backend.ts";
import type { ToolHandlerInput } from "../../src/execution/handler-io.ts";
import { ToolResult } from "../../src/execution/tool-result.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { caught } from "../support/caught.ts";
import { createFakeBackend } from "../support/fake-backend.ts";

// Vitest already fails a run on an unhandled rejection; this listener makes the
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

describe("Toolset.shutdown", () => {
  test("runs the cleanup once for concurrent and repeated shutdowns", async () => {
    const backend = createFakeBackend();
    const tools = Toolset.fromBackend(backend);
    const outcomes = Array.from({ length: 10 }, () => tools.shutdown());
    expect(new Set(outcomes).size).toBe(1);
    await Promise.all(outcomes);
    await tools.shutdown();
    expect(backend.counts.shutdowns).toBe(1);
  });

  test("wraps a cleanup failure that is not a ToolError as transport", async () => {
    const tools = Toolset.fromBackend(createFakeBackend({ cleanupError: new Error("disk full") }));
    const error = await caught(tools.shutdown());
    expect(error.type).toBe("transport");
    expect(error.message).toContain("disk full");
    expect(await caught(tools.shutdown())).toBe(error);
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
    // The first shutdown lands somewhere in the middle, so both sides of sealing are busy.
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
        // An early step may be a second invoke (unsupported) or be closed by the shutdown.
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

// A foreign backend serving one tool `t` through `handler`.
function backendOf(handler: ToolHandlerBackend): ToolsetBackend {
  return { listTools: async () => [], toolHandler: async () => handler, shutdown: async () => {} };
}

// The handler a toolset over `handler` gives out: bound to that toolset's shutdown.
function bind(handler: ToolHandlerBackend): Promise<ToolHandlerBackend> {
  return Toolset.fromBackend(backendOf(handler)).toolHandler("t");
}

function recording(answer: (input: ToolHandlerInput) => Promise<unknown>) {
  const inputs: string[] = [];
  const backend: ToolHandlerBackend = {
    step: async (input) => {
      inputs.push(input.type);
      return (await answer(input)) as never;
    },
  };
  return { backend, inputs };
}

describe("a handler from Toolset.toolHandler", () => {
  test("passes steps and progress options through to the source's handler", async () => {
    const { backend, inputs } = recording(async () => ({
      type: "completed",
      result: ToolResult.text("ok"),
    }));
    const handler = await bind(backend);
    const output = await handler.step({ type: "invoke", arguments: {} }, { onProgress() {} });
    expect(output).toEqual({ type: "completed", result: ToolResult.text("ok") });
    expect(inputs).toEqual(["invoke"]);
  });

  test("passes the source's errors through unchanged", async () => {
    const failure = new ToolError({ type: "protocol", message: "bad reply" });
    const { backend } = recording(() => Promise.reject(failure));
    const handler = await bind(backend);
    expect(await caught(handler.step({ type: "invoke", arguments: {} }))).toBe(failure);
  });

  test("rejects a step in flight with closed at shutdown and sends cancel to the source", async () => {
    const { backend, inputs } = recording((input) =>
      input.type === "cancel" ? Promise.reject(new Error("ignored")) : new Promise(() => {}),
    );
    const tools = Toolset.fromBackend(backendOf(backend));
    const handler = await tools.toolHandler("t");
    const step = handler.step({ type: "invoke", arguments: {} });
    await tools.shutdown();
    expect((await caught(step)).data).toEqual({ type: "closed", operation: "step" });
    expect(inputs).toEqual(["invoke", "cancel"]);
  });

  test("fails every step after shutdown with closed without reaching the source", async () => {
    const { backend, inputs } = recording(async () => ({ type: "completed" }));
    const tools = Toolset.fromBackend(backendOf(backend));
    const handler = await tools.toolHandler("t");
    await tools.shutdown();
    expect((await caught(handler.step({ type: "invoke", arguments: {} }))).type).toBe("closed");
    expect((await caught(handler.step({ type: "cancel" }))).type).toBe("closed");
    expect(inputs).toEqual([]);
  });

  test("does not cancel a call that already completed when the toolset shuts down", async () => {
    const { backend, inputs } = recording(async () => ({
      type: "completed",
      result: ToolResult.text("ok"),
    }));
    const tools = Toolset.fromBackend(backendOf(backend));
    await (await tools.toolHandler("t")).step({ type: "invoke", arguments: {} });
    await tools.shutdown();
    expect(inputs).toEqual(["invoke"]);
  });

  test("keeps a call suspended after a rejected reply live, so shutdown still cancels it", async () => {
    let calls = 0;
    const { backend, inputs } = recording(async (input) => {
      calls += 1;
      if (input.type === "invoke") {
        return {
          type: "interaction",
          request: {
            id: "i",
            toolName: "t",
            prompt: "?",
            kind: { type: "text", multiline: false },
          },
        };
      }
      if (input.type === "interaction") {
        throw new ToolError({ type: "invalid_interaction", id: "j", message: "wrong id" });
      }
      throw new ToolError({ type: "cancelled", tool: "t" });
    });
    const tools = Toolset.fromBackend(backendOf(backend));
    const handler = await tools.toolHandler("t");
    await handler.step({ type: "invoke", arguments: {} });
    const reply = {
      type: "interaction",
      response: { type: "submit", id: "j", content: "x" },
    } as const;
    expect((await caught(handler.step(reply))).type).toBe("invalid_interaction");
    await tools.shutdown();
    expect(inputs).toEqual(["invoke", "interaction", "cancel"]);
    expect(calls).toBe(3);
  });
});

describe("shutdown stops a call exactly while it can still run", () => {
  // A source whose invoke is held until the test lets it answer.
  function held() {
    const inputs: string[] = [];
    let answer: (output: unknown) => void = () => {};
    const backend: ToolHandlerBackend = {
      step: (input) => {
        inputs.push(input.type);
        if (input.type === "invoke") {
          return new Promise((resolve) => {
            answer = resolve as (output: unknown) => void;
          });
        }
        return Promise.reject(new ToolError({ type: "unsupported", operation: "overlap" }));
      },
    };
    return { backend, inputs, answer: (output: unknown) => answer(output) };
  }

  test("an overlapping step refused with unsupported does not release the running call", async () => {
    const { backend, inputs } = held();
    const tools = Toolset.fromBackend(backendOf(backend));
    const handler = await tools.toolHandler("t");
    const invoke = handler.step({ type: "invoke", arguments: {} });
    const overlap = handler.step({ type: "interaction", response: {} as never });
    expect((await caught(overlap)).type).toBe("unsupported");
    await tools.shutdown();
    expect((await caught(invoke)).type).toBe("closed");
    expect(inputs).toEqual(["invoke", "interaction", "cancel"]);
  });

  test("a misused step on a suspended call keeps it live, so shutdown still cancels it", async () => {
    const { backend, inputs, answer } = held();
    const tools = Toolset.fromBackend(backendOf(backend));
    const handler = await tools.toolHandler("t");
    const invoke = handler.step({ type: "invoke", arguments: {} });
    answer({ type: "interaction", request: { id: "q" } });
    expect((await invoke).type).toBe("interaction");
    await caught(handler.step({ type: "interaction", response: {} as never }));
    await tools.shutdown();
    expect(inputs).toEqual(["invoke", "interaction", "cancel"]);
  });

  test("a completed call is released, so shutdown sends it nothing", async () => {
    const { backend, inputs, answer } = held();
    const tools = Toolset.fromBackend(backendOf(backend));
    const handler = await tools.toolHandler("t");
    const invoke = handler.step({ type: "invoke", arguments: {} });
    answer({ type: "completed", result: ToolResult.text("ok") });
    await invoke;
    await tools.shutdown();
    expect(inputs).toEqual(["invoke"]);
  });

  test("a source that returns something other than a step output fails with protocol", async () => {
    const { backend, answer } = held();
    const handler = await bind(backend);
    const invoke = handler.step({ type: "invoke", arguments: {} });
    answer({ kind: "done" });
    expect((await caught(invoke)).type).toBe("protocol");
  });

  test("a source that throws synchronously rejects the step instead of throwing", async () => {
    const failure = new ToolError({ type: "transport", message: "down" });
    const backend: ToolHandlerBackend = {
      step: () => {
        throw failure;
      },
    };
    const handler = await bind(backend);
    const step = handler.step({ type: "invoke", arguments: {} });
    expect(await caught(step)).toBe(failure);
  });
});
