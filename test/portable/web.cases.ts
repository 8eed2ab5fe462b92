// toolwire/web in every runtime (design.md "WebMCP", W14): the entry loads without touching
// globals, and where the runtime has no WebMCP it says so with `unsupported`.
import * as v from "valibot";
import { defineTool, ToolResult, Toolset } from "../../src/index.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { FakeModelContext } from "../support/fake-model-context.ts";
import { assert, assertEqual, assertRejects, type PortableCase } from "./harness.ts";

// Loaded on demand, so the first case sees the import happen.
const load = () => import("../../src/web/index.ts");

export const cases: PortableCase[] = [
  {
    name: "importing toolwire/web adds no globals and registers nothing",
    async run() {
      const before = Object.getOwnPropertyNames(globalThis).sort();
      const web = await load();
      assertEqual(Object.getOwnPropertyNames(globalThis).sort(), before);
      assert(typeof web.connectWebMcp === "function", "connectWebMcp is missing");
      const context = (globalThis as { document?: { modelContext?: FakeModelContext } }).document
        ?.modelContext;
      if (context) assertEqual((await context.getTools()).length, 0);
    },
  },
  {
    name: "without WebMCP connectWebMcp rejects with unsupported; with it, it connects",
    async run() {
      const { connectWebMcp } = await load();
      const scope = globalThis as {
        document?: { modelContext?: unknown };
        navigator?: { modelContext?: unknown };
      };
      if (scope.document?.modelContext ?? scope.navigator?.modelContext) {
        const page = await connectWebMcp();
        assert(Array.isArray(await page.listTools()), "listTools gave no array");
        await page.shutdown();
        return;
      }
      const error = await assertRejects(
        () => connectWebMcp(),
        (e) => (e as { type?: string }).type === "unsupported",
      );
      assert(String((error as Error).message).includes("WebMCP"), "the message names WebMCP");
    },
  },
  {
    name: "a toolset round-trips through a model context passed in",
    async run() {
      const { connectWebMcp, registerWebMcpTools } = await load();
      const context = new FakeModelContext();
      const stop = new AbortController();
      const echo = Toolset.local([
        defineTool({
          name: "echo",
          description: "Echoes",
          readOnly: true,
          input: v.object({ x: v.number() }),
          call: (input) => ToolResult.json(input),
        }),
      ]);
      await registerWebMcpTools(echo, { signal: stop.signal, modelContext: context });
      const page = await connectWebMcp({ modelContext: context, jsonSchemaValidator });
      assertEqual((await page.call("echo", { x: 1 })).structuredContent, { x: 1 });
      await assertRejects(
        () => page.call("echo", { x: "one" }),
        (e) => (e as { type?: string }).type === "invalid_arguments",
      );
      stop.abort();
      assertEqual(await page.listTools(), []);
    },
  },
];
