import { describe, expect, test } from "vitest";
import { measure, toolwireCases } from "../../bench/bundle-size.ts";

// Size budgets are part of what toolwire promises browser and edge users (issue 7); a change that
// breaks one fails here rather than in someone's cold start.
describe("bundle sizes", () => {
  for (const entry of toolwireCases) {
    test(`${entry.name} stays within ${((entry.budget ?? 0) / 1024).toFixed(0)} KB gzip`, async () => {
      const size = await measure(entry);
      expect(size.gzip).toBeLessThanOrEqual(entry.budget ?? Number.POSITIVE_INFINITY);
    });

    test(`${entry.name} has no node: import when bundled for a neutral runtime`, async () => {
      const size = await measure(entry, "neutral");
      expect(size.nodeImports).toEqual([]);
      expect(size.minified).toBeGreaterThan(0);
    });
  }
});
