import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { ToolResult } from "../../src/execution/tool-result.ts";
import { InteractionResponse } from "../../src/interaction/interaction-response.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { caught } from "../support/caught.ts";
import { createFakeBackend, fakeToolInfo } from "../support/fake-backend.ts";

let calls = 0;
const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }),
  call: ({ a, b }) => {
    calls += 1;
    return String(a + b);
  },
});
const ask = defineTool({
  name: "ask",
  description: "Asks for a city",
  input: v.object({}),
  interactions: { text: true },
  call: async (_i, ctx) => ctx.requestText("City?"),
});

describe("Toolset.local", () => {
  test("accepts an empty list and lists nothing", async () => {
    expect(await Toolset.local([]).listTools()).toEqual([]);
  });

  test("lists declarations sorted by name, the same on every call", async () => {
    const tools = Toolset.local([ask, add]);
    const first = (await tools.listTools()).map((info) => info.name);
    expect(first).toEqual(["add", "ask"]);
    expect((await tools.listTools()).map((info) => info.name)).toEqual(first);
  });

  // design.md T12: a silent replacement would hide a wiring mistake.
  test("rejects two tools with one name with duplicate_name instead of keeping the later", async () => {
    const error = await caught(() => Toolset.local([add, ask, add]));
    expect(error.data).toEqual({ type: "duplicate_name", name: "add" });
  });

  test("calls a tool to completion", async () => {
    expect(await Toolset.local([add]).call("add", { a: 1, b: 2 })).toEqual(ToolResult.text("3"));
  });

  test("gives a fresh handler per call, bound to the toolset's shutdown", async () => {
    const tools = Toolset.local([add]);
    const first = await tools.toolHandler("add");
    const second = await tools.toolHandler("add");
    expect(await first.step({ type: "invoke", arguments: { a: 1, b: 1 } })).toEqual({
      type: "completed",
      result: ToolResult.text("2"),
    });
    await tools.shutdown();
    expect((await caught(second.step({ type: "invoke", arguments: { a: 1, b: 1 } }))).type).toBe(
      "closed",
    );
  });

  test("rejects something that is not a tool with invalid_configuration", async () => {
    expect((await caught(() => Toolset.local([{ name: "x" } as never]))).type).toBe(
      "invalid_configuration",
    );
    expect((await caught(() => Toolset.local("x" as never))).type).toBe("invalid_configuration");
  });

  test("fails toolHandler for a missing tool with unknown_tool", async () => {
    const error = await caught(Toolset.local([add]).toolHandler("missing"));
    expect(error.data).toEqual({ type: "unknown_tool", name: "missing" });
  });

  test("carries state in name order, skipping tools that return none", async () => {
    const state = (name: string, body?: string) =>
      defineTool({
        name,
        description: "d",
        input: v.object({}),
        carriedState: () => (body === undefined ? undefined : { label: name, body }),
        call: () => "",
      });
    const tools = Toolset.local([state("zed", "z"), state("mid"), state("abc", "a")]);
    expect(await tools.carriedState()).toEqual([
      { label: "abc", body: "a" },
      { label: "zed", body: "z" },
    ]);
  });
});

describe("Toolset.local carried state", () => {
  const carrying = (name: string, read: () => unknown) =>
    defineTool({
      name,
      description: "d",
      input: v.object({}),
      carriedState: read as () => undefined,
      call: () => "x",
    });

  test("reads carried state at call time, so it is always current", async () => {
    let body = "v1";
    const tools = Toolset.local([carrying("live", () => ({ label: "live", body }))]);
    body = "v2";
    expect(await tools.carriedState()).toEqual([{ label: "live", body: "v2" }]);
  });

  test.each([
    [
      "throws",
      () => {
        throw new Error("disk gone");
      },
      "broken carriedState(): threw disk gone",
    ],
    ["returns no label", () => ({ body: "x" }), "broken carriedState(): must return"],
    ["returns a promise", async () => ({ label: "l", body: "b" }), "broken carriedState(): must"],
  ])("fails with invalid_output naming the tool when carriedState %s", async (_l, read, text) => {
    const fine = carrying("fine", () => ({ label: "fine", body: "ok" }));
    const error = await caught(Toolset.local([fine, carrying("broken", read)]).carriedState());
    expect(error.type).toBe("invalid_output");
    expect(error.message).toContain(text);
  });

  test("treats a carriedState of null like undefined: nothing to carry", async () => {
    expect(await Toolset.local([carrying("none", () => null)]).carriedState()).toEqual([]);
  });
});

describe("Toolset.fromBackend", () => {
  test("exposes a foreign backend's inventory, handlers and shutdown", async () => {
    const backend = createFakeBackend({ tools: ["beta", "alpha"] });
    const tools = Toolset.fromBackend(backend);
    expect((await tools.listTools()).map((info) => info.name)).toEqual(["alpha", "beta"]);
    const result = await tools.call("beta", { x: 1 });
    expect(result).toEqual(ToolResult.text('beta:{"x":1}'));
    const handler = await tools.toolHandler("alpha");
    await handler.step({ type: "invoke", arguments: {} });
    expect((await caught(handler.step({ type: "invoke", arguments: {} }))).type).toBe(
      "unsupported",
    );
    await Promise.all([tools.shutdown(), tools.shutdown()]);
    await tools.shutdown();
    expect(backend.counts.shutdowns).toBe(1);
  });

  test("returns a Toolset as is, so both share one lifecycle", async () => {
    const tools = Toolset.local([add]);
    expect(Toolset.fromBackend(tools)).toBe(tools);
  });

  test("sorts an unsorted foreign inventory by name", async () => {
    const backend = createFakeBackend();
    backend.listTools = async () => ["c", "a", "b"].map(fakeToolInfo);
    expect((await Toolset.fromBackend(backend).listTools()).map((i) => i.name)).toEqual([
      "a",
      "b",
      "c",
    ]);
  });

  test("reports no carried state for a backend without carriedState", async () => {
    expect(await Toolset.fromBackend(createFakeBackend()).carriedState()).toEqual([]);
  });
});

