import { beforeAll, expect, test } from "vitest";
import { apiEntries, apiReports, checkedInReports } from "../../scripts/api-report.ts";

// Every change to what users can import shows up in review: each entry's exported names, kinds
// and signatures must equal its checked-in report (docs/design.md, "Architecture").
let actual: Map<string, string>;
const checkedIn = checkedInReports();

beforeAll(() => {
  actual = apiReports();
}, 120_000);

test("every entry in package.json exports has a report", () => {
  const missing = apiEntries().filter((entry) => checkedIn.get(entry.name) === undefined);
  expect(
    missing.map((entry) => entry.report),
    "missing; run: npm run api:update",
  ).toEqual([]);
});

test.each(apiEntries())("$name exports exactly what $report lists", (entry) => {
  const lines = (actual.get(entry.name) ?? "").split("\n");
  expect(lines.length).toBeGreaterThan(2);
  expect(
    lines,
    `the public API of ${entry.name} changed; if that is intended, run: npm run api:update`,
  ).toEqual((checkedIn.get(entry.name) ?? "").split("\n"));
});
