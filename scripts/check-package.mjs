// Packs toolwire as users install it (`npm run tarball`), installs the tarball into a fresh
// consumer project, then type-checks and runs a consumer that uses every public entry with
// code generation disallowed: the proof that installing the tarball works under Node with no
// build step, ships types, and never needs eval or new Function. Then it follows the README
// from an empty folder (scripts/first-contact.mjs). Every install is offline: the
// dependencies are packed from this repository's node_modules.
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { transformSync } from "esbuild";
import { followReadme } from "./first-contact.mjs";
import { packTarball } from "./tarball.mjs";

const root = resolve(import.meta.dirname, "..");
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"] }).toString();
const show = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"] });
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const entries = Object.keys(pkg.exports).map((key) =>
  key === "." ? "toolwire" : `toolwire/${key.slice(2)}`,
);

/**
 * Packs `names` and what they depend on from this repository's node_modules into `dir`, so
 * `npm install --offline` finds them without the registry; returns the tarballs' paths. Each
 * is packed from a copy without `scripts.prepare`: npm never runs a registry package's
 * `prepare`, but would warn about it in a tarball.
 */
export function packDependencies(names, dir) {
  const seen = new Map();
  const visit = (name) => {
    if (seen.has(name)) return;
    const from = join(root, "node_modules", name);
    if (!existsSync(join(from, "package.json"))) throw new Error(`not in node_modules: ${name}`);
    const stage = mkdtempSync(join(tmpdir(), "toolwire-dependency-"));
    try {
      cpSync(from, stage, {
        recursive: true,
        filter: (path) => !path.slice(from.length).includes("node_modules"),
      });
      const manifest = JSON.parse(readFileSync(join(stage, "package.json"), "utf8"));
      if (manifest.scripts) delete manifest.scripts.prepare;
      writeFileSync(join(stage, "package.json"), JSON.stringify(manifest, null, 2));
      const out = run(
        "npm",
        ["pack", "--silent", "--ignore-scripts", "--pack-destination", dir],
        stage,
      );
      seen.set(name, join(dir, out.trim().split("\n").pop()));
      for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency);
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  };
  for (const name of names) visit(name);
  return [...seen.values()];
}

const dir = mkdtempSync(join(tmpdir(), "toolwire-consumer-"));
try {
  const tarball = packTarball(dir);
  const packs = join(dir, "packs");
  mkdirSync(packs);
  // `@opentelemetry/api`: the optional peer a program that imports toolwire/otel installs.
  const dependencies = packDependencies(
    [...Object.keys(pkg.dependencies), "@types/node", "@opentelemetry/api"],
    packs,
  );
  const app = join(dir, "app");
  mkdirSync(app);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  run(
    "npm",
    // valibot, and @types/node since toolwire/node's stdio options are typed with node:stream
    // (as any Node program has), come from `dependencies`.
    ["install", "--silent", "--offline", "--no-audit", "--no-fund", tarball, ...dependencies],
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
        types: ["node"],
      },
    }),
  );
  const body = `import * as v from "valibot";
import { defineTool, Toolset, type ToolResult } from "toolwire";
import { jsonSchemaValidator } from "toolwire/json-schema";
import { Agent, compact, extractiveSummarizer, type Message } from "toolwire/agent";
import { scriptedModel } from "toolwire/models";
import { connectMcp, createMcpHandler } from "toolwire/mcp";
import { serve } from "toolwire/node";
import { connectWebMcp } from "toolwire/web";
${entries
  .slice(1)
  .map((entry, i) => `import * as entry${i} from "${entry}";`)
  .join("\n")}
const check = (ok: boolean, what: string) => { if (!ok) throw new Error(what); };
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
const half = defineTool({ name: "half", description: "Halves", readOnly: true,
  input: { jsonSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
  jsonSchemaValidator, call: (input) => String((input as { n: number }).n / 2) });
const tools = Toolset.local([add, half]);
const result: ToolResult = await tools.call("add", { a: 2, b: 3 });
check(result.content[0]?.type === "text" && result.content[0].text === "5", "local call");
check((await tools.call("half", { n: 8 })).content[0]?.type === "text", "JSON Schema tool");
const refused = await tools.call("half", { n: "8" }).then(() => "called", (e: { type?: string }) => e.type);
check(refused === "invalid_arguments", "JSON Schema validation");
const handler = createMcpHandler(tools, { name: "consumer", version: "1.0.0" });
const served = await serve(handler, { port: 0 });
const remote = await connectMcp({ url: new URL("/mcp", served.url) });
const remoteResult = await remote.call("add", { a: 20, b: 22 });
check(JSON.stringify(remoteResult.content).includes("42"), "MCP round trip");
await remote.shutdown();
await served.close();
const agent = new Agent({ model: scriptedModel([{ toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] }, { text: "two" }]), tools: [add] });
check((await agent.run("1 + 1?").result).text === "two", "agent run");
const messages: Message[] = Array.from({ length: 12 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: "turn " + i }] }));
const compacted = await compact({ messages: [...messages], taint: { private: false, untrusted: false }, rewritten: [] }, { force: true, keepRecent: 2, summarizer: extractiveSummarizer() });
check(compacted.summarized && compacted.conversation.messages.length < messages.length, "compaction");
const noWebMcp = await connectWebMcp().then(() => "connected", (e: { type?: string }) => e.type);
check(noWebMcp === "unsupported", "WebMCP outside a browser");
${entries
  .slice(1)
  .map((_, i) => `check(Object.keys(entry${i}).length > 0, "empty entry");`)
  .join("\n")}
console.log("consumer ok without code generation: " + ${JSON.stringify(entries.join(", "))});
`;
  writeFileSync(join(app, "index.ts"), body);
  // The same consumer as plain JavaScript, types stripped, is what Node runs.
  writeFileSync(join(app, "index.mjs"), transformSync(body, { loader: "ts", format: "esm" }).code);
  show(join(root, "node_modules/.bin/tsc"), ["-p", "."], app);
  // Workers and strict-CSP pages forbid eval and new Function; so must every entry here.
  process.stdout.write(run("node", ["--disallow-code-generation-from-strings", "index.mjs"], app));
  // Issue 23's attacks, against what users install.
  copyFileSync(join(root, "scripts/hostile-consumer.mjs"), join(app, "hostile.mjs"));
  process.stdout.write(run("node", ["hostile.mjs"], app));
  await followReadme({ tarball, dependencies, dir: join(dir, "readme") });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
