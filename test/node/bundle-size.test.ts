import { describe, expect, test } from "vitest";
import { measure, toolwireCases } from "../../bench/bundle-size.ts";

// Size budgets are part of what toolwire promises browser and edge users (issue 7); a change that
// breaks one fails here rather than in someone's cold start. Each holds for an application's
// split build (its entry chunk) and for one file, as a Worker or a script tag loads it (issue 18).
const kb = (bytes: number | undefined) => ((bytes ?? 0) / 1024).toFixed(0);

describe("bundle sizes", () => {
  for (const entry of toolwireCases) {
    const single = entry.singleFileBudget ?? entry.budget;
    test(`${entry.name}: split ≤ ${kb(entry.budget)} KB, one file ≤ ${kb(single)} KB gzip`, async () => {
      const [split, whole] = await Promise.all([measure(entry), measure(entry, "browser", false)]);
      expect(split.gzip).toBeLessThanOrEqual(entry.budget ?? Number.POSITIVE_INFINITY);
      expect(whole.gzip).toBeLessThanOrEqual(single ?? Number.POSITIVE_INFINITY);
    });

    test(`${entry.name} has no node: import when bundled for a neutral runtime`, async () => {
      const size = await measure(entry, "neutral", false);
      expect(size.nodeImports).toEqual([]);
      expect(size.minified).toBeGreaterThan(0);
    });
  }
});
