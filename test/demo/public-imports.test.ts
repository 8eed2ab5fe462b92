/// <reference types="vite/client" />
import { describe, expect, test } from "vitest";

// The demo is the package's showcase; it must only use what an app installing toolwire
// can import, so it reaches src/ through the public entries alone. Read through Vite's glob
// import, so this test needs no `node:` module.
const demo = import.meta.glob<string>("../../demo/**/*.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});
const server = import.meta.glob<string>("../../e2e/demo-mcp-server.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});

/** The browser entries: `toolwire`, `toolwire/agent`, `toolwire/models`, `toolwire/mcp`, `toolwire/oauth`, `toolwire/web`, `toolwire/in-browser`, `toolwire/ui`. */
const BROWSER_ENTRIES = [
  "src/index.ts",
  "src/agent/index.ts",
  "src/models/index.ts",
  "src/mcp/index.ts",
  "src/oauth/index.ts",
  "src/web/index.ts",
  "src/in-browser/index.ts",
  "src/ui/index.ts",
];
/** The e2e's MCP server runs in Node, so it may use `toolwire/node` too. */
const NODE_ENTRIES = [...BROWSER_ENTRIES, "src/node/index.ts"];

const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

/** Returns the repository-relative path a relative specifier names, from a file's glob key. */
function resolve(from: string, specifier: string): string {
  const parts = from.replace("../../", "").split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** Returns every import of `src/` in the files that is not one of `entries`. */
function privateImports(files: Record<string, string>, entries: readonly string[]): string[] {
  return Object.entries(files).flatMap(([path, text]) =>
    [...text.matchAll(SPECIFIERS)]
      .map((match) => match[1] as string)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolve(path, specifier))
      .filter((target) => target.startsWith("src/") && !entries.includes(target))
      .map((target) => `${path.replace("../../", "")} imports ${target}`),
  );
}

describe("the demo imports toolwire only through its public entries", () => {
  test("finds the demo's files, so the checks below can fail", () => {
    const paths = Object.keys(demo).map((path) => path.replace("../../", ""));
    expect(paths).toEqual(
      expect.arrayContaining(["demo/main.ts", "demo/demo-session.ts", "demo/settings.ts"]),
    );
    expect(Object.keys(server)).toHaveLength(1);
  });

  test("the detector sees static, multi-line, re-exported and dynamic imports", () => {
    const sample = {
      "../../demo/ui/sample.ts": [
        'import { a } from "../../src/compaction/estimate-tokens.ts";',
        "import {\n  b,\n} from '../../src/agent/run-loop.ts';",
        'export { c } from "../../src/models/sse.ts";',
        'const d = await import("../../src/mcp/client.ts");',
        'import "../../src/local/define-tool.ts";',
        'import { e } from "../../src/agent/index.ts";',
        'import { f } from "./element.ts";',
      ].join("\n"),
    };
    expect(privateImports(sample, BROWSER_ENTRIES)).toEqual([
      "demo/ui/sample.ts imports src/compaction/estimate-tokens.ts",
      "demo/ui/sample.ts imports src/agent/run-loop.ts",
      "demo/ui/sample.ts imports src/models/sse.ts",
      "demo/ui/sample.ts imports src/mcp/client.ts",
      "demo/ui/sample.ts imports src/local/define-tool.ts",
    ]);
  });

  test("no demo file imports a non-entry src path (nor toolwire/node)", () => {
    expect(privateImports(demo, BROWSER_ENTRIES)).toEqual([]);
  });

  test("the e2e's MCP server imports only public entries", () => {
    expect(privateImports(server, NODE_ENTRIES)).toEqual([]);
  });
});
