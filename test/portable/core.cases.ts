/**
 * Portable core cases: the Tool/Toolset contract through the public API only, so the same
 * behaviour is proven in Node, Chromium, workerd and Deno.
 */
import * as v from "valibot";
import {
  defineTool,
  InteractionResponse,
  isToolError,
  TOOL_ERROR_TYPES,
  ToolError,
  type ToolErrorData,
  ToolResult,
  Toolset,
  type ToolsetBackend,
  toolName,
} from "../../src/index.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { assert, assertEqual, assertRejects, type PortableCase } from "./harness.ts";

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }),
  call: ({ a, b }) => String(a + b),
});

const ask = defineTool({
  name: "ask",
  description: "Asks for a city",
  input: v.object({}),
  interactions: { text: true },
  call: async (_i, ctx) => `weather in ${await ctx.requestText("City?")}`,
});

const is = (type: ToolError["type"]) => (e: unknown) => isToolError(e, type);

function waiting() {
  const seen = { calls: 0, signal: undefined as AbortSignal | undefined, started: () => {} };
  const started = new Promise<void>((resolve) => {
    seen.started = resolve;
  });
  const tool = defineTool({
    name: "wait",
    description: "Waits until cancelled",
    input: v.object({}),
    call: (_i, ctx) => {
      seen.calls += 1;
      seen.signal = ctx.signal;
      seen.started();
      return new Promise(() => {});
    },
  });
  return { tool, seen, started };
}

function countingBackend(cleanupError?: Error) {
  const counts = { listTools: 0, toolHandler: 0, shutdowns: 0 };
  const backend: ToolsetBackend = {
    async listTools() {
      counts.listTools += 1;
      return [add.info];
    },
    async toolHandler() {
      counts.toolHandler += 1;
      return {
        step: async () => ({ type: "completed", result: ToolResult.text("ok") }) as const,
      };
    },
    async shutdown() {
      counts.shutdowns += 1;
      if (cleanupError) throw cleanupError;
    },
  };
  return { backend, counts };
}

const errorSamples: ToolErrorData[] = [
  { type: "invalid_configuration", message: "m" },
  { type: "unknown_tool", name: "x" },
  { type: "duplicate_name", name: "x" },
  { type: "invalid_arguments", tool: "t", message: "m", issues: [{ path: "/a", message: "m" }] },
  { type: "invalid_output", message: "m", issues: [] },
  { type: "invalid_interaction", id: "i", message: "m" },
  { type: "undeclared_interaction", tool: "t", kind: "form" },
  { type: "interaction_declined", tool: "t", reason: "r" },
  { type: "cancelled", tool: "t" },
  { type: "transport", tool: "t", message: "m" },
  { type: "protocol", message: "m" },
  { type: "timeout", tool: "t", timeoutMs: 3000 },
  { type: "unsupported", operation: "o" },
  { type: "closed", operation: "o" },
  {
    type: "build_cleanup",
    primary: { type: "protocol", message: "p" },
    cleanup: { type: "closed", operation: "c" },
  },
];

