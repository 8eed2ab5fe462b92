/**
 * A toolset served over MCP's stdio transport: the process a desktop or editor client starts
 * from its `mcpServers` config (docs/node.md, "stdio"). Run it by hand with `npx tsx server.ts`;
 * it reads JSON-RPC from stdin until stdin closes. `npm start` runs client.ts, which starts it.
 */

import { defineTool, Toolset } from "toolwire";
import { serveStdio } from "toolwire/node";
import * as v from "valibot";

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }),
  output: v.object({ sum: v.number() }),
  call: ({ a, b }) => ({ sum: a + b }),
});

// stdout carries only protocol messages; console.log goes to stderr while serving.
await serveStdio(Toolset.local([add]), { name: "calc", version: "1.0.0" });
