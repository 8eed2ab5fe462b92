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
    // The JSON Schema interpreter is behind a dynamic import; splitting keeps it out of the
    // entry chunk, as Vite, Rollup and webpack do by default.
    splitting: true,
    outdir: `${here}out`,
    logLevel: "silent",
  });
  const entry = result.outputFiles.find((file) => file.path.endsWith("stdin.js"));
  if (!entry) throw new Error("esbuild produced no entry chunk");
  return { entry, chunks: result.outputFiles.filter((file) => file !== entry) };
}

describe("tree-shaking", () => {
  test("an app with only valibot tools loads no @cfworker/json-schema code", async () => {
    const { entry, chunks } = await bundle(`
      import * as v from "valibot";
      import { defineTool, Toolset } from "../../src/index.ts";
      const add = defineTool({
        name: "add", description: "Adds", input: v.object({ a: v.number(), b: v.number() }),
        call: ({ a, b }) => String(a + b),
      });
      export const tools = Toolset.local([add]);
    `);
    expect(entry.text).toContain("toolwire.ToolError");
    expect(entry.text).not.toContain(MARKER);
    // The marker does survive the build, so the assertion above can fail.
    expect(chunks.some((chunk) => chunk.text.includes(MARKER))).toBe(true);
  });

  test("an app with a raw JSON Schema tool does bundle @cfworker/json-schema", async () => {
    const { entry, chunks } = await bundle(`
      import { defineTool, Toolset } from "../../src/index.ts";
      const search = defineTool({
        name: "search", description: "Searches", input: { jsonSchema: { type: "object" } },
        call: () => "none",
      });
      export const tools = Toolset.local([search]);
    `);
    const lazy = chunks.find((chunk) => chunk.text.includes(MARKER));
    expect(lazy).toBeDefined();
    const name = lazy?.path.split("/").pop() ?? "";
    expect(entry.text).toContain(name);
  });

  test("importing only ToolError bundles neither schema library", async () => {
    const { entry } = await bundle(`
      import { ToolError } from "../../src/index.ts";
      export const error = new ToolError({ type: "closed", operation: "x" });
    `);
    expect(entry.text).toContain("toolwire.ToolError");
    expect(entry.text).not.toContain(MARKER);
    expect(entry.text).not.toContain(CONVERTER);
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
