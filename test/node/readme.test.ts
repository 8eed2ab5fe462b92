import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { apiEntries } from "../../scripts/api-report.ts";
import { connectMcp } from "../../src/mcp/index.ts";
import { FakeModelContext } from "../support/fake-model-context.ts";

// README.md and the guides in docs/ are documentation users copy, so every ```ts / ```js block
// in them is complete and is checked three ways: all blocks type-check together against the sources, each block runs as
// written and prints what its `// …` comments say, and a block that exports a fetch handler
// (a Worker) is served in-process and must answer MCP on the host it names and refuse others.
// Blocks that need a peer get one in-process: `fetch` to https://calc.example.workers.dev
// reaches the README's own Worker, `cloudflare:workers` gives `env.MCP_TOKEN`,
// `sessionStorage` holds the token a user would have typed, and `document.modelContext` is a
// WebMCP page (test/support/fake-model-context.ts). Tests are named by the file and the
// heading the block sits under, so a block that breaks names its section. A block may use a
// peer another file shows (the browser client's Worker is in docs/security.md).

const root = join(import.meta.dirname, "../..");
const dir = join(root, "test-results", "readme");
// Every user document: the README and the guides (design.md is for contributors).
const documents = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md") && name !== "design.md")
    .map((name) => `docs/${name}`),
];

const ENTRIES = Object.fromEntries(apiEntries().map((entry) => [entry.name, entry.source]));
const HOST = "calc.example.workers.dev";
const PAGE_ORIGIN = "https://app.example";
const TOKEN = "readme-token";

interface Block {
  /** The document, e.g. `docs/mcp.md`. */
  document: string;
  heading: string;
  /** 1-based within its heading. */
  index: number;
  lang: string;
  code: string;
  file: string;
}

function readBlocks(document: string): Block[] {
  const markdown = readFileSync(join(root, document), "utf8");
  const blocks: Block[] = [];
  let heading = "(top)";
  const perHeading = new Map<string, number>();
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const title = /^#{1,4} (.*)$/.exec(line);
    if (title) heading = (title[1] as string).replaceAll("`", "");
    const fence = /^```(\w*)\s*$/.exec(line);
    if (!fence) continue;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] as string); i++) {
      body.push(lines[i] as string);
    }
    const lang = fence[1] as string;
    if (!["ts", "typescript", "js", "javascript"].includes(lang)) continue;
    const index = (perHeading.get(heading) ?? 0) + 1;
    perHeading.set(heading, index);
    const slug = `${document}-${heading}`.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    const ext = lang.startsWith("t") ? "ts" : "js";
    blocks.push({
      document,
      heading,
      index,
      lang,
      code: body.join("\n"),
      file: `${slug}-${index}.${ext}`,
    });
  }
  return blocks;
}

const blocks = documents.flatMap(readBlocks);
const title = (block: Block) => `${block.document} "${block.heading}" block ${block.index}`;

/**
 * The block with its package imports pointed at the sources; in Node, `cloudflare:workers` is a
 * stub, in workerd the real module.
 */
function localise(code: string, runtime: "node" | "workerd" = "node"): string {
  return code.replace(
    /from "(toolwire(?:\/[a-z-]+)?|cloudflare:workers)"/g,
    (match, entry: string) => {
      if (entry === "cloudflare:workers") {
        return runtime === "node" ? `from "./cloudflare-workers.ts"` : match;
      }
      const target = ENTRIES[entry];
      if (!target) throw new Error(`README imports an unknown entry: ${entry}`);
      return `from ${JSON.stringify(join(root, target))}`;
    },
  );
}

type Handler = { fetch: (request: Request) => Promise<Response> };
const servers = new Map<Block, Handler>();
const isServer = (block: Block) => /^export default /m.test(block.code);

beforeAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "cloudflare-workers.ts"),
    `export const env: Record<string, string> = { MCP_TOKEN: ${JSON.stringify(TOKEN)} };\n`,
  );
  for (const block of blocks) writeFileSync(join(dir, block.file), localise(block.code));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: "../../tsconfig.json",
      compilerOptions: { types: ["node"], allowJs: true, checkJs: true },
      include: ["*.ts", "*.js"],
    }),
  );
  for (const block of blocks.filter(isServer)) {
    const module = (await import(/* @vite-ignore */ join(dir, block.file))) as {
      default: Handler;
    };
    servers.set(block, module.default);
  }
  // The browser client's server: the README's most locked-down Worker.
  const peer = [...servers].find(([block]) => block.code.includes("authorize"))?.[1];
  const realFetch = globalThis.fetch;
  vi.stubGlobal("fetch", (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (peer && new URL(request.url).host === HOST) return peer.fetch(request);
    return realFetch(request);
  });
  vi.stubGlobal("sessionStorage", {
    getItem: (key: string) => (key === "calc-token" ? TOKEN : null),
  });
  // The WebMCP blocks' page: a Chromium-like model context holding a tool of the page's own
  // origin and one a cross-origin frame exposes to it.
  const modelContext = new FakeModelContext(PAGE_ORIGIN);
  await modelContext.registerTool({
    name: "weather",
    description: "Today's weather in a city",
    annotations: { readOnlyHint: true },
    execute: async ({ city }) => `sunny in ${String(city)}`,
  });
  await modelContext.registerForeign(
    { name: "route", description: "Plans a route", execute: async () => "turn left" },
    "https://maps.example",
  );
  // `querySelector` finds nothing, so a page block's click handler is set up but never runs.
  vi.stubGlobal("document", { modelContext, querySelector: () => null });
  vi.stubGlobal("location", { origin: PAGE_ORIGIN });
});

afterAll(() => vi.unstubAllGlobals());

test("the blocks of the README and of every guide are found, and one of them is a Worker", () => {
  expect(new Set(blocks.map((block) => block.document))).toEqual(
    new Set(
      documents.filter((document) => readFileSync(join(root, document), "utf8").includes("```ts")),
    ),
  );
  expect(blocks.length).toBeGreaterThanOrEqual(8);
  expect(servers.size).toBeGreaterThanOrEqual(1);
});

