// Builds examples/web-ui into demo-dist/examples/web-ui, where the demo's preview server
// (playwright.config.ts) serves it for e2e/web-ui.spec.ts. The example imports `toolwire` as
// users do; here that is the sources, as tsconfig.json's `paths` map it.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { build } from "vite";

const root = resolve(import.meta.dirname, "..");
const example = resolve(root, "examples/web-ui");
const { paths } = JSON.parse(
  readFileSync(resolve(root, "tsconfig.json"), "utf8").replace(/^\s*\/\/.*$/gm, ""),
).compilerOptions as { paths: Record<string, [string]> };

await build({
  root: example,
  configFile: resolve(example, "vite.config.ts"),
  // Errors only: the in-repo aliases to the sources make Vite warn about chunking.
  logLevel: "error",
  resolve: {
    alias: Object.entries(paths).map(([name, [path]]) => ({
      find: new RegExp(`^${name}$`),
      replacement: resolve(root, path),
    })),
  },
  build: { outDir: resolve(root, "demo-dist/examples/web-ui"), emptyOutDir: true },
});
