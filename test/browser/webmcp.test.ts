// WebMCP in real Chromium (156, started with --enable-features=WebMCP by vitest.config.ts):
// design.md "WebMCP", both directions against the browser's own document.modelContext.
import * as v from "valibot";
import { afterEach, describe, expect, inject, test } from "vitest";
import { Agent, type AgentEvent, type ApprovalRequest } from "../../src/agent/index.ts";
import { defineTool, Toolset } from "../../src/index.ts";
import { scriptedModel } from "../../src/models/index.ts";
import {
  connectWebMcp,
  registerWebMcpTools,
  type WebMcpModelContext,
} from "../../src/web/index.ts";

interface ChromiumModelContext extends WebMcpModelContext {
  getTools(options?: { fromOrigins?: string[] }): Promise<
    {
      name: string;
      title?: string;
      inputSchema?: unknown;
      annotations?: Record<string, unknown>;
      origin?: string;
    }[]
  >;
  executeTool(
    tool: unknown,
    input: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<unknown>;
}

const modelContext = (document as unknown as { modelContext?: ChromiumModelContext }).modelContext;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function registration(): AbortSignal {
  const stop = new AbortController();
  cleanups.push(() => stop.abort());
  return stop.signal;
}

async function pageTool(name: string) {
  const tool = (await modelContext?.getTools())?.find((t) => t.name === name);
  if (!tool) throw new Error(`${name} is not registered`);
  return tool;
}

let started: AbortSignal | undefined;
const add = defineTool({
  name: "add",
  title: "Add",
  description: "Adds two numbers",
  readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }),
  call: ({ a, b }) => String(a + b),
});
const wait = defineTool({
  name: "wait",
  description: "Waits until cancelled",
  input: v.object({}),
  call: (_input, ctx) =>
    new Promise<string>((resolve) => {
      started = ctx.signal;
      ctx.signal.addEventListener("abort", () => resolve("stopped"));
    }),
});

