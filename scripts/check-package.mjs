// Packs toolwire as npm would publish it, installs the tarball into a fresh consumer project,
// then type-checks and runs a consumer that imports every public entry: the proof that
// `npm i toolwire` works under Node with no build step and ships types.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"] }).toString();
const show = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"] });
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const entries = Object.keys(pkg.exports).map((key) =>
  key === "." ? "toolwire" : `toolwire/${key.slice(2)}`,
);

show("npm", ["run", "--silent", "build"], root);
const dir = mkdtempSync(join(tmpdir(), "toolwire-consumer-"));
try {
  const tarball = join(
    dir,
    run("npm", ["pack", "--silent", "--pack-destination", dir], root).trim().split("\n").pop(),
  );
  const app = join(dir, "app");
  mkdirSync(app);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  run(
    "npm",
    [
      "install",
      "--silent",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      tarball,
      `valibot@${pkg.dependencies.valibot}`,
    ],
    app,
  );
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        lib: ["ES2022", "DOM"],
        types: [],
      },
    }),
  );
  const body = `import * as v from "valibot";
import { defineTool, Toolset, type ToolResult } from "toolwire";
${entries
  .slice(1)
  .map((entry, i) => `import * as entry${i} from "${entry}";`)
  .join("\n")}
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
const result: ToolResult = await Toolset.local([add]).call("add", { a: 2, b: 3 });
if (result.content[0]?.type !== "text" || result.content[0].text !== "5") throw new Error("wrong result");
${entries
  .slice(1)
  .map((_, i) => `if (Object.keys(entry${i}).length === 0) throw new Error("empty entry");`)
  .join("\n")}
console.log("consumer ok: " + ${JSON.stringify(entries.join(", "))});
`;
  writeFileSync(join(app, "index.ts"), body);
  writeFileSync(
    join(app, "index.mjs"),
    body.replace(", type ToolResult", "").replace(": ToolResult", ""),
  );
  run(join(root, "node_modules/.bin/tsc"), ["-p", "."], app);
  process.stdout.write(run("node", ["index.mjs"], app));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
