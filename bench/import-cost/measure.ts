// What importing one built entry makes a fresh Node evaluate: the modules (toolwire's own files
// and its dependencies) with their source bytes, and the Node-internal modules the import
// pulls in. Unlike CPU time these figures are exact, so `npm test` can hold a budget on them on
// any machine, however busy (issue 22: the timed budget failed on a loaded CI host); the CPU
// time itself is `npm run bench`'s (bench/cold-start.ts).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const root = new URL("../../", import.meta.url);

/** What one entry's import loads. */
export interface ImportCost {
  /** The import specifier, e.g. `toolwire/mcp`. */
  name: string;
  /** Modules evaluated, toolwire's and its dependencies'. */
  modules: number;
  /** Their source bytes: what Node reads, parses and runs for the import. */
  bytes: number;
  /** The share of `bytes` that is toolwire's own build. */
  ownBytes: number;
  /** Node-internal modules the import made Node load that an empty process had not. */
  internal: string[];
}

/**
 * Node-internal modules an import may load: the lexer Node uses to read the named exports of a
 * CommonJS dependency (eventemitter3). Anything else (the fetch implementation behind a
 * `Request` built at import, `node:http`, `node:child_process`) is work a program that never
 * uses it should not pay for (design.md BC5).
 */
export const ALLOWED_INTERNAL = ["NativeModule internal/deps/cjs-module-lexer/lexer"];

/**
 * The budget on the bytes one entry's import evaluates. Calibrated against the CPU time `npm run
 * bench` measures: on this project's 2-core machine, the largest entry (`toolwire/agent`, 368 KB,
 * 206 KB of it valibot) took 32 ms of CPU when nothing else ran, so 448 KiB stands for the 40 ms
 * cold-start budget of design.md BC5. It stood at 472 KiB for a day (issue 24) while
 * `toolwire/node` evaluated 461.7 KiB, 97.5 KiB of it oauth4webapi that `nodeOAuth` loaded at
 * import; the flow now loads with its first request, and `toolwire/node` evaluates 347.6 KiB
 * (2026-12-02). The largest entry is `toolwire/agent` again, at 396.5 KiB.
 */
export const IMPORT_BYTES_BUDGET = 448 * 1024;

/** What importing `file` loads in a fresh process of this Node; `own` is the URL prefix of toolwire's build. */
export function probeImport(name: string, file: string, own: string): ImportCost {
  const probe = new URL("./probe.mjs", import.meta.url).pathname;
  const child = spawnSync(process.execPath, [probe, file], { stdio: ["ignore", "pipe", "pipe"] });
  if (child.status !== 0) {
    throw new Error(`import probe of ${name} failed: ${child.stderr.toString()}`);
  }
  const { modules, internal } = JSON.parse(child.stdout.toString()) as {
    modules: { url: string; bytes: number }[];
    internal: string[];
  };
  const sum = (list: { bytes: number }[]) => list.reduce((total, m) => total + m.bytes, 0);
  return {
    name,
    modules: modules.length,
    bytes: sum(modules),
    ownBytes: sum(modules.filter((m) => m.url.startsWith(own))),
    internal,
  };
}

/** Measures every built entry's import, each in a fresh process of this Node. */
export function measureImportCosts(dist = "dist"): ImportCost[] {
  const own = new URL(`../../${dist}/`, import.meta.url).href;
  return builtEntries(dist).map(({ name, file }) => probeImport(name, file, own));
}

/** Why an entry's import is over budget, or an empty list. */
export function importCostProblems(cost: ImportCost): string[] {
  const problems: string[] = [];
  if (cost.bytes > IMPORT_BYTES_BUDGET) {
    problems.push(`evaluates ${cost.bytes} bytes, over the ${IMPORT_BYTES_BUDGET} budget`);
  }
  // Public modules (`http`, `crypto`) and the fetch implementation say most about the cause.
  const extra = cost.internal
    .filter((name) => !ALLOWED_INTERNAL.includes(name))
    .map((name) => name.replace(/^NativeModule /, ""))
    .sort((a, b) => telling(b) - telling(a));
  if (extra.length > 0) {
    const shown = extra.slice(0, 6).join(", ");
    const more = extra.length > 6 ? ` (+${extra.length - 6} more)` : "";
    problems.push(`loads Node internals at import: ${shown}${more}`);
  }
  return problems;
}

// The fetch implementation first (the usual cause), then public modules, then the rest.
const telling = (name: string) =>
  name.includes("undici") ? 2 : name.startsWith("internal/") || name.startsWith("Internal") ? 0 : 1;

/**
 * The package's entries and their built files, from package.json `exports`.
 *
 * @param dist Where the build is, relative to the repository root (default `dist`).
 */
export function builtEntries(dist = "dist"): { name: string; file: string }[] {
  const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as {
    name: string;
    exports: Record<string, { import: string }>;
  };
  return Object.entries(pkg.exports).map(([key, target]) => ({
    name: key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`,
    file: new URL(target.import.replace(/^\.\/dist\//, `${dist}/`), root).pathname,
  }));
}
