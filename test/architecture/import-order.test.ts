/// <reference types="vite/client" />
import { describe, expect, test } from "vitest";

// Read through Vite's glob import, so this test needs no `node:` module.
const sources = import.meta.glob<string>("../../src/**/*.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});

// The import order of the common context: a file may import from its own folder or earlier ones.
// `sse` (the server-sent events parser) sits just before `mcp` because both the MCP
// client and the model adapters read event streams, and `models` must not import `mcp`.
const ORDER = [
  "errors.ts",
  "redaction.ts",
  "abort.ts",
  "observer.ts",
  "store",
  "schema",
  "json-schema",
  "declaration",
  "interaction",
  "execution",
  "local",
  "toolset",
  "sse",
  "mcp",
  "oauth",
  "web",
  "models",
  "in-browser",
  "compaction",
  "agent",
  "ai-sdk",
  "otel",
  "ui",
  "node",
];

const files = Object.entries(sources).map(([path, text]) => ({
  path: path.replace("../../src/", ""),
  text,
}));

function rank(path: string): number {
  const top = path.split("/")[0] ?? path;
  return ORDER.indexOf(top);
}

function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

function imports(text: string): string[] {
  return [...text.matchAll(SPECIFIERS)].map((match) => match[1] as string);
}

/**
 * Every cycle of `graph` (file -> files it imports), each as `a -> b -> a`: at least one per
 * group of files that reach each other, since a depth-first walk meets a back edge in each.
 */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (file: string, stack: string[]) => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") {
      found.push([...stack.slice(stack.indexOf(file)), file].join(" -> "));
      return;
    }
    state.set(file, "open");
    for (const target of graph.get(file) ?? []) visit(target, [...stack, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

// Type-only imports count: they are erased at run time, but a cycle through them still means
// two files can only be read, changed and moved together.
function relativeImports(from: string, text: string): string[] {
  return imports(text)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => resolve(from, specifier));
}

describe("src imports", () => {
  test("finds the core's files", () => {
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(["errors.ts", "index.ts"]));
  });

  test("every top-level folder has a place in the import order", () => {
    const unknown = files.filter((f) => f.path !== "index.ts" && rank(f.path) === -1);
    expect(unknown.map((f) => f.path)).toEqual([]);
  });

  test("never import from a later folder", () => {
    const backward: string[] = [];
    for (const file of files) {
      // Entry points (index.ts) re-export their whole area and sit outside the order.
      if (file.path.endsWith("index.ts")) continue;
      for (const specifier of imports(file.text)) {
        if (!specifier.startsWith(".")) continue;
        const target = resolve(file.path, specifier);
        if (rank(target) > rank(file.path)) backward.push(`${file.path} -> ${target}`);
      }
    }
    expect(backward).toEqual([]);
  });

  // design.md, "What the architecture checks guard": files that import each other, even only
  // for types, are one module in two files.
  test("no import cycle, type-only imports included", () => {
    const graph = new Map(files.map((file) => [file.path, relativeImports(file.path, file.text)]));
    const found = cycles(graph);
    expect(found, "import cycles in src/, type-only imports included; break each").toEqual([]);
  });

  test("the cycle check counts type-only imports and names every file of a cycle", () => {
    const a = 'import { b } from "./b.ts";\nimport type {\n  C,\n} from "../y/c.ts";';
    expect(relativeImports("x/a.ts", a)).toEqual(["x/b.ts", "y/c.ts"]);
    const graph = new Map([
      ["x/a.ts", ["x/b.ts"]],
      ["x/b.ts", ["y/c.ts"]],
      ["y/c.ts", ["x/a.ts"]],
      ["y/d.ts", ["x/a.ts"]],
    ]);
    expect(cycles(graph)).toEqual(["x/a.ts -> x/b.ts -> y/c.ts -> x/a.ts"]);
    expect(
      cycles(
        new Map([
          ["x/a.ts", ["x/b.ts"]],
          ["x/b.ts", []],
        ]),
      ),
    ).toEqual([]);
  });

  test("end every relative import in .ts", () => {
    const bad = files.flatMap((file) =>
      imports(file.text)
        .filter((s) => s.startsWith(".") && !s.endsWith(".ts"))
        .map((s) => `${file.path}: ${s}`),
    );
    expect(bad).toEqual([]);
  });

  test("import node: modules only under src/node", () => {
    const bad = files.flatMap((file) =>
      file.path.startsWith("node/")
        ? []
        : imports(file.text)
            .filter((s) => s.startsWith("node:"))
            .map((s) => `${file.path}: ${s}`),
    );
    expect(bad).toEqual([]);
  });

  test("the parser sees every kind of import line, so the checks above can fail", () => {
    const sample = [
      'import { a } from "./a.ts";',
      'import type { B } from "../b/b.ts";',
      'export { c } from "./c.ts";',
      'import "./side.ts";',
      'const d = await import("node:fs");',
      "import {\n  e,\n} from './e.ts';",
    ].join("\n");
    expect(imports(sample)).toEqual([
      "./a.ts",
      "../b/b.ts",
      "./c.ts",
      "./side.ts",
      "node:fs",
      "./e.ts",
    ]);
    expect(rank(resolve("schema/x.ts", "../toolset/toolset.ts"))).toBeGreaterThan(
      rank("schema/x.ts"),
    );
  });
});
