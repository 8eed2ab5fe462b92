import { rmSync } from "node:fs";
import { afterAll, describe, expect, test } from "vitest";
import { COLD_START_BUDGET_MS, measureColdStarts } from "../../bench/cold-start.ts";
import { bundleEntries } from "../../scripts/build.mjs";

// Cold start is part of what toolwire promises Node and serverless users (issue 18): importing
// any one entry into a fresh process costs at most 40 ms of CPU. The build under test is the
// package's own (scripts/build.mjs, without the .d.ts step), in a directory of its own so a
// concurrent `npm run build` is not disturbed.
const OUT = ".cold-start-test";

describe("cold start", () => {
  afterAll(() =>
    rmSync(new URL(`../../${OUT}`, import.meta.url), { recursive: true, force: true }),
  );

  test(`importing any entry into a fresh node costs at most ${COLD_START_BUDGET_MS} ms of CPU`, async () => {
    await bundleEntries(OUT);
    const starts = measureColdStarts(7, OUT);
    expect(starts.length).toBeGreaterThan(1);
    const over = starts.filter((start) => !(start.cpuMs <= COLD_START_BUDGET_MS));
    expect(over.map(({ name, cpuMs }) => `${name}: ${cpuMs.toFixed(1)} ms`)).toEqual([]);
  }, 180_000);
});
