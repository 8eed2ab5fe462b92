/// <reference types="vite/client" />
import { expect, test } from "vitest";
import { allCases } from "../portable/all.ts";

// Deno and workerd cannot glob, so test/portable/all.ts lists the case files by hand; a file
// missing from it would silently run in no runtime.
const files = Object.keys(import.meta.glob("../portable/*.cases.ts")).map((path) =>
  path.replace("../portable/", ""),
);

test("every test/portable/*.cases.ts file is in the portable suite", () => {
  expect(allCases.map((entry) => entry.file).sort()).toEqual(files.sort());
  for (const entry of allCases) expect(entry.cases.length).toBeGreaterThan(0);
});
