/**
 * Deno adapter for the portable suite:
 * `deno test --no-remote --cached-only --allow-read --allow-env test/portable/deno.test.ts`.
 */
import { allCases } from "./all.ts";

for (const { file, cases } of allCases) {
  for (const c of cases) {
    Deno.test(`${file} > ${c.name}`, () => c.run());
  }
}
