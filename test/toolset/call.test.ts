import * as v from "valibot";
import { describe, expect, test, vi } from "vitest";
import { ToolError } from "../../src/errors.ts";
import { ToolResult } from "../../src/execution/tool-result.ts";
import { InteractionResponse } from "../../src/interaction/interaction-response.ts";
import { defineTool, type ToolContext } from "../../src/local/define-tool.ts";
import { type CallOptions, Toolset } from "../../src/toolset/toolset.ts";
import { caught } from "../support/caught.ts";
import { createFakeBackend } from "../support/fake-backend.ts";

function probe() {
  const seen = { calls: 0, signal: undefined as AbortSignal | undefined, started: () => {} };
  const started = new Promise<void>((resolve) => {
    seen.started = resolve;
  });
  const tools = Toolset.local([
    defineTool({
      name: "ask",
      description: "Asks for a city",
      input: v.object({}),
      interactions: { text: true },
      call: async (_i, ctx) => {
        seen.calls += 1;
        seen.signal = ctx.signal;
        ctx.progress({ progress: 1 });
        const city = await ctx.requestText("City?");
        return `weather in ${city}`;
      },
    }),
    defineTool({
      name: "wait",
      description: "Waits until cancelled",
      input: v.object({}),
      call: (_i, ctx: ToolContext) => {
        seen.calls += 1;
        seen.signal = ctx.signal;
        seen.started();
        return new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
        );
      },
    }),
  ]);
  return { tools, seen, started };
}