describe("bad input is typed", () => {
  test("wrong argument types fail with invalid_arguments and never reach the tool", async () => {
    calls = 0;
    const tools = Toolset.local([add]);
    for (const args of [{ a: "1", b: 2 }, null, "1+2", [1, 2], undefined]) {
      const error = await caught(tools.call("add", args));
      expect(error.type).toBe("invalid_arguments");
      expect(error.issues?.length).toBeGreaterThan(0);
    }
    expect(calls).toBe(0);
  });

  test("an unknown tool name fails with unknown_tool", async () => {
    const tools = Toolset.local([add]);
    expect((await caught(tools.call("missing", {}))).data).toEqual({
      type: "unknown_tool",
      name: "missing",
    });
    expect((await caught(tools.toolHandler(42 as never))).type).toBe("unknown_tool");
  });

  test("a second invoke fails with unsupported", async () => {
    const handler = await Toolset.local([add]).toolHandler("add");
    await handler.step({ type: "invoke", arguments: { a: 1, b: 1 } });
    expect((await caught(handler.step({ type: "invoke", arguments: { a: 1, b: 1 } }))).type).toBe(
      "unsupported",
    );
  });

  test("a reply with the wrong interaction id fails with invalid_interaction", async () => {
    const handler = await Toolset.local([ask]).toolHandler("ask");
    const output = await handler.step({ type: "invoke", arguments: {} });
    if (output.type !== "interaction") throw new Error("expected an interaction");
    const response = InteractionResponse.submit("not-the-id", "Oslo");
    expect((await caught(handler.step({ type: "interaction", response }))).type).toBe(
      "invalid_interaction",
    );
    const right = InteractionResponse.submit(output.request.id, "Oslo");
    expect(await handler.step({ type: "interaction", response: right })).toMatchObject({
      type: "completed",
    });
  });

  test("a call after shutdown fails with closed", async () => {
    const tools = Toolset.local([add]);
    await tools.shutdown();
    expect((await caught(tools.call("add", { a: 1, b: 2 }))).type).toBe("closed");
    expect((await caught(tools.listTools())).type).toBe("closed");
  });

  test.each([
    ["null", null],
    ["a number", 7],
    ["an object without a type", {}],
    ["an unknown type", { type: "run" }],
  ])("a step input that is %s fails with unsupported", async (_label, input) => {
    const handler = await Toolset.local([add]).toolHandler("add");
    expect((await caught(handler.step(input as never))).type).toBe("unsupported");
  });

  test("a malformed interaction reply fails with invalid_interaction", async () => {
    const handler = await Toolset.local([ask]).toolHandler("ask");
    await handler.step({ type: "invoke", arguments: {} });
    for (const response of [null, "yes", { type: "ok" }]) {
      const error = await caught(
        handler.step({ type: "interaction", response: response as never }),
      );
      expect(error.type).toBe("invalid_interaction");
    }
  });
});

describe("Toolset guards its backend", () => {
  test("fromBackend rejects something that is not a backend with invalid_configuration", async () => {
    for (const bad of [null, undefined, {}, { listTools() {}, toolHandler() {} }]) {
      expect((await caught(() => Toolset.fromBackend(bad as never))).type).toBe(
        "invalid_configuration",
      );
    }
  });

  test("a backend whose listTools gives no array fails with protocol", async () => {
    const backend = createFakeBackend();
    backend.listTools = async () => ({ tools: [] }) as never;
    expect((await caught(Toolset.fromBackend(backend).listTools())).type).toBe("protocol");
  });

  test("a backend that gives no handler fails with protocol", async () => {
    const backend = createFakeBackend();
    backend.toolHandler = async () => ({}) as never;
    expect((await caught(Toolset.fromBackend(backend).call("alpha", {}))).type).toBe("protocol");
  });

  test("listTools hands every caller a fresh array", async () => {
    const tools = Toolset.local([add, ask]);
    const first = await tools.listTools();
    first.reverse();
    first.pop();
    expect((await tools.listTools()).map((t) => t.name)).toEqual(["add", "ask"]);
  });

  test("a local call after shutdown fails with closed without creating a handler", async () => {
    const tools = Toolset.local([add]);
    await tools.shutdown();
    const before = calls;
    expect((await caught(tools.call("add", { a: 1, b: 2 }))).data).toEqual({
      type: "closed",
      operation: "toolHandler",
    });
    expect(calls).toBe(before);
  });

  test("an unknown local tool fails call with a rejection, never a synchronous throw", async () => {
    const pending = Toolset.local([add]).call("nope", {});
    expect((await caught(pending)).data).toEqual({ type: "unknown_tool", name: "nope" });
  });
});
