// What `npm test` does before its steps (scripts/test.mjs): the Chromium check and the repair of
// the .bin links that the aliased Node and TypeScript copies bring.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readlink, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";

const root = join(import.meta.dirname, "../..");
const run = promisify(execFile);

test("without a usable Chromium, the check stops with one line saying what to install", async () => {
  const failure = await run(
    join(root, "node_modules/.bin/tsx"),
    ["scripts/chromium.ts", "ensure"],
    {
      cwd: root,
      env: { ...process.env, CHROMIUM_PATH: "/nonexistent/chromium" },
    },
  ).then(
    () => undefined,
    (error: { code: number; stdout: string }) => error,
  );
  expect(failure?.code).toBe(1);
  const lines = failure?.stdout.trim().split("\n") ?? [];
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain("/nonexistent/chromium");
  expect(lines[0]).toContain("apt-get install chromium");
  expect(lines[0]).toContain("CHROMIUM_PATH");
}, 30_000);

test("the .bin repair removes the aliased node and points tsc back at typescript 7", async () => {
  const bin = await mkdtemp(join(tmpdir(), "toolwire-bin-"));
  try {
    await symlink("../node22/bin/node", join(bin, "node"));
    await symlink("../typescript-5/bin/tsc", join(bin, "tsc"));
    await symlink("../typescript-5/bin/tsserver", join(bin, "tsserver"));
    await symlink("../vitest/vitest.mjs", join(bin, "vitest"));
    const script = `import(${JSON.stringify(join(root, "scripts/bin-links.mjs"))}).then((m) => console.log(JSON.stringify(m.fixBinLinks(${JSON.stringify(bin)}))))`;
    const first = await run(process.execPath, ["-e", script]);
    expect(JSON.parse(first.stdout)).toEqual(["node", "tsc", "tsserver"]);
    expect((await readdir(bin)).sort()).toEqual(["tsc", "vitest"]);
    expect(await readlink(join(bin, "tsc"))).toBe("../typescript/bin/tsc");
    expect(await readlink(join(bin, "vitest"))).toBe("../vitest/vitest.mjs");
    const again = await run(process.execPath, ["-e", script]);
    expect(JSON.parse(again.stdout)).toEqual([]);
  } finally {
    await rm(bin, { recursive: true, force: true });
  }
});
