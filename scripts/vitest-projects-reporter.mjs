// Vitest reporter: counts tests per project (node, browser, workerd) and writes them to
// test-results/vitest-projects.json, so scripts/test.mjs can show that the portable suite ran in
// every runtime. (Vitest's JSON reporter does not record the project of a test file.)
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";

const outputFile = resolve("test-results/vitest-projects.json");

export default class ProjectsReporter {
  /** @param {ReadonlyArray<import("vitest/node").TestModule>} testModules */
  async onTestRunEnd(testModules) {
    /** @type {Record<string, {passed: number, failed: number, skipped: number, files: Record<string, number>}>} */
    const projects = {};
    for (const module of testModules) {
      const name = module.project.name || "default";
      projects[name] ??= { passed: 0, failed: 0, skipped: 0, files: {} };
      const entry = projects[name];
      let count = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") entry.passed++;
        else if (state === "failed") entry.failed++;
        else entry.skipped++;
        count++;
      }
      // A file that fails to load has no tests but still fails.
      if (module.state() === "failed" && count === 0) entry.failed++;
      entry.files[relative(process.cwd(), module.moduleId)] = count;
    }
    await mkdir(dirname(outputFile), { recursive: true });
    await writeFile(outputFile, `${JSON.stringify(projects, null, 2)}\n`);
  }
}
