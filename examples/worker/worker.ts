/**
 * A Cloudflare Worker serving a toolset as an MCP server: the handler is the default export.
 * `wrangler deploy -c examples/worker/wrangler.jsonc` deploys it; no nodejs_compat needed.
 *
 * In your project, import from "toolwire" and "toolwire/mcp"; this copy imports the sources so
 * the repository's tests can bundle it without a build. README.md's "Deploy" section shows this
 * file with those imports, and the README test keeps the two the same.
 */
import * as v from "valibot";
import { defineTool, Toolset } from "../../src/index.ts";
import { createMcpHandler } from "../../src/mcp/index.ts";

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }),
  output: v.object({ sum: v.number() }),
  call: ({ a, b }) => ({ sum: a + b }),
});

export default createMcpHandler(Toolset.local([add]), {
  name: "calc",
  version: "1.0.0",
  // The public host the Worker answers as, and the pages that may call it from a browser.
  allowedHosts: ["calc.example.workers.dev"],
  allowedOrigins: ["https://app.example.com"],
});
