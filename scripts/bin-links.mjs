#!/usr/bin/env node
// Runs after `npm install` / `npm ci` in this repository (the `prepare` script; installing
// toolwire from the registry does not run it) and at the start of `npm test`.
// Three devDependencies are second copies of tools under an npm alias — `node22` and `node24`
// (Node binaries for running the tests on current Node) and `typescript-5` (the compiler API the
// API reports use; the project compiles with typescript 7). npm links their `bin` entries too,
// so `node_modules/.bin/node` would silently make every npm script run on Node 22, and
// `node_modules/.bin/tsc` could be 5.9. This puts the links back: no `node` in `.bin` (the
// system Node runs the scripts), `tsc` is the project's typescript.
import { lstatSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const projectBin = join(import.meta.dirname, "../node_modules/.bin");

function target(bin, name) {
  try {
    return lstatSync(join(bin, name)).isSymbolicLink() ? readlinkSync(join(bin, name)) : "file";
  } catch {
    return undefined;
  }
}

/** Restores `bin` (default: this project's node_modules/.bin); returns the names it changed. */
export function fixBinLinks(bin = projectBin) {
  const fixed = [];
  const node = target(bin, "node");
  if (node !== undefined && /node2\d/.test(node)) {
    rmSync(join(bin, "node"));
    fixed.push("node");
  }
  const tsc = target(bin, "tsc");
  if (tsc !== undefined && tsc !== "../typescript/bin/tsc") {
    rmSync(join(bin, "tsc"));
    symlinkSync("../typescript/bin/tsc", join(bin, "tsc"));
    fixed.push("tsc");
  }
  if (target(bin, "tsserver")?.includes("typescript-5")) {
    rmSync(join(bin, "tsserver"));
    fixed.push("tsserver");
  }
  return fixed;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fixed = fixBinLinks();
  if (fixed.length > 0) console.log(`bin-links: restored node_modules/.bin/${fixed.join(", ")}`);
}
