// `npm test` step: serves the conformance fixture on 127.0.0.1 (a free port) and runs the server
// scenarios of the MCP conformance suite against it, each run with its expected-failures
// baseline, then stops the server. Three runs, one endpoint serving both protocol eras:
//   - @modelcontextprotocol/conformance@0.1.13, every server scenario (expected-failures.yaml);
//   - 0.2.0-alpha.12 (`conformance-next`, which needs Node >= 22: the `node22` devDependency) at
//     `--requirements 2025-11-25` (expected-failures-2025-11-25.yaml);
//   - 0.2.0-alpha.12 at `--requirements 2026-07-28` (expected-failures-2026-07-28.yaml);
// then the ten `tasks-*` scenarios of the Tasks extension in 0.2.0-alpha.12, each on its own at
// 2026-07-28 (expected-failures-tasks.yaml),
// then the client scenarios of 0.2.0-alpha.12 at both revisions, the suite's scenario servers
// driving `connectMcp` through e2e/mcp-conformance/client.ts
// (expected-client-failures-<revision>.yaml): once pinned to the revision (`client-<revision>`)
// and once with the default `protocol: "auto"` a user gets (`client-auto-<revision>`, same
// baseline), since only the default meets a server's answer to the era probe.
// `--only <run>` (legacy, 2025-11-25, 2026-07-28, tasks, client-2025-11-25, client-auto-2026-07-28, …)
// runs one of them; `--no-baseline` drops the baselines;
// other arguments (e.g. `--scenario tools-list`) go to the suite. Exits non-zero when any run
// fails (a scenario outside its baseline failed, or a baseline entry passed).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { serve } from "../../src/node/index.ts";
import { conformanceHandler } from "./fixture.ts";

const here = (path: string) => new URL(path, import.meta.url).pathname;
// The suite starts every client scenario at once, one process each. Compiling the TypeScript
// sources in each (`--import tsx`) cost ~1 s of CPU per process, so on a busy 2-core host the
// last ones started near the suite's 30 s limit (issue 22: two auth scenarios failed there).
// The client is bundled once into plain JavaScript, and the limit is raised to a margin that
// holds under load; a scenario that really hangs still fails, only later.
const clientDir = mkdtempSync(join(tmpdir(), "toolwire-conformance-client-"));
const clientFile = join(clientDir, "client.mjs");
const CLIENT_SCENARIO_TIMEOUT_MS = 120_000;

const RUNS = {
  legacy: {
    // Not `.bin/conformance`: both versions declare that bin, and npm links only one.
    command: [
      process.execPath,
      here("../../node_modules/@modelcontextprotocol/conformance/dist/index.js"),
      "server",
      "--suite",
      "all",
    ],
    baseline: here("expected-failures.yaml"),
  },
  "2025-11-25": {
    command: [
      here("../../node_modules/node22/bin/node"),
      here("../../node_modules/conformance-next/dist/index.js"),
      "server",
      "--requirements",
      "2025-11-25",
    ],
    baseline: here("expected-failures-2025-11-25.yaml"),
  },
  "2026-07-28": {
    command: [
      here("../../node_modules/node22/bin/node"),
      here("../../node_modules/conformance-next/dist/index.js"),
      "server",
      "--requirements",
      "2026-07-28",
    ],
    baseline: here("expected-failures-2026-07-28.yaml"),
  },
  // The Tasks extension's server scenarios: tagged `extension`, so `--requirements` runs none
  // of them, and `--spec-version` skips them ("not on the spec timeline"). Each is run on its
  // own, with no version: an extension scenario then speaks the 2026-07-28 wire.
  tasks: {
    command: [
      here("../../node_modules/node22/bin/node"),
      here("../../node_modules/conformance-next/dist/index.js"),
      "server",
    ],
    baseline: here("expected-failures-tasks.yaml"),
    scenarios: [
      "tasks-lifecycle",
      "tasks-capability-negotiation",
      "tasks-wire-fields",
      "tasks-request-state-removal",
      "tasks-mrtr-input",
      "tasks-request-headers",
      "tasks-dispatch-and-envelope",
      "tasks-status-notifications",
      "tasks-required-task-error",
      "tasks-mrtr-composition",
    ],
  },
  "client-2025-11-25": clientRun("2025-11-25"),
  "client-2026-07-28": clientRun("2026-07-28"),
  "client-auto-2025-11-25": clientRun("2025-11-25", "auto"),
  "client-auto-2026-07-28": clientRun("2026-07-28", "auto"),
} as const;

function clientRun(revision: string, protocol?: "auto") {
  return {
    command: [
      here("../../node_modules/node22/bin/node"),
      here("../../node_modules/conformance-next/dist/index.js"),
      "client",
      // `exec`: the suite runs the command through a shell and, at its limit, kills only the
      // shell; without it a client cut off there lives on.
      "--command",
      `exec ${process.execPath} ${clientFile}`,
      "--timeout",
      String(CLIENT_SCENARIO_TIMEOUT_MS),
      "--requirements",
      revision,
    ],
    baseline: here(`expected-client-failures-${revision}.yaml`),
    // The suite hands its environment to the client it starts; client.ts reads this.
    env: protocol ? { TOOLWIRE_CONFORMANCE_PROTOCOL: protocol } : {},
  };
}

const argv = process.argv.slice(2);
const onlyAt = argv.indexOf("--only");
const only = onlyAt === -1 ? undefined : argv[onlyAt + 1];
const passThrough = argv.filter(
  (arg, i) => arg !== "--no-baseline" && i !== onlyAt && i !== onlyAt + 1,
);
const runs = Object.entries(RUNS).filter(([name]) => only === undefined || name === only);
if (runs.length === 0) {
  console.error(`--only must be one of ${Object.keys(RUNS).join(", ")}`);
  process.exit(2);
}

if (runs.some(([name]) => name.startsWith("client-"))) {
  await build({
    entryPoints: [here("client.ts")],
    outfile: clientFile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
}
const server = await serve(conformanceHandler(), { port: 0 });
let failed = false;
for (const [name, run] of runs) {
  const [cli = "", ...rest] = run.command;
  // One scenario is run at the revision's wire (`--spec-version`); `--requirements` runs a set.
  const command = passThrough.includes("--scenario")
    ? rest.map((arg) => (arg === "--requirements" ? "--spec-version" : arg))
    : rest;
  // Client runs start their own scenario servers; server runs get the fixture's URL.
  const args = name.startsWith("client-")
    ? [...command]
    : [...command, "--url", `${server.url}/mcp`];
  if (!argv.includes("--no-baseline")) args.push("--expected-failures", run.baseline);
  const env = { ...process.env, ...("env" in run ? run.env : {}) };
  const scenarios =
    "scenarios" in run && !passThrough.includes("--scenario") ? run.scenarios : [undefined];
  for (const scenario of scenarios) {
    console.log(`\n== conformance ${name}${scenario ? ` ${scenario}` : ""} ==`);
    const picked = scenario ? ["--scenario", scenario] : [];
    const child = spawn(cli, [...args, ...picked, ...passThrough], { stdio: "inherit", env });
    const code = await new Promise<number>((resolve) => {
      child.once("close", (exit) => resolve(exit ?? 1));
      child.once("error", () => resolve(1));
    });
    if (code !== 0) failed = true;
  }
}
await server.close();
rmSync(clientDir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
