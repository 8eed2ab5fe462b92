// Builds dist/: one ES module per package.json entry (dist/index.js, dist/mcp/index.js, …), the
// code two entries share in dist/chunks/, a source map beside each file, and the .d.ts tree from
// tsc. Node resolves and parses every module it imports on start, so ~90 small modules cost
// about 3× the cold start of these few files (design.md, "Bundles and cold start";
// `npm run bench` measures it). Dependencies stay external: npm dedupes them with the app's.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");

/**
 * Bundles the package's entries into `outdir` (the JavaScript and source maps only).
 *
 * @param {string} outdir Relative to the repository root; default `dist`.
 */
export async function bundleEntries(outdir = "dist") {
  const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8"));
  // `./dist/agent/index.js` is built from `src/agent/index.ts`.
  const entryPoints = Object.values(pkg.exports).map((target) =>
    resolve(root, target.import.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")),
  );
  await build({
    absWorkingDir: root,
    entryPoints,
    outbase: "src",
    outdir,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    // Neutral: no Node shims or browser fields; `src/node/` imports `node:*` explicitly.
    platform: "neutral",
    target: "es2022",
    // Every dependency and peer stays an import, resolved by the application's node_modules.
    packages: "external",
    sourcemap: true,
    // Readable output: an app's bundler minifies, and stack traces stay legible on Node.
    minify: false,
    legalComments: "none",
    logLevel: "warning",
  });
}

if (process.argv[1] === import.meta.filename) {
  rmSync(resolve(root, "dist"), { recursive: true, force: true });
  execFileSync(resolve(root, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
  await bundleEntries();
}
