// `npm test`'s cold-start step: what importing each entry into a fresh Node evaluates, held to a
// budget exactly (design.md BC5). It counts the bytes of every module the import loads and the
// Node internals it pulls in, figures that are the same on an idle and on a busy machine; the
// CPU time those bytes cost is `npm run bench`'s to print (bench/cold-start.ts), since no timing
// may decide whether the tests pass. The build under test is the package's own
// (scripts/build.mjs, without the .d.ts step), in a directory of its own so a concurrent
// `npm run build` is not disturbed.
import { rmSync } from "node:fs";
import {
  IMPORT_BYTES_BUDGET,
  importCostProblems,
  measureImportCosts,
} from "../bench/import-cost/measure.ts";
import { bundleEntries } from "./build.mjs";

const OUT = ".cold-start-test";
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

let over = 0;
try {
  await bundleEntries(OUT);
  const costs = measureImportCosts(OUT);
  if (costs.length < 2) throw new Error(`only ${costs.length} entries were built in ${OUT}`);
  for (const cost of costs) {
    const problems = importCostProblems(cost);
    if (problems.length > 0) over++;
    console.log(
      `${problems.length === 0 ? "ok  " : "OVER"} ${cost.name.padEnd(22)} ${String(cost.modules).padStart(3)} modules, ${kb(cost.bytes).padStart(10)} (own ${kb(cost.ownBytes)})${problems.map((p) => `\n     ${p}`).join("")}`,
    );
  }
} finally {
  rmSync(new URL(`../${OUT}`, import.meta.url), { recursive: true, force: true });
}
console.log(
  over === 0
    ? `every entry's import within ${kb(IMPORT_BYTES_BUDGET)} and no Node internals beyond the allowed`
    : `${over} entries over their import budget`,
);
process.exit(over === 0 ? 0 : 1);
