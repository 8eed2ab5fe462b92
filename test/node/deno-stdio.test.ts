// toolwire/node's stdio functions under Deno's Node compatibility, both ways: a Toolset served
// with serveStdio in a Deno process, and connectStdio itself running in Deno
// (fixtures/deno-stdio.ts, run with `deno test`).
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { connectStdio } from "../../src/node/index.ts";

const root = join(import.meta.dirname, "../..");
const deno = join(root, "node_modules/.bin/deno");
const offline = ["--no-remote", "--cached-only", "--allow-read", "--allow-env"];

describe("stdio under Deno", () => {
  it("serveStdio serves a Toolset from a Deno process", async () => {
    const served = await connectStdio({
      command: deno,
      args: ["run", ...offline, join(import.meta.dirname, "fixtures/serve-toolset.ts")],
      env: { DENO_DIR: ".deno-cache" },
      cwd: root,
      stderr: "ignore",
    });
    try {
      const seen: number[] = [];
      const result = await served.call("count", {}, { onProgress: (p) => seen.push(p.progress) });
      expect(result.content).toEqual([{ type: "text", text: "counted" }]);
      expect(seen).toEqual([1, 2, 3]);
    } finally {
      await served.shutdown();
    }
  });

  it("connectStdio runs in Deno against the memory server and a served Toolset", async () => {
    const { stdout } = await promisify(execFile)(
      deno,
      ["test", ...offline, "--allow-run", join(import.meta.dirname, "fixtures/deno-stdio.ts")],
      {
        cwd: root,
        env: { ...process.env, DENO_DIR: ".deno-cache", NO_COLOR: "1" },
        timeout: 60_000,
      },
    );
    expect(stdout).toMatch(/ok \| 2 passed \| 0 failed/);
  }, 60_000);
});
