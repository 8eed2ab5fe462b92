/**
 * An MCP server on Deno: the handler's `fetch` goes straight to `Deno.serve`, no adapter.
 * `deno task start` serves it, calls it once as a client would, and stops; drop the last block
 * to keep serving (deployed, list the public host in `allowedHosts`).
 */

import { defineTool, Toolset } from "toolwire";
import { connectMcp, createMcpHandler } from "toolwire/mcp";
import * as v from "valibot";

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }),
  call: ({ a, b }) => ({ sum: a + b }),
});
const handler = createMcpHandler(Toolset.local([add]), { name: "calc", version: "1.0.0" });

// Port 0 picks a free port; the handler answers loopback hosts only until `allowedHosts` says.
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler.fetch);

const calc = await connectMcp({ url: `http://127.0.0.1:${server.addr.port}/mcp` });
console.log((await calc.listTools()).map((tool) => tool.name)); // ["add"]
console.log((await calc.call("add", { a: 1, b: 2 })).structuredContent); // {"sum":3}
await calc.shutdown();
await server.shutdown();
