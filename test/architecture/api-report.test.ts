import { beforeAll, expect, test } from "vitest";
import {
  apiEntries,
  apiSurface,
  checkedInReferences,
  checkedInReports,
  referenceIndex,
  referencePath,
} from "../../scripts/api-report.ts";

// Every change to what users can import shows up in review: each entry's exported names, kinds
// and signatures must equal its checked-in report (docs/design.md, "Architecture"). The API
// reference in docs/api/ is generated from the same compilation with the TSDoc comments, and
// must be current too.
let actual: Map<string, string>;
let references: Map<string, string>;
const checkedIn = checkedInReports();
const checkedInDocs = checkedInReferences();

beforeAll(() => {
  ({ reports: actual, references } = apiSurface());
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

test.each(apiEntries())("the API reference of $name is current", (entry) => {
  expect(
    checkedInDocs.get(entry.name),
    `${referencePath(entry)} is out of date (a doc comment or a signature changed); run: npm run api:update`,
  ).toBe(references.get(entry.name));
});

test("the API reference's index lists every entry", () => {
  expect(checkedInDocs.get("index"), "run: npm run api:update").toBe(referenceIndex(references));
});
