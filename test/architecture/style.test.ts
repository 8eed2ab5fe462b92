/// <reference types="vite/client" />
import { describe, expect, test } from "vitest";
import { apiEntries } from "../../scripts/api-report.ts";

// Source hygiene a reviewer would otherwise check by hand (docs/design.md, "Architecture").
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
    const extending = files.flatMap(({ text }) =>
      [...text.matchAll(/\bclass (\w+) extends Error\b/g)].map((m) => m[1]),
    );
    expect(extending.sort()).toEqual(["ModelError", "ToolError"]);
    const generating = files
      .filter(({ text }) => /\bnew Function\s*\(|[^.\w]eval\s*\(/.test(text))
      .map(({ path }) => path);
    expect(generating).toEqual([]);
  });

  test("the only index files are the entries in package.json exports, re-exporting by name", () => {
    const indexes = files.filter(({ path }) => path.split("/").pop() === "index.ts");
    const entries = apiEntries().map((entry) => entry.source.replace(/^src\//, ""));
    expect(indexes.map(({ path }) => path).sort()).toEqual(entries.sort());
    for (const { text } of indexes) expect(text).not.toMatch(/export \*/);
  });
});
