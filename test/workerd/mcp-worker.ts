/**
 * A real Worker module serving a toolset over MCP: the default export is the handler itself.
 * test/node/workerd-mcp.test.ts bundles it without nodejs_compat and runs it in plain
 * Miniflare (no compatibility flags), then calls it over HTTP with connectMcp.
 */
import * as v from "valibot";
import { defineTool, Toolset } from "../../src/index.ts";
import { createMcpHandler } from "../../src/mcp/index.ts";

const tools = Toolset.local([
  defineTool({
    name: "add",
    description: "Adds two numbers",
    readOnly: true,
    input: v.object({ a: v.number(), b: v.number() }),
    output: v.object({ sum: v.number() }),
    call: ({ a, b }) => ({ sum: a + b }),
  }),
  defineTool({
    name: "runtime",
    description: "Names the runtime serving this call",
    readOnly: true,
    input: v.object({}),
    call: () => navigator.userAgent,
  }),
]);

export default createMcpHandler(tools, {
  name: "toolwire-worker",
  version: "1.0.0",
  // A deployed Worker lists its public host here (e.g. `calc.example.workers.dev`).
  allowedHosts: ["127.0.0.1", "localhost"],
});
