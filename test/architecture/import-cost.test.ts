import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import {
  IMPORT_BYTES_BUDGET,
  importCostProblems,
  probeImport,
} from "../../bench/import-cost/measure.ts";

// The cold-start step of `npm test` (scripts/check-cold-start.ts) holds each entry to exact
// figures instead of a CPU time, so it passes or fails the same on an idle and a busy machine
// (issue 22). These tests hold the probe itself: what it counts and what it flags.
const dir = mkdtempSync(join(tmpdir(), "toolwire-import-cost-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const own = pathToFileURL(`${dir}/`).href;

function module(name: string, source: string): string {
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
}

describe("import cost probe", () => {
  test("counts every module an import evaluates, with its exact source bytes", () => {
    const leafSource = `export const leaf = ${JSON.stringify("x".repeat(5000))};\n`;
    const rootSource = `import { leaf } from "./leaf.mjs";\nexport const size = leaf.length;\n`;
    module("leaf.mjs", leafSource);
    const root = module("root.mjs", rootSource);
    const cost = probeImport("root", root, own);
    expect(cost.modules).toBe(2);
    expect(cost.bytes).toBe(Buffer.byteLength(leafSource) + Buffer.byteLength(rootSource));
    expect(cost.ownBytes).toBe(cost.bytes);
    expect(importCostProblems(cost)).toEqual([]);
  });

  test("gives the same figures on every run", () => {
    const file = module("stable.mjs", "export const a = [1, 2, 3].map((n) => n * 2);\n");
    const first = probeImport("stable", file, own);
    expect(probeImport("stable", file, own)).toEqual(first);
  });

  test("flags a module that builds a fetch value at import, naming what it loaded", () => {
    // On Node a Headers made at import loads the whole fetch implementation (design.md BC5).
    const file = module("eager.mjs", "export const headers = new Headers({ a: '1' });\n");
    const problems = importCostProblems(probeImport("eager", file, own));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/loads Node internals at import: .*undici/);
  });

  test("does not flag the same value made on first use", () => {
    const file = module(
      "lazy.mjs",
      "let headers;\nexport const get = () => (headers ??= new Headers({ a: '1' }));\n",
    );
    expect(importCostProblems(probeImport("lazy", file, own))).toEqual([]);
  });

  test("flags an import over the byte budget", () => {
    const file = module(
      "big.mjs",
      `export const big = ${JSON.stringify("y".repeat(IMPORT_BYTES_BUDGET + 1024))};\n`,
    );
    const problems = importCostProblems(probeImport("big", file, own));
    expect(problems).toEqual([expect.stringMatching(/^evaluates \d+ bytes, over the \d+ budget$/)]);
  });
});
