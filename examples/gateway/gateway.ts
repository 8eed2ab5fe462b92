/**
 * A gateway: one MCP endpoint, behind a token, in front of other MCP servers and some local
 * tools. Clients see one server; the gateway connects upstream with its own credentials, which
 * never reach the client (a failed upstream call shows as "internal error", details go to
 * `onError`). `npm start` runs it with a stand-in upstream and one client call, then stops.
 */

import { defineTool, Toolset } from "toolwire";
import { connectMcp, createMcpHandler } from "toolwire/mcp";
import { serve } from "toolwire/node";
import * as v from "valibot";

// The upstream: in a deployment, a remote server (`connectMcp({ url, headers })`) or a local
// process (`connectStdio`); here a calculator on this machine, so the example runs offline.
const calculator = createMcpHandler(
  Toolset.local([
    defineTool({
      name: "add",
      description: "Adds two numbers",
      readOnly: true,
      input: v.object({ a: v.number(), b: v.number() }),
      call: ({ a, b }) => ({ sum: a + b }),
    }),
  ]),
  { name: "calc", version: "1.0.0" },
);
const upstream = await serve(calculator, { port: 0 });

// The gateway: the upstream's tools under `calc__`, and a tool of its own.
const calc = await connectMcp({
  url: `${upstream.url}/mcp`,
  namespace: "calc",
  trustAnnotations: true, // a server we run ourselves: believe its read-only hints
});
const now = defineTool({
  name: "now",
  description: "The gateway's clock",
  readOnly: true,
  input: v.object({}),
  call: () => new Date().toISOString(),
});
const token = process.env.GATEWAY_TOKEN ?? "change-me";
const gateway = createMcpHandler(Toolset.merge([calc, Toolset.local([now])]), {
  name: "gateway",
  version: "1.0.0",
  authorize: (request) => request.headers.get("authorization") === `Bearer ${token}`,
  onError: (error, { phase }) => console.error(`gateway ${phase}:`, error),
});
const served = await serve(gateway, { port: 0 });

// A client of the gateway, as an agent or a desktop client would be.
const client = await connectMcp({
  url: `${served.url}/mcp`,
  headers: { authorization: `Bearer ${token}` },
});
console.log((await client.listTools()).map((tool) => tool.name)); // ["calc__add","now"]
console.log((await client.call("calc__add", { a: 2, b: 3 })).structuredContent); // {"sum":5}

await client.shutdown();
await served.close();
await calc.shutdown();
await upstream.close();
