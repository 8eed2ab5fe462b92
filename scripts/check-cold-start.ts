// `npm test`'s cold-start step: importing any one entry into a fresh node costs at most 40 ms
// of CPU (issue 18; design.md BC5). The build under test is the package's own
// (scripts/build.mjs, without the .d.ts step), in a directory of its own so a concurrent
// `npm run build` is not disturbed. It is a step of its own rather than a vitest file so that
// no other test competes for the CPU while fresh processes are timed.
import { rmSync } from "node:fs";
import { COLD_START_BUDGET_MS, measureColdStarts } from "../bench/cold-start.ts";
import { bundleEntries } from "./build.mjs";

const OUT = ".cold-start-test";

// Up to three batches of 9 rounds: an entry over budget in one batch is measured again and
// keeps its least figure. Other work on the machine only ever adds to an import's CPU time, and
// on a host busy with other machines' work a whole batch can read 10 ms high (CI's least figure
// for toolwire/agent moved between 32 and 42 ms across runs of the same build).
const BATCHES = 3;
let over = 0;
try {
  await bundleEntries(OUT);
  const least = new Map<string, { cpuMs: number; leastCpuMs: number }>();
  for (let batch = 0; batch < BATCHES; batch++) {
    for (const start of measureColdStarts(9, OUT)) {
      const known = least.get(start.name);
      if (!known || !(known.leastCpuMs <= start.leastCpuMs)) least.set(start.name, start);
    }
    if (least.size < 2) throw new Error(`only ${least.size} entries were built in ${OUT}`);
    if ([...least.values()].every((start) => start.leastCpuMs <= COLD_START_BUDGET_MS)) break;
  }
  for (const [name, { cpuMs, leastCpuMs }] of least) {
    // NaN, a probe that printed nothing, is over budget too.
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
