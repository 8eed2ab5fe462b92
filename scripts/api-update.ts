// `npm run api:update`: rewrites api/<entry>.api.txt and the API reference in docs/api/ from the
// sources (see scripts/api-report.ts).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { apiEntries, apiSurface, referenceIndex, referencePath } from "./api-report.ts";

const root = join(import.meta.dirname, "..");
const { reports, references } = apiSurface();

function update(file: string, text: string) {
  const path = join(root, file);
  let old: string | undefined;
  try {
    old = readFileSync(path, "utf8");
  } catch {
    old = undefined;
  }
  if (old === text) return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`updated ${file}`);
}

for (const entry of apiEntries()) {
  update(entry.report, reports.get(entry.name) ?? "");
  update(referencePath(entry), references.get(entry.name) ?? "");
}
update("docs/api/README.md", referenceIndex(references));
