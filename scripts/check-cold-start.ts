// `npm test`'s cold-start step: importing any one entry into a fresh node costs at most 40 ms
// of CPU (issue 18; design.md BC5). The build under test is the package's own
// (scripts/build.mjs, without the .d.ts step), in a directory of its own so a concurrent
// `npm run build` is not disturbed. It is a step of its own rather than a vitest file so that
// no other test competes for the CPU while fresh processes are timed.
import { rmSync } from "node:fs";
import { COLD_START_BUDGET_MS, measureColdStarts } from "../bench/cold-start.ts";
import { bundleEntries } from "./build.mjs";

const OUT = ".cold-start-test";

let over = 0;
try {
  await bundleEntries(OUT);
  const starts = measureColdStarts(9, OUT);
  if (starts.length < 2) throw new Error(`only ${starts.length} entries were built in ${OUT}`);
  for (const { name, cpuMs, leastCpuMs } of starts) {
    // The least of the rounds (bench/cold-start.ts says why); NaN, a probe that printed
    // nothing, is over budget too.
    const ok = leastCpuMs <= COLD_START_BUDGET_MS;
    if (!ok) over++;
    console.log(
      `${ok ? "ok  " : "OVER"} ${name.padEnd(22)} ${leastCpuMs.toFixed(1)} ms CPU (median ${cpuMs.toFixed(1)})`,
    );
  }
} finally {
  rmSync(new URL(`../${OUT}`, import.meta.url), { recursive: true, force: true });
}
console.log(
  over === 0
    ? `every entry within ${COLD_START_BUDGET_MS} ms CPU`
    : `${over} entries over ${COLD_START_BUDGET_MS} ms CPU`,
);
process.exit(over === 0 ? 0 : 1);
