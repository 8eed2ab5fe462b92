/**
 * Vitest adapter for the portable suite. The `node`, `browser` and `workerd` vitest projects all
 * include this file, so every portable case runs once per runtime.
 */
import { describe, test } from "vitest";
import { allCases } from "../portable/all.ts";

for (const { file, cases } of allCases) {
  describe(file, () => {
    for (const c of cases) {
      test(c.name, () => c.run());
    }
  });
}
