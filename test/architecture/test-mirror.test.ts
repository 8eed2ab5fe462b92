/// <reference types="vite/client" />
import { expect, test } from "vitest";

// Style convention 16: "where is the test" has one answer — test/<area>/<file>.test.ts beside
// src/<area>/<file>.ts. Files that only declare types have nothing to run and are exempt.
const sources = import.meta.glob<string>("../../src/**/*.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});
const tests = import.meta.glob("../**/*.test.ts");

test("every source file with runtime code has a test file that mirrors its path", () => {
  const missing = Object.entries(sources)
    .map(([path, text]) => ({ path: path.replace("../../src/", ""), text }))
    .filter(({ path }) => path.split("/").pop() !== "index.ts")
    .filter(({ text }) => /^export (async )?(function|const|class|let) /m.test(text))
    .filter(({ path }) => !(`../${path.replace(/\.ts$/, ".test.ts")}` in tests))
    .map(({ path }) => path);
  expect(missing).toEqual([]);
});
