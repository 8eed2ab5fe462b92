// The deploy guide's Cloudflare example (examples/worker) must stay deployable: wrangler bundles it offline
// (`deploy --dry-run`), without nodejs_compat, into a module with no Node built-in imports.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";

const root = join(import.meta.dirname, "../..");
// The example imports "toolwire" as a user's project does; here that is the sources (as
// tsconfig.json's `paths` says for tsc and tsx). scripts/first-contact.mjs bundles it again
// against the installed tarball.
const aliases = Object.entries(
  JSON.parse(await readFile(join(root, "package.json"), "utf8")).exports as Record<
    string,
    { import: string }
  >,
).flatMap(([key, target]) => [
  "--alias",
  `${key === "." ? "toolwire" : `toolwire/${key.slice(2)}`}=${join(root, target.import.replace("./dist/", "src/").replace(/\.js$/, ".ts"))}`,
]);

test("wrangler deploy --dry-run bundles examples/worker without nodejs_compat", async () => {
  const config = await readFile(join(root, "examples/worker/wrangler.jsonc"), "utf8");
  expect(config).not.toMatch(/"compatibility_flags"\s*:\s*\[[^\]]*nodejs_compat/);
  const outdir = await mkdtemp(join(tmpdir(), "toolwire-wrangler-"));
  try {
    await promisify(execFile)(
      join(root, "node_modules/.bin/wrangler"),
      [
        "deploy",
        "--dry-run",
        "--outdir",
        outdir,
        "-c",
        "examples/worker/wrangler.jsonc",
        ...aliases,
      ],
      { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" } },
    );
    const files = await readdir(outdir);
    expect(files).toContain("worker.js");
    const bundle = await readFile(join(outdir, "worker.js"), "utf8");
    expect(bundle).toContain("createMcpHandler");
    expect(bundle).not.toMatch(/from\s*["'](node:|cloudflare:)/);
  } finally {
    await rm(outdir, { recursive: true, force: true });
    // wrangler leaves its scratch directory next to the config.
    await rm(join(root, "examples/worker/.wrangler"), { recursive: true, force: true });
  }
}, 60_000);