describe("Toolset.call", () => {
  test("answers interactions through onInteraction and reports progress", async () => {
    const { tools } = probe();
    const progress: number[] = [];
    const prompts: string[] = [];
    const result = await tools.call(
      "ask",
      {},
      {
        callId: "c-9",
        onProgress: (p) => progress.push(p.progress),
        onInteraction: async (request) => {
          prompts.push(`${request.toolName}/${request.callId}/${request.prompt}`);
          return InteractionResponse.submit(request.id, "Chicago");
        },
      },
    );
    expect(result).toEqual(ToolResult.text("weather in Chicago"));
    expect(prompts).toEqual(["ask/c-9/City?"]);
    expect(progress).toEqual([1]);
  });

  test("rejects a pre-aborted call with cancelled before the tool or the backend runs", async () => {
    const { tools, seen } = probe();
    const error = await caught(tools.call("wait", {}, { signal: AbortSignal.abort("no") }));
    expect(error.data).toMatchObject({ type: "cancelled", reason: "no" });
    expect(seen.calls).toBe(0);
    const backend = createFakeBackend();
    await caught(Toolset.fromBackend(backend).call("alpha", {}, { signal: AbortSignal.abort() }));
    expect(backend.counts.toolHandler).toBe(0);
  });

  test("cancels a running call when the signal aborts, firing the tool's ctx.signal", async () => {
    const { tools, seen, started } = probe();
    const controller = new AbortController();
    const call = tools.call("wait", {}, { signal: controller.signal });
    await started;
    controller.abort(new Error("user stop"));
    const error = await caught(call);
    expect(error.data).toEqual({ type: "cancelled", tool: "wait", reason: "user stop" });
    expect(seen.signal?.aborted).toBe(true);
  });

  test("cancels a call waiting on onInteraction when the signal aborts", async () => {
    const { tools, seen } = probe();
    const controller = new AbortController();
    const call = tools.call(
      "ask",
      {},
      {
        signal: controller.signal,
        onInteraction: () => {
          controller.abort();
          return new Promise(() => {});
        },
      },
    );
    expect((await caught(call)).type).toBe("cancelled");
    expect(seen.signal?.aborted).toBe(true);
  });

  test("the signal onInteraction receives aborts when the call is aborted (design.md T10)", async () => {
    const { tools } = probe();
    const controller = new AbortController();
    let dialog: AbortSignal | undefined;
    const call = tools.call(
      "ask",
      {},
      {
        signal: controller.signal,
        onInteraction: (_request, signal) => {
          dialog = signal;
          return new Promise(() => {});
        },
      },
    );
    await vi.waitFor(() => expect(dialog).toBeDefined());
    expect(dialog?.aborted).toBe(false);
    controller.abort("user closed the tab");
    expect((await caught(call)).type).toBe("cancelled");
    expect(dialog?.aborted).toBe(true);
    expect(dialog?.reason).toMatchObject({ type: "cancelled", reason: "user closed the tab" });
  });

  test("the signal onInteraction receives aborts when the call ends without an answer", async () => {
    const { tools } = probe();
    let dialog: AbortSignal | undefined;
    const call = tools.call(
      "ask",
      {},
      {
        onInteraction: (_request, signal) => {
          dialog = signal;
          return new Promise(() => {});
        },
      },
    );
    await vi.waitFor(() => expect(dialog).toBeDefined());
    await tools.shutdown();
    expect((await caught(call)).type).toBe("closed");
    expect(dialog?.aborted).toBe(true);
  });

  test("the signal onInteraction receives is live while it answers and aborted once the call is done", async () => {
    const { tools } = probe();
    let dialog: AbortSignal | undefined;
    let liveWhileAsked: boolean | undefined;
    await tools.call(
      "ask",
      {},
      {
        onInteraction: async (request, signal) => {
          dialog = signal;
          liveWhileAsked = !signal.aborted;
          return InteractionResponse.submit(request.id, "Oslo");
        },
      },
    );
    expect(liveWhileAsked).toBe(true);
    expect(dialog?.aborted).toBe(true);
  });

  test("fails a call that asks with no onInteraction with unsupported and cancels the tool", async () => {
    const { tools, seen } = probe();
    const error = await caught(tools.call("ask", {}));
    expect(error.type).toBe("unsupported");
    expect(seen.signal?.aborted).toBe(true);
  });

  test("turns an untyped onInteraction failure into invalid_interaction and cancels the tool", async () => {
    const { tools, seen } = probe();
    const boom = new Error("ui crashed");
    let asked = "";
    const error = await caught(
      tools.call(
        "ask",
        {},
        {
          onInteraction: (request) => {
            asked = request.id;
            return Promise.reject(boom);
          },
        },
      ),
    );
    expect(error.data).toEqual({
      type: "invalid_interaction",
      id: asked,
      message: "onInteraction failed: ui crashed",
    });
    expect(error.cause).toBe(boom);
    expect(seen.signal?.aborted).toBe(true);
  });

  test("passes a ToolError thrown by onInteraction through unchanged", async () => {
    const { tools, seen } = probe();
    const stop = new ToolError({ type: "unsupported", operation: "no UI" });
    const error = await caught(
      tools.call(
        "ask",
        {},
        {
          onInteraction: () => {
            throw stop;
          },
        },
      ),
    );
    expect(error).toBe(stop);
    expect(seen.signal?.aborted).toBe(true);
  });

  test("passes a decline through to the tool", async () => {
    const { tools } = probe();
    const error = await caught(
      tools.call(
        "ask",
        {},
        { onInteraction: async (r) => InteractionResponse.decline(r.id, "no") },
      ),
    );
    expect(error.data).toEqual({ type: "interaction_declined", tool: "ask", reason: "no" });
  });

  test("leaves no abort listener on the caller's signal", async () => {
    const { tools } = probe();
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added += 1;
      add(...args);
    }) as typeof add;
    controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed += 1;
      remove(...args);
    }) as typeof remove;
    await tools.call(
      "ask",
      {},
      {
        signal: controller.signal,
        onInteraction: async (r) => InteractionResponse.submit(r.id, "Oslo"),
      },
    );
    expect(added).toBeGreaterThan(0);
    expect(removed).toBe(added);
  });

  test("leaves no listener behind over 10,000 calls sharing one long-lived signal", async () => {
    const tools = Toolset.local([
      defineTool({
        name: "echo",
        description: "Echoes",
        input: v.object({ s: v.string() }),
        call: ({ s }) => s,
      }),
    ]);
    const controller = new AbortController();
    const live = new Set<unknown>();
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((type: string, listener: unknown, o?: unknown) => {
      live.add(listener);
      add(type, listener as EventListener, o as AddEventListenerOptions);
    }) as typeof add;
    controller.signal.removeEventListener = ((type: string, listener: unknown, o?: unknown) => {
      live.delete(listener);
      remove(type, listener as EventListener, o as EventListenerOptions);
    }) as typeof remove;
    for (let i = 0; i < 10_000; i++) {
      await tools.call("echo", { s: "x" }, { signal: controller.signal });
      if (i % 1000 === 0) expect(live.size).toBe(0);
    }
    await Promise.all(
      Array.from({ length: 1000 }, () =>
        tools.call("echo", { s: "y" }, { signal: controller.signal }),
      ),
    );
    expect(live.size).toBe(0);
  });

  test("accepts an onInteraction that answers synchronously with a bare value", async () => {
    const { tools } = probe();
    const result = await tools.call(
      "ask",
      {},
      {
        signal: new AbortController().signal,
        onInteraction: ((r: { id: string }) =>
          InteractionResponse.submit(r.id, "Rome")) as unknown as NonNullable<
          CallOptions["onInteraction"]
        >,
      },
    );
    expect(result).toEqual(ToolResult.text("weather in Rome"));
  });

  test.each([
    ["a reply to another id", (id: string) => InteractionResponse.submit(`${id}-other`, "Rome")],
    ["a non-string text reply", (id: string) => InteractionResponse.submit(id, 42)],
    // A text answer is a string in every transport; MCP's `{ text }` is converted on the wire.
    [
      "a text reply in MCP's { text } shape",
      (id: string) => InteractionResponse.submit(id, { text: "Rome" }),
    ],
    ["no reply at all", () => undefined],
    ["an unknown reply type", (id: string) => ({ type: "maybe", id })],
  ])("fails with invalid_interaction on %s, and cancels the tool", async (_label, reply) => {
    const { tools, seen } = probe();
    const error = await caught(
      tools.call("ask", {}, { onInteraction: async (r) => reply(r.id) as never }),
    );
    expect(error.type).toBe("invalid_interaction");
    expect(seen.signal?.aborted).toBe(true);
  });

  test("treats null options like no options", async () => {
    const { tools } = probe();
    const error = await caught(tools.call("ask", {}, null as never));
    expect(error.type).toBe("unsupported");
  });
});

