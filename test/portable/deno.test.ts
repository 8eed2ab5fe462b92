/**
 * Deno adapter for the portable suite:
 * `deno test --no-remote --cached-only --allow-read --allow-env test/portable/deno.test.ts`.
 */
import { Toolset } from "../../src/index.ts";
import { createMcpHandler } from "../../src/mcp/index.ts";
import { allCases } from "./all.ts";

for (const { file, cases } of allCases) {
  for (const c of cases) {
    Deno.test(`${file} > ${c.name}`, () => c.run());
  }
}

// `deno test` type-checks this file: `Deno.serve(options, handler.fetch)` (docs/deploy.md) takes
// the handler's `fetch` as it is, Deno's connection info as its second argument.
Deno.test("handler.fetch is a Deno.serve handler as it is", async () => {
  const handler = createMcpHandler(Toolset.local([]), { name: "deno", version: "1.0.0" });
  const serveHandler: Deno.ServeHandler<Deno.NetAddr> = handler.fetch;
  const info: Deno.ServeHandlerInfo<Deno.NetAddr> = {
    remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
    completed: Promise.resolve(),
  };
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  const request = new Request("http://localhost/mcp", { method: "POST", headers, body: ping });
  const response = await serveHandler(request, info);
  const answer = await response.json();
  if (response.status !== 200 || answer.id !== 1 || answer.error !== undefined) {
    throw new Error(
      `ping through Deno's handler shape: ${response.status} ${JSON.stringify(answer)}`,
    );
  }
});
