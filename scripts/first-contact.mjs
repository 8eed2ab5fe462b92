// What a newcomer does with only the README, run for real (issue 30): in an empty folder, the
// README's Install block (npm init, "type": "module", installing the tarball), then the Quick
// start saved as the file the README names and run with tsx as TypeScript, then the README's
// MCP server the same way, then its Worker (the examples/worker copy and its install line),
// bundled by wrangler and answering MCP in workerd. Each program must print what its `// …`
// comments say. After that, every project under examples/ is installed the same way and its
// `npm start` (when it has one) must print what its comments say.
//
// Offline: `npm install` lines get `--offline` and the dependencies packed from this
// repository's node_modules (check-package.mjs); an example's devDependencies (tsx, wrangler)
// are this repository's copies, linked in, and `npx wrangler dev` becomes a
// `wrangler deploy --dry-run` bundle served by Miniflare (a dev server would need a port).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const root = resolve(import.meta.dirname, "..");
const bin = join(root, "node_modules/.bin");

/** The fenced blocks of a Markdown text, each with its language and the heading above it. */
function blocks(markdown) {
  const found = [];
  let heading = "";
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const title = /^#{1,4} (.*)$/.exec(lines[i]);
    if (title) heading = title[1];
    const fence = /^```(\w*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    found.push({ lang: fence[1], heading, code: body.join("\n") });
  }
  return found;
}

/** The values a program's `console.log(…); // <json>` comments promise, as JSON lines. */
function promised(code) {
  return [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) =>
    JSON.stringify(JSON.parse(m[1])),
  );
}

function check(ok, what) {
  if (!ok) throw new Error(`first contact: ${what}`);
  console.log(`first contact: ${what}`);
}

/**
 * Runs a README shell block line by line in `cwd` (one shell); returns the folder it ends in.
 * npm's warnings must not name toolwire (a tarball declaring install scripts) nor an engine.
 */
function shell(code, cwd, rewrite) {
  const lines = code
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "")
    .map((line) => line.split(" && ").map(rewrite).join(" && "));
  const script = ["set -e", ...lines, "pwd"].join("\n");
  const result = spawnSync("sh", ["-c", script], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  process.stderr.write(result.stderr);
  if (result.status !== 0) throw new Error(`first contact: failed (${result.status}): ${script}`);
  const warnings = result.stderr.split("\n").filter((line) => /npm warn/i.test(line));
  const bad = warnings.filter((line) => /toolwire|EBADENGINE/i.test(line));
  if (bad.length > 0) throw new Error(`first contact: npm warned:\n${bad.join("\n")}`);
  return result.stdout.trim().split("\n").pop();
}

/**
 * Runs a TypeScript program with this repository's tsx (`npx tsx` offline) and checks it
 * printed what its `console.log(…); // <json>` comments say: console.log writes each value as
 * a marked JSON line, and other output (a streamed answer) is left out of the comparison.
 */
async function runTs(file, cwd, what, env = {}, command = [join(bin, "tsx"), "--import"]) {
  const hook = join(cwd, ".print-json.mjs");
  writeFileSync(
    hook,
    'console.log = (value) => process.stdout.write("\\n\\u001e" + JSON.stringify(value) + "\\n");\n',
  );
  const [program, ...args] = command;
  const child = spawn(program, [...args, pathToFileURL(hook).href, file], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const timer = setTimeout(() => child.kill(), 120_000);
  const chunks = [];
  child.stdout.on("data", (chunk) => chunks.push(chunk));
  const code = await new Promise((done) => child.on("close", done));
  clearTimeout(timer);
  const printed = Buffer.concat(chunks)
    .toString()
    .split("\n")
    .filter((line) => line.startsWith("\u001e"))
    .map((line) => line.slice(1));
  const expected = promised(readFileSync(join(cwd, file), "utf8"));
  const same = code === 0 && JSON.stringify(printed) === JSON.stringify(expected);
  check(
    same,
    `${what} prints ${expected.join(", ")}${same ? "" : ` (exit ${code}, printed ${printed.join(", ")})`}`,
  );
}

/**
 * A local stand-in for an OpenAI-compatible provider: the first turn asks for `add(2, 3)`, the
 * next answers in text. It checks the key the program read from its environment.
 */
async function standInProvider(key) {
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (data) => {
      body += data;
    });
    request.on("end", () => {
      if (request.headers.authorization !== `Bearer ${key}`) {
        response.writeHead(401).end('{"error":{"message":"bad key"}}');
        return;
      }
      const answered = JSON.parse(body).messages.some((m) => m.role === "tool");
      response.writeHead(200, { "content-type": "text/event-stream" });
      if (answered) {
        response.write(chunk({ role: "assistant", content: "2 + 3 = 5" }));
        response.write(chunk({}, "stop"));
      } else {
        const call = { name: "add", arguments: '{"a":2,"b":3}' };
        response.write(
          chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: call }] }),
        );
        response.write(chunk({}, "tool_calls"));
      }
      response.end("data: [DONE]\n\n");
    });
  });
  await new Promise((listening) => server.listen(0, "127.0.0.1", listening));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, close: () => server.close() };
}

