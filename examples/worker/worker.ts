/**
 * A Cloudflare Worker serving a toolset as an MCP server: the handler is the default export.
 * `npx wrangler dev` runs it locally, `npx wrangler deploy` deploys it; no nodejs_compat needed.
 * docs/deploy.md shows this file, and the README test keeps the two the same.
 */

import { defineTool, Toolset } from "toolwire";
import { createMcpHandler } from "toolwire/mcp";
import * as v from "valibot";

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