export const cases: PortableCase[] = [
  {
    name: "core: define, list sorted by name, and call a tool",
    async run() {
      const tools = Toolset.local([ask, add]);
      assertEqual(
        (await tools.listTools()).map((i) => i.name),
        ["add", "ask"],
      );
      assertEqual(await tools.call("add", { a: 2, b: 3 }), ToolResult.text("5"));
    },
  },
  {
    name: "core: toolName accepts 128 bytes and rejects 129, empty and spaces",
    async run() {
      assertEqual(toolName("a".repeat(128)), "a".repeat(128));
      for (const bad of ["", "a".repeat(129), "bad name"]) {
        await assertRejects(() => toolName(bad), is("invalid_configuration"));
      }
    },
  },
  {
    name: "core: invalid arguments carry JSON-pointer issues and never reach the tool",
    async run() {
      let calls = 0;
      const tool = defineTool({
        name: "t",
        description: "d",
        input: v.object({ user: v.object({ age: v.number() }) }),
        call: () => {
          calls += 1;
          return "x";
        },
      });
      const error = (await assertRejects(
        () => Toolset.local([tool]).call("t", { user: { age: "old" } }),
        is("invalid_arguments"),
      )) as ToolError;
      assertEqual(
        error.issues?.map((i) => i.path),
        ["/user/age"],
      );
      assertEqual(calls, 0);
    },
  },
  {
    name: "core: a raw JSON Schema validates arguments with toolwire/json-schema",
    async run() {
      const tool = defineTool({
        name: "search",
        description: "d",
        input: {
          jsonSchema: {
            type: "object",
            properties: { q: { type: "string" }, n: { type: "integer", minimum: 1 } },
            required: ["q"],
          },
        },
        jsonSchemaValidator,
        call: (input) => `found ${(input as { q: string }).q}`,
      });
      const tools = Toolset.local([tool]);
      assertEqual(await tools.call("search", { q: "x", n: 2 }), ToolResult.text("found x"));
      const error = (await assertRejects(
        () => tools.call("search", { q: 1, n: 0 }),
        is("invalid_arguments"),
      )) as ToolError;
      assertEqual(error.issues?.map((i) => i.path).sort(), ["/n", "/q"]);
    },
  },
  {
    name: "core: a declared output schema is enforced, isError is exempt",
    async run() {
      const make = (value: unknown) =>
        defineTool({
          name: "o",
          description: "d",
          input: v.object({}),
          output: v.object({ total: v.number() }),
          call: () => value,
        });
      const run = (value: unknown) => Toolset.local([make(value)]).call("o", {});
      await assertRejects(() => run("text only"), is("invalid_output"));
      await assertRejects(() => run({ total: "3" }), is("invalid_output"));
      assertEqual((await run({ total: 3 })).structuredContent, { total: 3 });
      assertEqual((await run(ToolResult.error("nope"))).isError, true);
      await assertRejects(() => ToolResult.of([]), is("invalid_output"));
    },
  },
  {
    name: "core: a tool's plain Error becomes an isError result",
    async run() {
      const tool = defineTool({
        name: "f",
        description: "d",
        input: v.object({}),
        call: () => {
          throw new Error("record not found");
        },
      });
      assertEqual(await Toolset.local([tool]).call("f", {}), ToolResult.error("record not found"));
    },
  },
  {
    name: "core: an interaction round trip through the handler",
    async run() {
      const handler = await Toolset.local([ask]).toolHandler("ask");
      const output = await handler.step({ type: "invoke", callId: "c1", arguments: {} });
      assert(output.type === "interaction", "expected an interaction");
      assertEqual(output.request.kind, { type: "text", multiline: false });
      assertEqual([output.request.toolName, output.request.callId], ["ask", "c1"]);
      const wrong = InteractionResponse.submit(`${output.request.id}-x`, "Oslo");
      await assertRejects(
        () => handler.step({ type: "interaction", response: wrong }),
        is("invalid_interaction"),
      );
      const right = InteractionResponse.submit(output.request.id, "Oslo");
      assertEqual(await handler.step({ type: "interaction", response: right }), {
        type: "completed",
        result: ToolResult.text("weather in Oslo"),
      });
      await assertRejects(() => handler.step({ type: "invoke", arguments: {} }), is("unsupported"));
    },
  },
  {
    name: "core: call answers interactions through onInteraction",
    async run() {
      const result = await Toolset.local([ask]).call(
        "ask",
        {},
        { onInteraction: async (r) => InteractionResponse.submit(r.id, "Lima") },
      );
      assertEqual(result, ToolResult.text("weather in Lima"));
      await assertRejects(() => Toolset.local([ask]).call("ask", {}), is("unsupported"));
    },
  },
  {
    name: "core: an undeclared interaction kind fails with undeclared_interaction",
    async run() {
      const tool = defineTool({
        name: "sneaky",
        description: "d",
        input: v.object({}),
        call: (_i, ctx) => ctx.requestForm("?", {}),
      });
      const error = await assertRejects(() => Toolset.local([tool]).call("sneaky", {}));
      assert(isToolError(error, "undeclared_interaction"), String(error));
      assertEqual(error.data, { type: "undeclared_interaction", tool: "sneaky", kind: "form" });
    },
  },
  {
    name: "core: aborting the signal cancels the call and fires ctx.signal",
    async run() {
      const { tool, seen, started } = waiting();
      const tools = Toolset.local([tool]);
      await assertRejects(
        () => tools.call("wait", {}, { signal: AbortSignal.abort() }),
        is("cancelled"),
      );
      assertEqual(seen.calls, 0, "a pre-aborted call ran the tool");
      const controller = new AbortController();
      const call = tools.call("wait", {}, { signal: controller.signal });
      await started;
      controller.abort("stop");
      const error = await assertRejects(() => call, is("cancelled"));
      assertEqual((error as ToolError).reason, "stop");
      assert(seen.signal?.aborted === true, "ctx.signal did not fire");
    },
  },
  {
    name: "core: merge lists ns__name and calls by native name",
    async run() {
      const merged = Toolset.merge([Toolset.local([add]), Toolset.local([add, ask])], {
        namespaces: ["one", "two"],
      });
      assertEqual(
        (await merged.listTools()).map((i) => i.name),
        ["one__add", "two__add", "two__ask"],
      );
      assertEqual(await merged.call("two__add", { a: 1, b: 1 }), ToolResult.text("2"));
      await assertRejects(
        () => Toolset.merge([Toolset.local([add]), Toolset.local([add])]).listTools(),
        is("duplicate_name"),
      );
      await assertRejects(
        () => Toolset.merge([Toolset.local([add])], { namespaces: ["bad ns"] }),
        is("invalid_configuration"),
      );
    },
  },
  {
    name: "core: duplicate local names fail with duplicate_name",
    async run() {
      await assertRejects(() => Toolset.local([add, add]), is("duplicate_name"));
    },
  },
  {
    name: "core: shared shutdown cleans up once, replays one error, then everything is closed",
    async run() {
      const failure = new Error("cleanup broke");
      const { backend, counts } = countingBackend(failure);
      const tools = Toolset.fromBackend(backend);
      const handler = await tools.toolHandler("add");
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => tools.shutdown()));
      const reasons = new Set(outcomes.map((o) => (o.status === "rejected" ? o.reason : "ok")));
      assertEqual(reasons.size, 1);
      assert(isToolError([...reasons][0], "transport"), "cleanup failure not reported");
      assertEqual(counts.shutdowns, 1);
      await assertRejects(() => tools.listTools(), is("closed"));
      await assertRejects(() => tools.toolHandler("add"), is("closed"));
      await assertRejects(() => handler.step({ type: "invoke", arguments: {} }), is("closed"));
      assertEqual([counts.listTools, counts.toolHandler], [0, 1]);
    },
  },
  {
    name: "core: shutdown aborts a running call, whose step rejects with closed",
    async run() {
      const { tool, seen, started } = waiting();
      const tools = Toolset.local([tool]);
      const handler = await tools.toolHandler("wait");
      const step = handler.step({ type: "invoke", arguments: {} });
      await started;
      await tools.shutdown();
      await assertRejects(() => step, is("closed"));
      assert(seen.signal?.aborted === true, "ctx.signal did not fire");
    },
  },
  {
    name: "core: every ToolError kind round-trips through JSON",
    run() {
      assertEqual(new Set(errorSamples.map((s) => s.type)), new Set(TOOL_ERROR_TYPES));
      for (const sample of errorSamples) {
        const back = ToolError.fromJSON(JSON.parse(JSON.stringify(new ToolError(sample))));
        assertEqual(back.toJSON(), sample);
        assert(isToolError(back, sample.type), `${sample.type} lost its kind`);
      }
    },
  },
  {
    name: "core: fromJSON rejects a malformed shape with protocol",
    async run() {
      for (const bad of [
        null,
        { type: "nope" },
        { type: "closed" },
        { type: "closed", operation: "o", x: 1 },
      ]) {
        await assertRejects(() => ToolError.fromJSON(bad), is("protocol"));
      }
    },
  },
  {
    name: "core: 300 interleaved calls around shutdown all settle; late ones are closed",
    async run() {
      const { backend, counts } = countingBackend();
      const tools = Toolset.fromBackend(backend);
      const handlers = await Promise.all(
        Array.from({ length: 100 }, () => tools.toolHandler("add")),
      );
      let seed = 12345;
      const random = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
      };
      const calls: { late: boolean; shutdown: boolean; promise: Promise<unknown> }[] = [];
      let sealed = false;
      for (let i = 0; i < 300; i++) {
        if (random() < 0.2) await Promise.resolve();
        const pick = i === 150 ? 0 : 1 + Math.floor(random() * 3);
        const late = sealed;
        if (pick === 0 || (sealed && random() < 0.2)) {
          sealed = true;
          calls.push({ late, shutdown: true, promise: tools.shutdown() });
        } else if (pick === 1) calls.push({ late, shutdown: false, promise: tools.listTools() });
        else if (pick === 2)
          calls.push({ late, shutdown: false, promise: tools.toolHandler("add") });
        else {
          const handler = handlers[i % handlers.length];
          assert(handler, "no handler");
          calls.push({
            late,
            shutdown: false,
            promise: handler.step({ type: "invoke", arguments: {} }),
          });
        }
      }
      const settled = await Promise.allSettled(calls.map((c) => c.promise));
      assertEqual(counts.shutdowns, 1);
      settled.forEach((result, i) => {
        const call = calls[i];
        if (call?.shutdown) assertEqual(result.status, "fulfilled");
        else if (call?.late) {
          assert(
            result.status === "rejected" && isToolError(result.reason, "closed"),
            `call ${i} was not closed`,
          );
        }
      });
    },
  },
];
