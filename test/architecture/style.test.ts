/// <reference types="vite/client" />
import { describe, expect, test } from "vitest";

// The style conventions a reviewer would otherwise check by hand (reference/style.md §6).
const sources = import.meta.glob<string>("../../src/**/*.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});
const files = Object.entries(sources).map(([path, text]) => ({
  path: path.replace("../../src/", ""),
  text,
}));

describe("source style", () => {
  test("every exported declaration carries a TSDoc block", () => {
    const missing: string[] = [];
    for (const { path, text } of files) {
      const lines = text.split("\n");
      const documented = new Set<string>();
      lines.forEach((line, index) => {
        const match =
          /^export (?:declare )?(?:async )?(?:function|const|class|interface|type|let) ([A-Za-z_$][\w$]*)/.exec(
            line,
          );
        if (!match) return;
        const name = match[1] as string;
        // Hint: an overloaded function is documented once, above its first signature.
        if (documented.has(name)) return;
        if (/\*\/\s*$/.test(lines[index - 1] ?? "")) documented.add(name);
        else missing.push(`${path}:${index + 1} ${name}`);
      });
    }
    expect(missing).toEqual([]);
  });

  test("no grab-bag file names and every file name is kebab-case", () => {
    const bad = files
      .map(({ path }) => path)
      .filter((path) => {
        const name = path.split("/").pop() ?? "";
        return /util|helper|common|misc/i.test(name) || !/^[a-z0-9]+(-[a-z0-9]+)*\.ts$/.test(name);
      });
    expect(bad).toEqual([]);
  });

  test("only the two error classes extend Error, and nothing generates code", () => {
    const extending = files
      .filter(({ text }) => /\bextends Error\b/.test(text))
      .map(({ path }) => path);
    expect(extending.sort()).toEqual(["errors.ts", "models/model-error.ts"]);
    const generating = files
      .filter(({ text }) => /\bnew Function\s*\(|[^.\w]eval\s*\(/.test(text))
      .map(({ path }) => path);
    expect(generating).toEqual([]);
  });

  test("the only index files are the six entry points, re-exporting by name", () => {
    const indexes = files.filter(({ path }) => path.split("/").pop() === "index.ts");
    expect(indexes.map(({ path }) => path).sort()).toEqual([
      "agent/index.ts",
      "ai-sdk/index.ts",
      "index.ts",
      "mcp/index.ts",
      "models/index.ts",
      "node/index.ts",
    ]);
    for (const { text } of indexes) expect(text).not.toMatch(/export \*/);
  });
});
