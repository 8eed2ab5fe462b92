import { build, type OutputFile } from "esbuild";
import { describe, expect, test } from "vitest";
import { apiEntries } from "../../scripts/api-report.ts";

// An error message of @cfworker/json-schema's validator; string literals survive minifying.
const MARKER = "Instance type";
// An error message of @valibot/to-json-schema's converter.
const CONVERTER = "cannot be converted to JSON Schema";
const here = new URL(".", import.meta.url).pathname;

async function bundle(contents: string): Promise<{ entry: OutputFile; chunks: OutputFile[] }> {
  const result = await build({
    stdin: { contents, resolveDir: here, loader: "ts", sourcefile: "entry.ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["import"],
    treeShaking: true,
    minify: true,
    // Split like an application bundler; the entry points below must not need it: what an
    // app leaves out is in no chunk at all, so a single-file Worker bundle lacks it too.
    splitting: true,
    outdir: `${here}out`,
    logLevel: "silent",
  });
  const entry = result.outputFiles.find((file) => file.path.endsWith("stdin.js"));
  if (!entry) throw new Error("esbuild produced no entry chunk");
  return { entry, chunks: result.outputFiles.filter((file) => file !== entry) };
}

const anywhere = (output: { entry: OutputFile; chunks: OutputFile[] }, marker: string) =>
  [output.entry, ...output.chunks].some((file) => file.text.includes(marker));

describe("tree-shaking", () => {
  test("an app with only valibot tools bundles no @cfworker/json-schema code", async () => {
    const output = await bundle(`
      import * as v from "valibot";
      import { defineTool, Toolset } from "../../src/index.ts";
      const add = defineTool({
        name: "add", description: "Adds", input: v.object({ a: v.number(), b: v.number() }),
        call: ({ a, b }) => String(a + b),
      });
      export const tools = Toolset.local([add]);
    `);
    expect(output.entry.text).toContain("toolwire.ToolError");
    expect(anywhere(output, MARKER)).toBe(false);
  });

  test("an MCP client without jsonSchemaValidator bundles no @cfworker/json-schema code", async () => {
    const output = await bundle(`
      import { connectMcp } from "../../src/mcp/index.ts";
      export const connect = (url) => connectMcp({ url });
    `);
    expect(anywhere(output, MARKER)).toBe(false);
  });

  test("an app that imports toolwire/json-schema bundles it, in the entry chunk", async () => {
    const output = await bundle(`
      import { defineTool, Toolset } from "../../src/index.ts";
      import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
      const search = defineTool({
        name: "search", description: "Searches", input: { jsonSchema: { type: "object" } },
        jsonSchemaValidator, call: () => "none",
      });
      export const tools = Toolset.local([search]);
    `);
    // The marker survives the build, so the assertions above can fail.
    expect(output.entry.text).toContain(MARKER);
  });

  test("importing only ToolError bundles neither schema library", async () => {
    const output = await bundle(`
      import { ToolError } from "../../src/index.ts";
      export const error = new ToolError({ type: "closed", operation: "x" });
    `);
    expect(output.entry.text).toContain("toolwire.ToolError");
    expect(anywhere(output, MARKER)).toBe(false);
    expect(anywhere(output, CONVERTER)).toBe(false);
  });

  test("an agent and an MCP client without toolwire/otel bundle no OpenTelemetry code", async () => {
    // Names only the instrumentation writes: a span name, a propagation key.
    const markers = ["invoke_agent", "traceparent", "mcp.client.operation.duration"];
    const plain = await bundle(`
      import { Agent } from "../../src/agent/index.ts";
      import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
      export { Agent, connectMcp, createMcpHandler };
    `);
    for (const marker of markers) expect(anywhere(plain, marker)).toBe(false);
    const instrumented = await bundle(`
      export { otelObserver } from "../../src/otel/index.ts";
    `);
    for (const marker of markers) expect(anywhere(instrumented, marker)).toBe(true);
  });

  const neutral = apiEntries().filter((entry) => !entry.source.startsWith("src/node/"));
  test.each(neutral)(
    "$name bundles for a neutral platform without a node: import",
    async (entry) => {
      const { entry: chunk, chunks } = await bundle(`export * from "../../${entry.source}";`);
      for (const file of [chunk, ...chunks]) expect(file.text).not.toMatch(/["']node:/);
    },
  );
});
