#!/usr/bin/env node
// `npm run tarball`: builds dist/ and writes toolwire-<version>.tgz, the file users install
// before a registry release (README, "Install") and the one to attach to a release or publish
// with `npm publish <file>`. It packs a staged copy whose package.json has no `scripts` and no
// `devDependencies`: the repository's `prepare` (scripts/bin-links.mjs) is not shipped, and a
// tarball or URL dependency that declares one makes npm 11 warn that toolwire "has install
// scripts not yet covered by allowScripts" (and fail under `strict-allow-scripts`).
// Installing the git URL itself gives no dist/ (it holds sources), hence the tarball.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");

/**
 * Builds and packs toolwire; returns the tarball's absolute path.
 *
 * @param destination The folder the tarball goes to; default the repository root.
 */
export function packTarball(destination = root) {
  execFileSync("node", [join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" });
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const stage = mkdtempSync(join(tmpdir(), "toolwire-stage-"));
  try {
    for (const file of pkg.files) cpSync(join(root, file), join(stage, file), { recursive: true });
    cpSync(join(root, "LICENSE"), join(stage, "LICENSE"));
    const { scripts: _scripts, devDependencies: _dev, ...shipped } = pkg;
    writeFileSync(join(stage, "package.json"), `${JSON.stringify(shipped, null, 2)}\n`);
    const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", destination], {
      cwd: stage,
      stdio: ["ignore", "pipe", "inherit"],
    });
    return join(destination, out.toString().trim().split("\n").pop());
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) console.log(packTarball());