test("every block type-checks against the sources", async () => {
  const tsc = join(root, "node_modules/.bin/tsc");
  const result = await promisify(execFile)(tsc, ["--noEmit", "-p", dir], { cwd: root }).then(
    () => "",
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  // Name the README heading rather than the generated file.
  const named = blocks.reduce((text, block) => text.replaceAll(block.file, title(block)), result);
  expect(named).toBe("");
}, 60_000);

describe.each(blocks.map((block) => [title(block), block] as const))("%s", (_, block) => {
  test("runs and prints what its comments say", async () => {
    const printed: unknown[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      printed.push(args[0]);
    });
    try {
      await import(/* @vite-ignore */ join(dir, block.file));
    } finally {
      log.mockRestore();
    }
    const expected = [...block.code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) =>
      JSON.parse(m[1] as string),
    );
    expect(printed).toEqual(expected);
    // A block that starts a process (`npx`, a stdio server) needs more than the default 5 s on
    // a loaded machine.
  }, 30_000);
});

const serverBlocks = blocks.filter(isServer).map((block) => [title(block), block] as const);
describe.each(serverBlocks)("%s, a Worker,", (_, block) => {
  test("serves MCP on the host it names and refuses other hosts and pages", async () => {
    const handler = servers.get(block) as Handler;
    const authorization = `Bearer ${TOKEN}`;
    const calc = await connectMcp({
      url: `https://${HOST}/mcp`,
      fetch: (input, init) => handler.fetch(new Request(input, init)),
      headers: { authorization },
      namespace: "calc",
    });
    try {
      expect((await calc.listTools()).map((tool) => tool.name)).toEqual(["calc__add"]);
      const sum = await calc.call("calc__add", { a: 1, b: 2 });
      expect(sum.structuredContent).toEqual({ sum: 3 });
    } finally {
      await calc.shutdown();
    }
    const ping = (host: string, headers: Record<string, string>) =>
      handler.fetch(
        new Request(`https://${host}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
        }),
      );
    expect((await ping("evil.example", { authorization })).status).toBe(403);
    const page = { authorization, origin: "https://evil.example" };
    expect((await ping(HOST, page)).status).toBe(403);
    if (block.code.includes("authorize")) expect((await ping(HOST, {})).status).toBe(401);
  });

  test("runs in workerd, with no compatibility flags, and answers MCP there", async () => {
    const bundle = await build({
      stdin: { contents: localise(block.code, "workerd"), resolveDir: dir, loader: "ts" },
      bundle: true,
      write: false,
      format: "esm",
      // `browser` fails the build on any `node:` import, so the Worker needs no nodejs_compat.
      platform: "browser",
      conditions: ["workerd", "worker", "browser"],
      external: ["cloudflare:workers"],
      logLevel: "silent",
    });
    const mf = new Miniflare({
      modules: [
        { type: "ESModule", path: "worker.js", contents: bundle.outputFiles[0]?.text ?? "" },
      ],
      compatibilityDate: "2026-04-01",
      compatibilityFlags: [],
      bindings: { MCP_TOKEN: TOKEN },
      // The Worker checks Host: with `upstream`, Miniflare sends the public host, not its own.
      upstream: `https://${HOST}`,
    });
    try {
      const calc = await connectMcp({
        url: `https://${HOST}/mcp`,
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
        headers: { authorization: `Bearer ${TOKEN}` },
        namespace: "calc",
      });
      const sum = await calc.call("calc__add", { a: 1, b: 2 });
      expect(sum.structuredContent).toEqual({ sum: 3 });
      await calc.shutdown();
    } finally {
      await mf.dispose();
    }
  }, 60_000);
});

test("the deploy guide's Worker is examples/worker, which npm test bundles with wrangler", () => {
  const worker = blocks.find(
    (block) => block.document === "docs/deploy.md" && block.code.startsWith("// worker.ts\n"),
  );
  const example = readFileSync(join(root, "examples/worker/worker.ts"), "utf8")
    .replace(/^\/\*\*[\s\S]*?\*\/\n+/, "")
    .replaceAll('"../../src/index.ts"', '"toolwire"')
    .replaceAll('"../../src/mcp/index.ts"', '"toolwire/mcp"');
  expect(worker?.code.replace("// worker.ts\n", "")).toBe(example.trimEnd());
  const config = readFileSync(join(root, "examples/worker/wrangler.jsonc"), "utf8");
  const fields = (text: string) =>
    [...text.matchAll(/"(name|main|compatibility_date)": "([^"]*)"/g)].map((m) => m[0]);
  const deploy = readFileSync(join(root, "docs/deploy.md"), "utf8");
  const fenced = /```jsonc\n([\s\S]*?)```/.exec(deploy)?.[1] ?? "";
  expect(fields(fenced)).toEqual(fields(config));
});
