// Bundles realistic entry points the way an application would (esbuild, minified, tree-shaken)
// and reports gzip -9 sizes. Used by `npm run bench` (with the peers beside us) and by the
// budget test in test/node/bundle-size.test.ts.
import { builtinModules } from "node:module";
import { gzipSync } from "node:zlib";
import { build, type Plugin } from "esbuild";

/**
 * One bundle to measure: an entry written as source, and its budget in gzip bytes. The budget
 * holds both for what a split build loads at once (the entry chunk and the chunks it imports)
 * and for a single-file build, unless
 * `singleFileBudget` names a separate ceiling for the latter (and says why in a comment).
 */
export interface BundleCase {
  name: string;
  source: string;
  budget?: number;
  singleFileBudget?: number;
}

/** What a measured bundle weighs and whether it reaches for Node built-ins. */
export interface BundleSize {
  name: string;
  minified: number;
  gzip: number;
  /** Chunks loaded only on demand (dynamic imports), in minified bytes. */
  lazy: number;
  budget?: number;
  nodeImports: string[];
}

const root = new URL("..", import.meta.url).pathname;

// A neutral build must not resolve `node:` modules; record them instead of failing so the
// test can name the offender.
function recordNodeImports(found: Set<string>): Plugin {
  return {
    name: "record-node-imports",
    setup(b) {
      const builtins = new RegExp(`^(node:.*|${builtinModules.join("|")})(/.*)?$`);
      b.onResolve({ filter: builtins }, (args) => {
        found.add(args.path);
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * Returns the size of one entry bundled for the given platform.
 *
 * @param entry The case to bundle.
 * @param platform `browser` (what an app ships) or `neutral` (what an edge runtime loads).
 * @param splitting Whether to split like an application bundler (code behind a dynamic import
 * becomes a lazy chunk) or to emit one file, as a Worker or a script tag loads it.
 */
export async function measure(
  entry: BundleCase,
  platform: "browser" | "neutral" = "browser",
  splitting = true,
): Promise<BundleSize> {
  const nodeImports = new Set<string>();
  const result = await build({
    stdin: {
      contents: entry.source,
      resolveDir: root,
      loader: "ts",
      sourcefile: `${entry.name}.ts`,
    },
    bundle: true,
    write: false,
    splitting,
    outdir: "out",
    minify: true,
    treeShaking: true,
    format: "esm",
    platform,
    target: "es2022",
    mainFields: platform === "neutral" ? ["module", "main"] : ["browser", "module", "main"],
    conditions:
      platform === "neutral"
        ? ["workerd", "worker", "browser", "import", "default"]
        : ["browser", "import", "default"],
    logLevel: "silent",
    metafile: true,
    plugins: [recordNodeImports(nodeImports)],
  });
  // What loads before the entry runs: the entry chunk and every chunk it imports statically
  // (code it shares with a lazy chunk lands in such a shared chunk, and still loads at once).
  // The rest loads on demand.
  const outputs = result.metafile.outputs;
  const eager = new Set<string>();
  const visit = (path: string) => {
    if (eager.has(path)) return;
    eager.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind === "import-statement" && !imported.external) visit(imported.path);
    }
  };
  const entryPath = Object.keys(outputs).find((path) => outputs[path]?.entryPoint !== undefined);
  if (entryPath) visit(entryPath);
  const isEager = (file: { path: string }) =>
    [...eager].some((path) => file.path.endsWith(path.replace(/^out\//, "/")));
  const loaded = result.outputFiles.filter(isEager);
  const lazy = result.outputFiles.filter((file) => !isEager(file));
  const size: BundleSize = {
    name: entry.name,
    minified: loaded.reduce((sum, file) => sum + file.contents.byteLength, 0),
    // Each file is compressed on its own, as a server sends it.
    gzip: loaded.reduce((sum, file) => sum + gzipSync(file.contents, { level: 9 }).byteLength, 0),
    lazy: lazy.reduce((sum, chunk) => sum + chunk.contents.byteLength, 0),
    nodeImports: [...nodeImports],
  };
  if (entry.budget !== undefined) size.budget = entry.budget;
  return size;
}

const KB = 1024;

/**
 * toolwire's realistic entries and their budgets (issue 7).
 *
 * Raised in the 2026-12-02 round, each by what that round's issues asked for and measured before
 * and after (gzip): the core 12.25 → 13.9 KB (the nearest-name suggestion, throw-safe error
 * text, recognising unbranded and MCP-shaped results, `ctx.once`'s journal); the MCP client
 * 18.9 → 22.6 KB (listing caps, bounded replies to server requests, scrubbing echoed
 * credentials, 2026 per-call elicitation, error wording); the server 24.4 → 27.9 KB (the depth
 * scan, per-caller limits, anonymous cancellation, the journal in `requestState`); the agent
 * 23.3 → 28.2 KB, most of it pause/resume (`snapshots`, 11.6 KB of source).
 *
 * Re-measured the same day after two changes (issue 25). Pause/resume now loads on first use
 * (snapshot.ts is a lazy chunk, 4.8 KB minified, fetched by the first run of an agent with
 * `snapshots`). And a split build is now measured as what loads before the entry runs: the
 * entry chunk plus every chunk it imports statically, each gzipped on its own. The old figure
 * counted the entry chunk alone, so code an entry shares with a lazy chunk (esbuild moves it to
 * a shared chunk) went uncounted although it loads at once: for the agent, errors, abort and
 * the default model summarizer, which `toolwire/agent` re-exports (`modelSummarizer`) and so is
 * never lazy in an app that imports the entry. Measured that way main's agent was 31.5 KB (split)
 * and 31.2 KB (one file); now 31.6 and 32.4 KB: pause/resume (about 1.6 KB gzip) left the eager
 * code, and keeping runs in a `Store` (claims, `resume(id)`) came in, mostly in the lazy chunk.
 * The agent cases' budgets are therefore higher than before although less code loads: they
 * were too low for what was really shipped. Each budget keeps 0.2-0.5 KB above today's figure,
 * so growth still fails here.
 *
 * Issue 24 (streams that resume): resuming a 2025 request's stream with `Last-Event-ID`
 * (`resumable-stream.ts`: the retry delay, backoff, the byte budget, the GET) costs the MCP
 * client 0.9 KB, 22.6 → 23.0 KB, and the entries that include it alike (oauth 32.1 → 33.0,
 * browser agent 45.1 → 45.8, its single file 48.6 → 49.5); each budget grew by that. The
 * server's resumable streams (`resumable-streams.ts`: priming, ids, the replay buffer, polling,
 * the GET that resumes) cost it 0.9 KB, 27.5 → 28.5 KB (the one-core refactor it builds on
 * measured 27.5 KB, 47 bytes over its old budget), so 29 KB.
 * WebMCP 17 → 17.5 KB (issue 24 review): 16.8 → 17.2 KB for `connectWebMcp`'s depth and size bounds
 * on the page's tools and results (`measureJson`, `maxSchemaDepth`, `maxToolBytes`).
 */
export const toolwireCases: BundleCase[] = [
  {
    name: "core: one valibot tool, Toolset.local, call, listTools",
    budget: 14 * KB,
    source: `import * as v from "valibot";
import { defineTool, Toolset } from "./src/index.ts";
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
const tools = Toolset.local([add]);
export const run = async () => [await tools.listTools(), await tools.call("add", { a: 1, b: 2 })];`,
  },
  {
    name: "mcp client: connectMcp + core",
    // Back to 20 KB: without `jsonSchemaValidator` the client ships no JSON Schema interpreter
    // (21.6 KB with it, 18.3 KB without, both protocol eras included; 18.8 KB with `auth`).
    // Issue 24: resuming 2025 streams (above) took it to 23.0 KB, and the connection's
    // resources, prompts and completion calls (`remote-sources.ts`, on every `connectMcp`
    // result) add 1.3 KB: 24.5 KB measured once all of it was merged.
    // Issue 24, roots answered through onInteraction and a round's questions asked together: 24.9 KB.
    // MCP tasks (both eras): 24.9 → 25.7 KB split. Following a task (`remote-task.ts`, 4.1 KB
    // minified) is a lazy chunk loaded on the first task handle; what loads at once is the call's
    // side: declaring the extension, the 2025 task-augmented call, the host the chunk works
    // through (it imports types only, so nothing it shares with the client is split into a
    // third chunk: importing `mcp-session.ts` from it measured 27.0 KB split), `tasks/cancel`
    // at abort and shutdown. As one file the chunk is in: 27.2 KB.
    budget: 26 * KB,
    singleFileBudget: 27.5 * KB,
    source: `import { connectMcp } from "./src/mcp/index.ts";
export const run = async (url) => {
  const remote = await connectMcp({ url, namespace: "calc" });
  const result = [await remote.listTools(), await remote.call("calc__add", { a: 1, b: 2 })];
  await remote.shutdown();
  return result;
};`,
  },
  {
    name: "oauth client: connectMcp + oauth() + core",
    // The MCP authorization flow (issue 17) is oauth4webapi plus discovery and storage: about
    // 10 KB on top of the MCP client, paid only by who imports toolwire/oauth. 32.7 KB measured
    // with the JSON Schema interpreter in the client, 28.5 KB without (issue 18), so 30 KB.
    // Issue 24: resumable 2025 streams (0.9 KB) and the connection's resources, prompts and
    // completion calls (1.3 KB).
    // Issue 24, as for the MCP client: 35.0 KB.
    // MCP tasks, as for the MCP client: 35.8 KB split, 37.2 KB as one file.
    budget: 36 * KB,
    singleFileBudget: 37.5 * KB,
    source: `import { connectMcp } from "./src/mcp/index.ts";
import { oauth } from "./src/oauth/index.ts";
export const run = async (url, authorize) => {
  const auth = oauth({ redirectUrl: "http://127.0.0.1:8976/callback", authorize });
  const remote = await connectMcp({ url, auth });
  return remote.listTools();
};`,
  },
  {
    name: "mcp server: createMcpHandler + core",
    // Two protocol eras on one endpoint (issue 13): the 2026-07-28 exchange and its signed
    // questions add about 4 KB to the 2025 server. The JSON Schema interpreter was never in
    // it, so taking it out does not bring the server back to 20 KB (24.3 KB measured with the
    // OAuth protected-resource metadata). One core under two codecs (issue 24: the request's
    // scope, the method table, the registry) measured 27.27 → 27.55 KB. `durableSessions` (issue
    // 25, the routing of 2025 sessions to a Durable Object on Workers) measured 27.58 → 28.0 KB;
    // loading it on first use instead was tried and saved 0.1 KB split while costing 0.3 KB as
    // one file (the lazy chunk shares the handler's HTTP helpers), so it is static. Issue 24
    // part 3: resources, templates, prompts and completion (the contract's checks, the URI
    // template reader, six methods, the 2025 GET stream and subscriptions, the listen stream's
    // resource and prompt kinds, the questions of a prompt or read as `input_required`) added
    // 3.6 KB (27.55 → 31.16 KB measured before durableSessions joined). A tools-only server pays
    // for them too, since `createMcpHandler` imports the methods: passing them in through an
    // import of their own is the follow-up that gives those 3.6 KB back to it. Loading the six
    // methods by a dynamic import instead was measured and not kept: 33.09 → 33.00 KB split (the
    // lazy chunk shares core code, which esbuild moves into a shared chunk that loads at once
    // and compresses apart) and 33.09 → 34.23 KB as one file.
    // Resumable 2025 streams add 0.9 KB on top (above).
    // Issue 24, roots/list questions and a 2026 round gathering questions asked together: 33.4 KB
    // (after main's OpenTelemetry server hooks). The Tasks extension's hooks (the codecs hand a
    // `tools/call` and `tasks/*` to the engine when there is one, `fetch`'s Worker context for
    // `waitUntil`, `taskSupport` on a tool, a listen stream's `taskIds`) measured 33.36 → 33.74
    // KB, and the budget grew by that; the engine itself is only in "server + mcpTasks".
    budget: 33.9 * KB,
    source: `import * as v from "valibot";
import { defineTool, Toolset } from "./src/index.ts";
import { createMcpHandler } from "./src/mcp/index.ts";
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
export default createMcpHandler(Toolset.local([add]), { name: "calc", version: "1.0.0",
  allowedHosts: ["calc.example.workers.dev"] });`,
  },
  {
    name: "mcp server + mcpTasks: createMcpHandler with tasks + core",
    // The Tasks extension (`tasks.ts`: records in a store, the lease, cancel, questions in a
    // task, the `tasks/*` methods) on top of the server above, with the default memory store:
    // 37.57 KB measured, 3.8 KB over the server without it.
    budget: 37.75 * KB,
    source: `import * as v from "valibot";
import { defineTool, Toolset } from "./src/index.ts";
import { createMcpHandler, mcpTasks } from "./src/mcp/index.ts";
const add = defineTool({ name: "add", description: "Adds", readOnly: true, taskSupport: "optional",
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
export default createMcpHandler(Toolset.local([add]), { name: "calc", version: "1.0.0",
  allowedHosts: ["calc.example.workers.dev"], tasks: mcpTasks() });`,
  },
  {
    name: "web: registerWebMcpTools + connectWebMcp + core",
    budget: 17.5 * KB,
    source: `import * as v from "valibot";
import { defineTool, Toolset } from "./src/index.ts";
import { connectWebMcp, registerWebMcpTools } from "./src/web/index.ts";
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
export const run = async (signal) => {
  await registerWebMcpTools(Toolset.local([add]), { signal });
  const page = await connectWebMcp({ namespace: "page" });
  return page.listTools();
};`,
  },
  {
    name: "core + agent + scriptedModel",
    // 31.75 KB split, 32.6 KB as one file (after merging main's streamed tool arguments), which
    // also carries pause/resume (lazy when split). The default model summarizer loads at once
    // either way (see above). Issue 18 asks for 25 KB; that needs the summarizer to be an
    // explicit choice outside the entry.
    // Issue 24, the core's roots kind and several open questions: 32.3 KB split, 33.1 KB as one file.
    budget: 32.5 * KB,
    // Signing checkpoints incrementally (design.md A9: messages in hashed blocks, shared frozen
    // copies) adds 0.4 KB to pause/resume, so to every one-file agent build (split: lazy, 0).
    singleFileBudget: 33.75 * KB,
    source: `import * as v from "valibot";
import { defineTool } from "./src/index.ts";
import { Agent, modeApprover } from "./src/agent/index.ts";
import { scriptedModel } from "./src/models/index.ts";
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
const model = scriptedModel([{ toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }] }, { text: "3" }]);
export const run = () => new Agent({ model, tools: [add], approver: modeApprover("allow") }).run("add").result;`,
  },
  {
    // Issue 29: the store adds 1.7 KB gzip to the agent case above (28.4 → 30.1 KB split,
    // 32.1 → 33.8 KB as one file); the agent case itself, which does not import it, is unchanged.
    name: "agent + store: core + agent + scriptedModel + createAgentStore",
    // Measured as what loads at once (issue 25, see above): 33.5 KB split, 34.3 KB as one file;
    // the store adds about 1.75 KB to the agent case, as it did under the old measure.
    // Issue 28's observer hooks (agent and MCP client, about 0.2 KB each) and issue 29's
    // streamed arguments pushed it to 33.8 KB split, just over 34.5 KB as one file. What the
    // demo needed of the store (who decided a card, its question, onCheckpoint, onEvent,
    // reconfigure, restored messages) brought the store to 2.0 KB: 34.1 KB split, 34.9 as one.
    // Issue 24, as for the agent: 34.4 KB split, 35.1 KB as one file.
    budget: 34.5 * KB,
    // Signing checkpoints incrementally (design.md A9: messages in hashed blocks, shared frozen
    // copies) adds 0.4 KB to pause/resume, so to every one-file agent build (split: lazy, 0).
    singleFileBudget: 35.75 * KB,
    source: `import * as v from "valibot";
import { defineTool } from "./src/index.ts";
import { Agent } from "./src/agent/index.ts";
import { scriptedModel } from "./src/models/index.ts";
import { createAgentStore } from "./src/ui/index.ts";
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
const model = scriptedModel([{ toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }] }, { text: "3" }]);
export const store = () => createAgentStore((gates) => new Agent({ model, tools: [add], ...gates }));`,
  },
  {
    name: "browser agent: core + agent + openAICompatible + connectMcp",
    // 49.3 KB split, 50.2 KB as one file (pause/resume included), as for the agent above, plus
    // issue 24's client growth: resumable 2025 streams (0.9 KB) and `connectMcp`'s resources,
    // prompts and completion calls (1.2 KB), and 0.35 KB of issue 28's observer hooks (agent and
    // MCP client; an un-instrumented run calls none of them): 51.8 KB split once all merged.
    // Issue 24, as for the agent and the MCP client: 52.3 KB split, 53.1 KB as one file.
    // MCP tasks, as for the MCP client, plus the agent keeping a call's task in its snapshots:
    // 53.4 KB split, 55.8 KB as one file.
    // `gen_ai.provider.name` (design.md O6): `openAICompatible` names its provider from the base
    // URL's host (six domains the GenAI conventions name, else `openai`) and the agent hands
    // `Model.provider` to its observer: 54,884 → 55,073 B split (+189: the host table and its
    // lookup 149, the hand-over 10, `Model.provider` on the adapter's model 30); the budget grew
    // by that. As one file 57,399 → 57,588 B, still within its budget.
    budget: 53.75 * KB + 189,
    // Signing checkpoints incrementally (design.md A9: messages in hashed blocks, shared frozen
    // copies) adds 0.4 KB to pause/resume, so to every one-file agent build (split: lazy, 0).
    // Reading a 2026 call's answer after an abort to cancel its task (`lateAnswer`, design.md
    // M16 "Cancel") adds 0.24 KB to the client: 55.82 → 56.05 KB as one file (split 53.6 KB).
    singleFileBudget: 56.25 * KB,
    source: `import * as v from "valibot";
import { defineTool, Toolset } from "./src/index.ts";
import { Agent } from "./src/agent/index.ts";
import { openAICompatible } from "./src/models/index.ts";
import { connectMcp } from "./src/mcp/index.ts";
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
export const run = async (url) => new Agent({ model: openAICompatible({ baseURL: url, model: "m" }),
  toolsets: [Toolset.local([add]), await connectMcp({ url })] }).run("add").result;`,
  },
  {
    name: "models: openAICompatible + anthropic",
    budget: 12 * KB,
    source: `import { anthropic, openAICompatible } from "./src/models/index.ts";
export const models = (url) => [openAICompatible({ baseURL: url, model: "m" }), anthropic({ apiKey: "k", model: "c" })];`,
  },
  {
    name: "ai-sdk bridge: aiSdkModel + aiSdkTools + core",
    // Issue 24, the core's roots kind and several open questions: 17.2 KB.
    budget: 17.5 * KB,
    source: `import * as v from "valibot";
import { defineTool, Toolset } from "./src/index.ts";
import { aiSdkModel, aiSdkTools } from "./src/ai-sdk/index.ts";
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
export const bridge = async (languageModel) => [aiSdkModel(languageModel), await aiSdkTools(Toolset.local([add]))];`,
  },
  {
    // The "core + agent + scriptedModel" case driven through the AI SDK's useChat: what the
    // transport adds to an app's agent bundle (the AI SDK's own UI code is the app's, not ours):
    // about 1.5 KB gzip over that case. The single file carries the lazy summarizer, as there.
    // Measured as what loads at once (issue 25's measure, see above): 33.6 KB split. Issue 29's
    // progress and question data parts and the resume after a reload added 0.5 KB: 34.1 KB
    // split, 34.9 KB as one file (2.0 KB over the agent case).
    name: "ai-sdk chat transport: agentChatTransport + core + agent + scriptedModel",
    // Issue 24, as for the agent: 34.4 KB split, 35.2 KB as one file.
    budget: 34.5 * KB,
    // Signing checkpoints incrementally (design.md A9: messages in hashed blocks, shared frozen
    // copies) adds 0.4 KB to pause/resume, so to every one-file agent build (split: lazy, 0).
    singleFileBudget: 35.75 * KB,
    source: `import * as v from "valibot";
import { defineTool } from "./src/index.ts";
import { Agent } from "./src/agent/index.ts";
import { agentChatTransport, approvalAnswered } from "./src/ai-sdk/index.ts";
import { scriptedModel } from "./src/models/index.ts";
const add = defineTool({ name: "add", description: "Adds", readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }), call: ({ a, b }) => String(a + b) });
const model = scriptedModel([{ toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }] }, { text: "3" }]);
export const chat = { transport: agentChatTransport({ agent: (gates) => new Agent({ model, tools: [add], ...gates }) }),
  sendAutomaticallyWhen: approvalAnswered };`,
  },
  {
    name: "otel: otelObserver + @opentelemetry/api",
    // Paid only by an app that imports toolwire/otel (6.8 KB measured, about two thirds of it
    // @opentelemetry/api's own). The GenAI client metrics (`gen_ai.client.operation.duration`,
    // `gen_ai.client.token.usage`) and the server span made current while its method runs:
    // 7.2 KB. The recorded messages in the conventions' `{ role, parts }` schema and a server's
    // `network.transport`, after an audit against the conventions: +499 B, 7.9 KB.
    budget: 7.99 * KB,
    source: `import { otelObserver } from "./src/otel/index.ts";
export const observer = otelObserver({ recordPayloads: false });`,
  },
];

/** The peers' comparable entries, measured the same way in the same run. */
export const peerCases: BundleCase[] = [
  {
    name: "peer: ai ToolLoopAgent + one tool",
    source: `import { ToolLoopAgent, jsonSchema, tool } from "ai";
export const agent = new ToolLoopAgent({ model: "openai/gpt-4o", tools: { add: tool({
  description: "Adds", inputSchema: jsonSchema({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } } }),
  execute: async ({ a, b }) => a + b }) } });`,
  },
  {
    name: "peer: MCP SDK client (Client + Streamable HTTP)",
    source: `import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export const connect = (url) => new Client({ name: "c", version: "1" }).connect(new StreamableHTTPClientTransport(new URL(url)));`,
  },
  {
    name: "peer: MCP SDK server (McpServer + web-standard transport)",
    source: `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
const server = new McpServer({ name: "s", version: "1" });
server.registerTool("add", { description: "Adds" }, async () => ({ content: [{ type: "text", text: "3" }] }));
export const transport = new WebStandardStreamableHTTPServerTransport({});
export const start = () => server.connect(transport);`,
  },
];

/** Prints every toolwire entry against its budget, split and as one file, then the peers. */
export async function bundleSizes(): Promise<void> {
  const { section } = await import("./report.ts");
  section(
    "Bundle sizes (esbuild, minified, gzip -9; split: what loads at once, lazy chunks apart)",
  );
  const verdict = (gzip: number, budget: number | undefined) =>
    budget === undefined ? "" : ` / ${(budget / KB).toFixed(0)} ${gzip <= budget ? "ok" : "OVER"}`;
  for (const entry of [...toolwireCases, ...peerCases]) {
    const size = await measure(entry);
    const single = await measure(entry, "browser", false);
    const neutral = await measure(entry, "neutral", false);
    const lazy = size.lazy > 0 ? ` +${(size.lazy / KB).toFixed(1)} KB min lazy` : "";
    const node =
      neutral.nodeImports.length > 0
        ? `, neutral build imports ${neutral.nodeImports.join(" ")}`
        : "";
    console.log(
      `${entry.name.padEnd(60)} split ${(size.gzip / KB).toFixed(1).padStart(5)} KB${verdict(size.gzip, entry.budget)}${lazy}; one file ${(single.gzip / KB).toFixed(1).padStart(5)} KB${verdict(single.gzip, entry.singleFileBudget ?? entry.budget)}${node}`,
    );
  }
}