/** Serves a bundled Worker in workerd and calls its `add` tool over MCP, as a client would. */
async function callWorker(script, host) {
  const { Miniflare } = await import("miniflare");
  // The client is the built toolwire/mcp (check-package.mjs has just built dist/).
  const { connectMcp } = await import("../dist/mcp/index.js");
  const mf = new Miniflare({
    modules: [{ type: "ESModule", path: "worker.js", contents: readFileSync(script, "utf8") }],
    compatibilityDate: "2026-04-01",
    upstream: `https://${host}`,
  });
  try {
    const calc = await connectMcp({
      url: `https://${host}/mcp`,
      namespace: "calc",
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const body = request.body ? await request.arrayBuffer() : undefined;
        const answer = await mf.dispatchFetch(request.url, {
          method: request.method,
          headers: [...request.headers],
          ...(body ? { body } : {}),
        });
        return new Response(await answer.arrayBuffer(), {
          status: answer.status,
          headers: [...answer.headers],
        });
      },
    });
    const sum = await calc.call("calc__add", { a: 1, b: 2 });
    await calc.shutdown();
    return sum.structuredContent;
  } finally {
    await mf.dispose();
  }
}

/** Checks a bundled Worker (`worker-dist/worker.js`) adds over MCP on the host it names. */
async function checkWorker(folder, what) {
  const source = readFileSync(join(folder, "worker.ts"), "utf8");
  const host = /allowedHosts: \["([^"]+)"\]/.exec(source)?.[1];
  const bundle = readFileSync(join(folder, "worker-dist/worker.js"), "utf8");
  check(!/from\s*["']node:/.test(bundle), `${what} bundles without a node: import`);
  const sum = await callWorker(join(folder, "worker-dist/worker.js"), host);
  check(JSON.stringify(sum) === '{"sum":3}', `${what} answers MCP in workerd`);
}

/** Links an example's devDependencies (tsx, wrangler) from this repository's node_modules. */
function linkDevDependencies(project, devDependencies) {
  for (const name of Object.keys(devDependencies ?? {})) {
    const target = join(project, "node_modules", name);
    if (existsSync(target)) continue;
    mkdirSync(join(target, ".."), { recursive: true });
    symlinkSync(join(root, "node_modules", name), target, "dir");
  }
}

/**
 * Follows the README from an empty folder, then installs and runs every example.
 *
 * @param options.tarball The packed toolwire.
 * @param options.dependencies Tarballs of its dependencies (and valibot), for offline installs.
 * @param options.dir An empty folder to work in.
 */
export async function followReadme({ tarball, dependencies, dir }) {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const found = blocks(readme);
  const packed = dependencies.map((path) => basename(path));
  // `npm install a b` offline: registry names we packed (valibot) become their tarballs.
  const install = (line) => {
    if (!line.startsWith("npm install")) return line;
    const args = line
      .split(/\s+/)
      .slice(2)
      .filter(
        (arg) =>
          !packed.some((file) => file.startsWith(`${arg.replace("/", "-").replace("@", "")}-`)),
      );
    return [
      "npm install --offline --no-audit --no-fund --loglevel=warn",
      ...args,
      ...dependencies,
    ].join(" ");
  };

  // The clone the README builds the tarball in: its tarball and its examples, devDependencies
  // left to linkDevDependencies.
  const clone = join(dir, "toolwire");
  mkdirSync(clone, { recursive: true });
  cpSync(tarball, join(clone, basename(tarball)));
  // Each folder of examples/ is a project (examples/README.md lists them).
  const examples = readdirSync(join(root, "examples"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  check(examples.length >= 6, `examples/ holds ${examples.join(", ")}`);
  for (const example of examples) {
    const to = join(clone, "examples", example);
    cpSync(join(root, "examples", example), to, {
      recursive: true,
      filter: (path) => !/node_modules|\.wrangler/.test(path),
    });
    const manifest = JSON.parse(readFileSync(join(to, "package.json"), "utf8"));
    delete manifest.devDependencies;
    writeFileSync(join(to, "package.json"), JSON.stringify(manifest, null, 2));
  }

  // Install, from an empty folder.
  const setup = found.find((block) => block.lang === "sh" && block.code.includes("npm init -y"));
  check(Boolean(setup), "the README has an install block with `npm init -y`");
  const app = shell(setup.code, dir, install);
  const pkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
  check(pkg.type === "module", 'the install block leaves "type": "module" in package.json');
  check(
    existsSync(join(app, "node_modules/toolwire/dist/index.js")),
    "toolwire is installed with its built files",
  );

  // The Quick start, saved and run as the README says.
  const quick = found.find((block) => block.heading === "Quick start" && block.lang === "ts");
  const said = /Save this as `([^`]+)`[^`]*`npx tsx ([^`]+)`/.exec(
    readme.slice(readme.indexOf("## Quick start")),
  );
  check(Boolean(quick && said), "the Quick start names its file and its command");
  writeFileSync(join(app, said[1]), quick.code);
  await runTs(said[2], app, `the Quick start (${said[1]}, as TypeScript)`);

  // The MCP server on Node, run the same way.
  const server = found.find((block) => block.heading === "An MCP server" && block.lang === "ts");
  writeFileSync(join(app, "mcp-server.ts"), server.code);
  await runTs("mcp-server.ts", app, "the README's MCP server on Node");

  // The Worker: the README's lines, with the dev server replaced by a bundle served in workerd.
  const worker = found.find((block) => block.lang === "sh" && block.code.includes("wrangler dev"));
  const folder = shell(worker.code, app, (line) =>
    line.startsWith("npx wrangler dev")
      ? `${join(bin, "wrangler")} deploy --dry-run --outdir worker-dist`
      : install(line),
  );
  await checkWorker(folder, "the README's Worker");

  // Every example, installed as a user would and started.
  for (const example of examples) {
    const project = join(dir, `example-${example}`);
    cpSync(join(clone, "examples", example), project, { recursive: true });
    shell(`npm install ${join(clone, basename(tarball))}`, project, install);
    const manifest = JSON.parse(
      readFileSync(join(root, "examples", example, "package.json"), "utf8"),
    );
    linkDevDependencies(project, manifest.devDependencies);
    const start = manifest.scripts?.start ?? "";
    const denoConfig = join(project, "deno.json");
    if (existsSync(denoConfig)) {
      // `deno task start`, with the hook preloaded; Deno type-checks it first.
      const task = JSON.parse(
        readFileSync(denoConfig, "utf8").replace(/^\s*\/\/.*$/gm, ""),
      ).tasks.start.split(" ");
      const main = task.pop();
      const deno = join(bin, "deno");
      const denoEnv = { DENO_DIR: join(root, ".deno-cache"), DENO_NO_UPDATE_CHECK: "1" };
      execFileSync(deno, ["check", main], {
        cwd: project,
        env: { ...process.env, ...denoEnv },
        stdio: ["ignore", "inherit", "inherit"],
      });
      check(true, `examples/${example}: deno check ${main}`);
      const run = [deno, ...task.slice(1), "--preload"];
      await runTs(main, project, `examples/${example} (deno task start)`, denoEnv, run);
    } else if (manifest.devDependencies?.vite) {
      // A page: Vite builds it (`npm run build`); the bundle must not reach for Node.
      execFileSync(join(bin, "vite"), ["build", "--logLevel", "warn"], {
        cwd: project,
        stdio: ["ignore", "inherit", "inherit"],
      });
      const assets = readdirSync(join(project, "dist/assets")).filter((f) => f.endsWith(".js"));
      const code = assets.map((f) => readFileSync(join(project, "dist/assets", f), "utf8"));
      check(
        assets.length > 0 && code.every((text) => !/["']node:/.test(text)),
        `examples/${example}: vite build writes a page with no node: import`,
      );
      // The agent's own words for a refusal are in every agent bundle; a page on a provider
      // (examples/page) also carries that provider's adapter.
      const provider = readdirSync(project).some(
        (file) =>
          file.endsWith(".ts") &&
          readFileSync(join(project, file), "utf8").includes("openAICompatible("),
      );
      check(
        code.some((text) => text.includes("Denied by the user:")) &&
          (!provider || code.some((text) => text.includes("chat/completions"))),
        `examples/${example}: the page's bundle holds the agent${provider ? " and its model adapter" : ""}`,
      );
    } else if (manifest.devDependencies?.wrangler) {
      execFileSync(join(bin, "wrangler"), ["deploy", "--dry-run", "--outdir", "worker-dist"], {
        cwd: project,
        stdio: ["ignore", "ignore", "inherit"],
      });
      await checkWorker(project, `examples/${example}`);
    } else {
      const main = /^tsx (\S+)$/.exec(start)?.[1];
      check(Boolean(main), `examples/${example}: npm start runs a file with tsx`);
      // The provider an example reads from its environment is a local stand-in here.
      const reads = readFileSync(join(project, main), "utf8").includes("OPENAI_BASE_URL");
      const provider = reads ? await standInProvider("test-key") : null;
      const env = provider
        ? { OPENAI_BASE_URL: provider.url, OPENAI_API_KEY: "test-key", MODEL: "stand-in" }
        : {};
      try {
        await runTs(main, project, `examples/${example} (npm start)`, env);
      } finally {
        provider?.close();
      }
    }
  }
}