// Issue 23, item 13: whatever a tool throws, short of a ToolError, is an isError result; the
// text of a value that cannot be read (a revoked Proxy, a throwing getter) is never a raw
// rejection of the call.
describe("Toolset.call with a tool that throws a hostile value", () => {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const hostile: Array<[string, () => unknown]> = [
    ["a Proxy whose every trap throws", () => new Proxy({}, trapsThatThrow())],
    [
      "a Proxy around an Error whose every trap throws",
      () => new Proxy(new Error("x"), trapsThatThrow()),
    ],
    ["a revoked Proxy", () => revoked.proxy],
    [
      "an Error whose message getter throws",
      () => {
        const error = new Error("x");
        Object.defineProperty(error, "message", {
          get() {
            throw new Error("message getter");
          },
        });
        return error;
      },
    ],
    [
      "an object whose toString throws",
      () => ({
        toString() {
          throw new Error("toString");
        },
      }),
    ],
    ["an object with no prototype", () => Object.create(null)],
    ["a symbol", () => Symbol("odd")],
  ];

  test.each(hostile)("returns an isError result for %s", async (_label, make) => {
    const tools = Toolset.local([
      defineTool({
        name: "hostile",
        description: "Throws a hostile value",
        input: v.object({}),
        call: () => {
          throw make();
        },
      }),
    ]);
    const result = await tools.call("hostile", {});
    expect(result.isError).toBe(true);
    const [first] = result.content;
    expect(first?.type).toBe("text");
  });
});

function trapsThatThrow(): ProxyHandler<object> {
  const fail = () => {
    throw new Error("trap");
  };
  return {
    get: fail,
    has: fail,
    getPrototypeOf: fail,
    ownKeys: fail,
    getOwnPropertyDescriptor: fail,
  };
}
