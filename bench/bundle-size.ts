// Bundles realistic entry points the way an application would (esbuild, minified, tree-shaken)
// and reports gzip -9 sizes. Used by `npm run bench` (with the peers beside us) and by the
// budget test in test/node/bundle-size.test.ts.
import { gzipSync } from "node:zlib";
import { build, type Plugin } from "esbuild";

/** One bundle to measure: an entry written as source, and its budget in gzip bytes. */
export interface BundleCase {
  name: string;
  source: string;
  budget?: number;
}

/** What a measured bundle weighs and whether it reaches for Node built-ins. */
export interface BundleSize {
  name: string;
  minified: number;
  gzip: number;
  /** Chunks loaded only on demand (dynamic imports), in minified bytes. */
  lazy: number;
  budget?: number;
  nodeImports: string[];
}

const root = new URL("..", import.meta.url).pathname;

// Hint: a neutral build must not resolve `node:` modules; record them instead of failing so the
// test can name the offender.
function recordNodeImports(found: Set<string>): Plugin {
  return {
    name: "record-node-imports",
    setup(b) {
      b.onResolve({ filter: /^node:/ }, (args) => {
        found.add(args.path);
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * Returns the size of one entry bundled for the given platform.
 *
 * @param entry The case to bundle.
 * @param platform `browser` (what an app ships) or `neutral` (what an edge runtime loads).
 */
export async function measure(
  entry: BundleCase,
  platform: "browser" | "neutral" = "browser",
): Promise<BundleSize> {
  const nodeImports = new Set<string>();
  const result = await build({
    stdin: {
      contents: entry.source,
      resolveDir: root,
      loader: "ts",
      sourcefile: `${entry.name}.ts`,
    },
    bundle: true,
    write: false,
    // Hint: split like an application bundler does, so code behind a dynamic import (the JSON
    // Schema interpreter) is counted as a lazy chunk, not as what every page load ships.
    splitting: true,
    outdir: "out",
    minify: true,
    treeShaking: true,
    format: "esm",
    platform,
    target: "es2022",
    mainFields: platform === "neutral" ? ["module", "main"] : ["browser", "module", "main"],
    conditions: platform === "neutral" ? ["workerd", "worker", "import"] : ["browser", "import"],
    logLevel: "silent",
    plugins: [recordNodeImports(nodeImports)],
  });
  const main = result.outputFiles.find((file) => !file.path.includes("chunk-"));
  const chunks = result.outputFiles.filter((file) => file !== main);
  const code = main?.contents ?? new Uint8Array();
  const size: BundleSize = {
    name: entry.name,
    minified: code.byteLength,
    gzip: gzipSync(code, { level: 9 }).byteLength,
    lazy: chunks.reduce((sum, chunk) => sum + chunk.contents.byteLength, 0),
    nodeImports: [...nodeImports],
  };
  if (entry.budget !== undefined) size.budget = entry.budget;
  return size;
}

const KB = 1024;

/** toolwire's realistic entries and their budgets (issue 7). */
export const toolwireCases: BundleCase[] = [
  {
    name: "core: one valibot tool, Toolset.local, call, listTools",
    budget: 12 * KB,
    source: `import * as v from "valibot";
import { defineTool, Toolset } from "./src/index.ts";
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
const tools = Toolset.local([add]);
export const run = async () => [await tools.listTools(), await tools.call("add", { a: 1, b: 2 })];`,
  },
];
