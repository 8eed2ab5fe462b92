// `npm run api:update`: rewrites api/<entry>.api.txt from the sources (see scripts/api-report.ts).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { apiEntries, apiReports } from "./api-report.ts";

const root = join(import.meta.dirname, "..");
const reports = apiReports();
for (const entry of apiEntries()) {
  const path = join(root, entry.report);
  const text = reports.get(entry.name) ?? "";
  let old: string | undefined;
  try {
    old = readFileSync(path, "utf8");
  } catch {
    old = undefined;
  }
  if (old === text) continue;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`updated ${entry.report}`);
}