describe("WebMCP in Chromium", () => {
  test("the flag gives this page a document.modelContext", () => {
    expect(typeof modelContext?.registerTool).toBe("function");
  });

  test("registerWebMcpTools: the browser lists and runs the toolset's tools (W1, W2)", async () => {
    await registerWebMcpTools(Toolset.local([add, wait]), { signal: registration() });
    const listed = await pageTool("add");
    expect(listed.title).toBe("Add");
    expect(listed.origin).toBe(location.origin);
    expect(listed.annotations).toMatchObject({ readOnlyHint: true, untrustedContentHint: false });
    expect(listed.inputSchema).toMatchObject({ type: "object", required: ["a", "b"] });
    expect((await pageTool("wait")).annotations).toMatchObject({ readOnlyHint: false });

    const ok = JSON.parse(String(await modelContext?.executeTool(listed, { a: 20, b: 22 })));
    expect(ok).toEqual({ content: [{ type: "text", text: "42" }], isError: false });
    const bad = JSON.parse(String(await modelContext?.executeTool(listed, { a: "twenty" })));
    expect(bad.isError).toBe(true);
    expect(bad._meta["toolwire/error"]).toMatchObject({ type: "invalid_arguments", tool: "add" });
  });

  test("the browser's abort reaches ctx.signal (W3)", async () => {
    await registerWebMcpTools(Toolset.local([wait]), { signal: registration() });
    started = undefined;
    const cancel = new AbortController();
    const call = modelContext?.executeTool(await pageTool("wait"), {}, { signal: cancel.signal });
    await expect.poll(() => started).toBeDefined();
    cancel.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    await expect.poll(() => (started as AbortSignal | undefined)?.aborted).toBe(true);
  });

  test("aborting the registration signal unregisters every tool (W5)", async () => {
    const stop = new AbortController();
    let changes = 0;
    const onChange = () => {
      changes += 1;
    };
    modelContext?.addEventListener?.("toolchange", onChange);
    cleanups.push(() => modelContext?.removeEventListener?.("toolchange", onChange));
    await registerWebMcpTools(Toolset.local([add, wait]), { signal: stop.signal });
    expect((await modelContext?.getTools())?.map((t) => t.name)).toEqual(["add", "wait"]);
    const before = changes;
    stop.abort();
    expect(await modelContext?.getTools()).toEqual([]);
    await expect.poll(() => changes).toBeGreaterThan(before);
  });

  test("an Agent calls a raw page tool and a cross-origin frame's tool, the frame's behind the approver (W7-W10)", async () => {
    const rawStop = new AbortController();
    cleanups.push(() => rawStop.abort());
    await modelContext?.registerTool(
      {
        name: "weather",
        description: "Today's weather in a city",
        inputSchema: { type: "object", properties: { city: { type: "string" } } },
        annotations: { readOnlyHint: true },
        execute: async ({ city }) => `sunny in ${String(city)}`,
      },
      { signal: rawStop.signal },
    );

    const frameOrigin = inject("webMcpFrameOrigin");
    const frame = document.createElement("iframe");
    frame.allow = "tools";
    const ready = new Promise<string>((resolve) => {
      const onMessage = (event: MessageEvent) => {
        if (event.origin !== frameOrigin) return;
        window.removeEventListener("message", onMessage);
        resolve(String(event.data));
      };
      window.addEventListener("message", onMessage);
    });
    frame.src = `${frameOrigin}/frame.html?host=${encodeURIComponent(location.origin)}`;
    document.body.append(frame);
    cleanups.push(() => frame.remove());
    expect(await ready).toBe("webmcp-frame-ready");

    const page = await connectWebMcp({ namespace: "page", fromOrigins: [frameOrigin] });
    cleanups.push(() => void page.shutdown());
    const tools = await page.listTools();
    expect(tools.map((t) => [t.name, t.source])).toEqual([
      ["page__route", { type: "webmcp", origin: frameOrigin, trusted: false }],
      ["page__weather", { type: "webmcp", origin: location.origin, trusted: true }],
    ]);

    const asked: ApprovalRequest[] = [];
    const agent = new Agent({
      model: scriptedModel([
        {
          toolCalls: [
            { name: "page__weather", arguments: { city: "Lyon" } },
            { name: "page__route", arguments: { from: "Lyon", to: "Turin" } },
          ],
        },
        { text: "Sunny; route planned." },
      ]),
      toolsets: [page],
      // The frame's tool is untrusted, so every capability is assumed and the interlock alone
      // would refuse it; "ask" puts it to the approver (design.md "Trust").
      interlock: "ask",
      approver: async (request) => {
        asked.push(request);
        return { type: "allow" };
      },
    });
    const run = agent.run("Weather in Lyon and a route to Turin?");
    const results: Extract<AgentEvent, { type: "tool_result" }>[] = [];
    for await (const event of run) if (event.type === "tool_result") results.push(event);
    expect((await run.result).text).toBe("Sunny; route planned.");

    // The frame's readOnlyHint is not believed: the approver decides. The page's own read-only
    // tool is trusted and runs without asking.
    expect(asked.map((r) => r.toolName)).toEqual(["page__route"]);
    expect(asked[0]?.info.source?.origin).toBe(frameOrigin);
    const byTool = Object.fromEntries(results.map((r) => [r.toolName, r]));
    expect(byTool.page__weather?.content).toEqual([{ type: "text", text: "sunny in Lyon" }]);
    expect(byTool.page__route?.isError).toBe(false);
    expect(JSON.stringify(byTool.page__route?.content)).toContain(frameOrigin);
  });

  test("unregistering a page tool removes it from connectWebMcp's listing (W12)", async () => {
    const stop = new AbortController();
    cleanups.push(() => stop.abort());
    await modelContext?.registerTool(
      { name: "temp", description: "Comes and goes", execute: async () => "here" },
      { signal: stop.signal },
    );
    const page = await connectWebMcp();
    cleanups.push(() => void page.shutdown());
    expect((await page.listTools()).map((t) => t.name)).toEqual(["temp"]);
    expect((await page.call("temp", {})).content).toEqual([{ type: "text", text: "here" }]);
    stop.abort();
    await expect.poll(async () => (await page.listTools()).length).toBe(0);
  });
});
