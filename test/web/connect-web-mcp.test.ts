import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { defineTool, isReadOnly, Toolset } from "../../src/index.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { connectWebMcp, registerWebMcpTools } from "../../src/web/index.ts";
import { caught } from "../support/caught.ts";
import { FakeModelContext } from "../support/fake-model-context.ts";

// design.md "WebMCP", W7-W13: the page's WebMCP tools as a toolwire Toolset.

const PAGE = "https://page.example";
const FRAME = "https://maps.example";

function pageWith(): FakeModelContext {
  const context = new FakeModelContext(PAGE);
  context.registerTool({
    name: "echo",
    title: "Echo",
    description: "Echoes its input",
    inputSchema: { type: "object", properties: { x: { type: "string" } } },
    annotations: { readOnlyHint: true },
    execute: async (input) => ({ echoed: input }),
  });
  context.registerForeign(
    {
      name: "route",
      description: "Plans a route",
      annotations: { readOnlyHint: true, untrustedContentHint: true },
      execute: async () => "turn left",
    },
    FRAME,
  );
  return context;
}

describe("connectWebMcp", () => {
  test("lists the page's tools with their origin; frames only when named (W7, W8)", async () => {
    const context = pageWith();
    const own = await connectWebMcp({ modelContext: context });
    expect((await own.listTools()).map((t) => t.name)).toEqual(["echo"]);
    const all = await connectWebMcp({
      modelContext: context,
      fromOrigins: [FRAME],
      namespace: "page",
    });
    const tools = await all.listTools();
    expect(tools.map((t) => [t.name, t.source?.origin])).toEqual([
      ["page__echo", PAGE],
      ["page__route", FRAME],
    ]);
    const [echo] = tools;
    expect(echo?.title).toBe("Echo");
    expect(echo?.description).toBe("Echoes its input");
    expect(echo?.inputSchema.schema).toEqual({
      type: "object",
      properties: { x: { type: "string" } },
    });
    expect(echo?.metadata).toMatchObject({ webmcp: { name: "echo" } });
  });

  test("tools of another origin are untrusted unless trustAnnotations; the page's own are trusted (W9)", async () => {
    const context = pageWith();
    // No `location` in Node: pretend this program runs on the page's origin.
    const here = { origin: PAGE };
    (globalThis as { location?: unknown }).location = here;
    try {
      const tools = await (
        await connectWebMcp({ modelContext: context, fromOrigins: [FRAME] })
      ).listTools();
      const [echo, route] = tools;
      expect(echo?.source).toEqual({ type: "webmcp", origin: PAGE, trusted: true });
      expect(isReadOnly(echo as never)).toBe(true);
      expect(route?.source).toEqual({ type: "webmcp", origin: FRAME, trusted: false });
      expect(isReadOnly(route as never)).toBe(false);
      expect(route?.capabilities).toEqual({
        privateData: true,
        untrustedInput: true,
        externalSend: true,
        destructive: true,
      });
      const trusting = await (
        await connectWebMcp({ modelContext: context, fromOrigins: [FRAME], trustAnnotations: true })
      ).listTools();
      expect(trusting[1]?.source?.trusted).toBe(true);
      expect(isReadOnly(trusting[1] as never)).toBe(true);
      expect(trusting[1]?.capabilities.destructive).toBe(false);
      const doubting = await (
        await connectWebMcp({ modelContext: context, trustAnnotations: false })
      ).listTools();
      expect(isReadOnly(doubting[0] as never)).toBe(false);
    } finally {
      delete (globalThis as { location?: unknown }).location;
    }
  });

  test("calls go through executeTool; JSON, text, MCP results and throws map to ToolResult (W10)", async () => {
    const context = pageWith();
    context.registerTool({
      name: "mcp_like",
      description: "Answers like an MCP tool",
      execute: async () => ({ content: [{ type: "text", text: "no such file" }], isError: true }),
    });
    context.registerTool({
      name: "broken",
      description: "Throws",
      execute: async () => {
        throw new Error("boom");
      },
    });
    const page = await connectWebMcp({ modelContext: context, fromOrigins: [FRAME] });
    const echoed = await page.call("echo", { x: "hi" });
    expect(echoed.structuredContent).toEqual({ echoed: { x: "hi" } });
    expect(echoed.isError).toBe(false);
    const text = await page.call("route", {});
    expect(text.content).toEqual([{ type: "text", text: "turn left" }]);
    const mcp = await page.call("mcp_like", {});
    expect(mcp.isError).toBe(true);
    expect(mcp.content).toEqual([{ type: "text", text: "no such file" }]);
    const broken = await page.call("broken", {});
    expect(broken.isError).toBe(true);
    expect(broken.content[0]).toMatchObject({ type: "text" });
  });

  test("aborting the call aborts executeTool's signal and rejects with cancelled (W11)", async () => {
    const context = new FakeModelContext(PAGE);
    let seen: AbortSignal | undefined;
    await context.registerTool({
      name: "slow",
      description: "Never ends by itself",
      execute: (_input, client) => {
        seen = client?.signal;
        return new Promise(() => {});
      },
    });
    const page = await connectWebMcp({ modelContext: context });
    const stop = new AbortController();
    const call = page.call("slow", {}, { signal: stop.signal });
    await expect.poll(() => seen).toBeDefined();
    stop.abort("enough");
    expect((await caught(call)).type).toBe("cancelled");
    expect(seen?.aborted).toBe(true);
  });

  test("the listing follows toolchange; a tool that is gone is unknown_tool (W12)", async () => {
    const context = new FakeModelContext(PAGE);
    const stop = new AbortController();
    await context.registerTool(
      { name: "temp", description: "Comes and goes", execute: async () => "here" },
      { signal: stop.signal },
    );
    const page = await connectWebMcp({ modelContext: context });
    expect((await page.listTools()).map((t) => t.name)).toEqual(["temp"]);
    stop.abort();
    expect(await page.listTools()).toEqual([]);
    expect((await caught(page.call("temp", {}))).data).toEqual({
      type: "unknown_tool",
      name: "temp",
    });
    await context.registerTool({
      name: "late",
      description: "Arrives later",
      execute: async () => "hi",
    });
    expect((await page.call("late", {})).content).toEqual([{ type: "text", text: "hi" }]);
  });

  test("names toolwire cannot represent are left out; a huge result is invalid_output (W13)", async () => {
    const context = new FakeModelContext(PAGE);
    await context.registerTool({
      name: "repo/search",
      description: "A slash, which tool names do not allow",
      execute: async () => "",
    });
    await context.registerTool({
      name: "big",
      description: "Too much",
      execute: async () => "x".repeat(101),
    });
    const page = await connectWebMcp({ modelContext: context, maxResultLength: 100 });
    expect((await page.listTools()).map((t) => t.name)).toEqual(["big"]);
    expect((await caught(page.call("big", {}))).type).toBe("invalid_output");
  });

  test("leaves out a tool too deep or too large to carry in model requests (maxSchemaDepth, maxToolBytes)", async () => {
    const context = new FakeModelContext(PAGE);
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 100_000; i++) schema = { type: "array", items: schema };
    const execute = async () => "ok";
    await context.registerTool({ name: "deep", description: "Deep", inputSchema: schema, execute });
    await context.registerTool({ name: "big", description: "b".repeat(300 * 1024), execute });
    await context.registerTool({ name: "plain", description: "fine", execute });
    const page = await connectWebMcp({ modelContext: context });
    const listed = await page.listTools();
    expect(listed.map((t) => t.name)).toEqual(["plain"]);
    expect(() => JSON.stringify(listed)).not.toThrow();
    const roomy = await connectWebMcp({ modelContext: context, maxToolBytes: 1024 * 1024 });
    expect((await roomy.listTools()).map((t) => t.name)).toEqual(["big", "plain"]);
  });

  // The page's answer comes as JSON text, as Chromium hands it over.
  test("fails a call whose result nests past maxSchemaDepth with invalid_output", async () => {
    const context = new FakeModelContext(PAGE);
    const nested = (levels: number) => {
      let value: unknown = 1;
      for (let i = 0; i < levels; i++) value = { v: value };
      return value;
    };
    const content = [{ type: "text", text: "deep" }];
    await context.registerTool({
      name: "deep",
      description: "Deep",
      execute: async () => ({ content, structuredContent: nested(1000) }),
    });
    await context.registerTool({
      name: "deep_text",
      description: "Deep text",
      execute: async () => `${"[".repeat(200)}${"]".repeat(200)}`,
    });
    await context.registerTool({
      name: "fine",
      description: "Fine",
      execute: async () => ({ content, structuredContent: nested(100) }),
    });
    const page = await connectWebMcp({ modelContext: context });
    for (const name of ["deep", "deep_text"]) {
      const error = await caught(page.call(name, {}));
      expect(error.type).toBe("invalid_output");
      expect(error.message).toContain("maxSchemaDepth (128)");
    }
    expect((await page.call("fine", {})).structuredContent).toEqual(nested(100));
  });

  test("round trip: a toolset registered on the page is callable through connectWebMcp", async () => {
    const context = new FakeModelContext(PAGE);
    const add = defineTool({
      name: "add",
      description: "Adds",
      readOnly: true,
      input: v.object({ a: v.number(), b: v.number() }),
      call: ({ a, b }) => String(a + b),
    });
    const stop = new AbortController();
    await registerWebMcpTools(Toolset.local([add]), { signal: stop.signal, modelContext: context });
    const page = await connectWebMcp({ modelContext: context, jsonSchemaValidator });
    expect((await page.call("add", { a: 2, b: 2 })).content).toEqual([{ type: "text", text: "4" }]);
    // Checked against the listed schema here, before the page is asked (W10).
    const bad = await caught(page.call("add", { a: "x" }));
    expect(bad.data).toMatchObject({ type: "invalid_arguments", tool: "add" });
    expect(bad.issues?.map((issue) => issue.path)).toEqual(expect.arrayContaining(["/a"]));
    stop.abort();
  });

  test("arguments that are not an object or miss the schema never reach the page (W10)", async () => {
    const context = new FakeModelContext(PAGE);
    let ran = 0;
    await context.registerTool({
      name: "count",
      description: "Counts calls",
      inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      execute: async () => {
        ran += 1;
        return "ok";
      },
    });
    const page = await connectWebMcp({ modelContext: context, jsonSchemaValidator });
    expect((await caught(page.call("count", [1, 2]))).type).toBe("invalid_arguments");
    const missing = await caught(page.call("count", { n: 1.5 }));
    expect(missing.data).toMatchObject({ type: "invalid_arguments", tool: "count" });
    expect(ran).toBe(0);
    expect((await page.call("count", { n: 2 })).content).toEqual([{ type: "text", text: "ok" }]);
    expect(ran).toBe(1);
    // Without a validator only the object check is ours; the schema is the page tool's to apply.
    const unchecked = await connectWebMcp({ modelContext: context });
    expect((await caught(unchecked.call("count", [1, 2]))).type).toBe("invalid_arguments");
    expect((await unchecked.call("count", { n: 1.5 })).content).toEqual([
      { type: "text", text: "ok" },
    ]);
    expect(ran).toBe(2);
  });

  test("shutdown cancels a live call and stops listening to toolchange (W11)", async () => {
    const context = new FakeModelContext(PAGE);
    let seen: AbortSignal | undefined;
    await context.registerTool({
      name: "slow",
      description: "Never ends by itself",
      execute: (_input, client) => {
        seen = client?.signal;
        return new Promise(() => {});
      },
    });
    const page = await connectWebMcp({ modelContext: context });
    const call = page.call("slow", {});
    await expect.poll(() => seen).toBeDefined();
    const listening = context.listenerCount();
    await page.shutdown();
    expect((await caught(call)).type).toBe("closed");
    expect(seen?.aborted).toBe(true);
    expect(context.listenerCount()).toBe(listening - 1);
  });

  test("a getTools failure is a transport ToolError, and the next listing tries again", async () => {
    const context = new FakeModelContext(PAGE);
    await context.registerTool({ name: "ok", description: "Fine", execute: async () => "" });
    const real = context.getTools.bind(context);
    let fail = true;
    context.getTools = async (options) => {
      if (fail) throw new DOMException("refused", "SecurityError");
      return real(options);
    };
    const page = await connectWebMcp({ modelContext: context });
    const error = await caught(page.listTools());
    expect(error.type).toBe("transport");
    expect(error.message).toContain("refused");
    fail = false;
    expect((await page.listTools()).map((t) => t.name)).toEqual(["ok"]);
  });

  test("bad options are invalid_configuration", async () => {
    const modelContext = new FakeModelContext();
    expect((await caught(connectWebMcp({ modelContext, namespace: "a b" }))).type).toBe(
      "invalid_configuration",
    );
    for (const fromOrigins of ["x" as never, ["not an origin"], ["data:text/plain,hi"]]) {
      expect((await caught(connectWebMcp({ modelContext, fromOrigins }))).type).toBe(
        "invalid_configuration",
      );
    }
    expect((await caught(connectWebMcp({ modelContext, maxResultLength: 0 }))).type).toBe(
      "invalid_configuration",
    );
    for (const bad of [{ maxSchemaDepth: 1.5 }, { maxToolBytes: 10 }, { maxSchemaDepth: "9" }]) {
      expect((await caught(connectWebMcp({ modelContext, ...(bad as object) }))).type).toBe(
        "invalid_configuration",
      );
    }
  });
});
