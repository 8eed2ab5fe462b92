/**
 * A toolset served over MCP's stdio transport: the process a desktop or editor client starts
 * from its `mcpServers` config (README.md, "stdio"). Run it by hand with
 * `npx tsx examples/stdio/server.ts`; it reads JSON-RPC from stdin until stdin closes.
 *
 * In your project, import from "toolwire" and "toolwire/node"; this copy imports the sources so
 * the repository's tests can start it without a build.
 */
import * as v from "valibot";
import { defineTool, Toolset } from "../../src/index.ts";
import { serveStdio } from "../../src/node/index.ts";

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
