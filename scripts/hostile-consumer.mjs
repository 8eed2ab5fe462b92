// The attacks of issue 23, run against the installed tarball by the `package` step: what a user
// installs must end each in a typed error or a 4xx with the request's own id, with no warning on
// stderr. A regression that only shows in the bundled build (a guard left out of an entry, a
// chunk that lost a check) fails here; the unit tests hold each rule on the sources.
import http from "node:http";
import { defineTool, Toolset } from "toolwire";
import { jsonSchemaValidator } from "toolwire/json-schema";
import { connectMcp, createMcpHandler } from "toolwire/mcp";
import { anthropic } from "toolwire/models";
import * as v from "valibot";

const warnings = [];
process.on("warning", (warning) => warnings.push(warning.name));
const check = (ok, what) => {
  if (!ok) throw new Error(`hostile input: ${what}`);
};
const settle = (promise) =>
  promise.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );

// A 2025 MCP server answering each JSON-RPC request with `answer(message)`.
function mcpServer(answer) {
  const server = http.createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    if (request.method !== "POST") return response.writeHead(405).end();
    const message = JSON.parse(body);
    if (!("id" in message)) return response.writeHead(202).end();
    const outcome =
      message.method === "initialize"
        ? {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "hostile", version: "1" },
          }
        : message.method === "server/discover"
          ? { error: { code: -32601, message: "Method not found" } }
          : answer(message);
    const reply = outcome.error
      ? { jsonrpc: "2.0", id: message.id, error: outcome.error }
      : { jsonrpc: "2.0", id: message.id, result: outcome };
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}/mcp`, server }),
    ),
  );
}

// 1. Paging: 20,000 tools a page and a fresh cursor every time.
{
  let page = 0;
  const { url, server } = await mcpServer(() => ({
    tools: Array.from({ length: 20_000 }, (_, i) => ({
      name: `t${page}_${i}`,
      inputSchema: { type: "object" },
    })),
    nextCursor: String(++page),
  }));
  const { error } = await settle(connectMcp({ url }));
  check(error?.type === "transport" && /maxTools/.test(error.message), "paging is capped");
  check(page === 1, `paging stops at the page that crossed the cap (${page} pages)`);
  server.close();
}

// 2. ReDoS through a foreign output schema, with the validator a user passes.
{
  const { url, server } = await mcpServer((message) =>
    message.method === "tools/list"
      ? {
          tools: [
            {
              name: "x",
              inputSchema: { type: "object" },
              outputSchema: {
                type: "object",
                properties: { x: { type: "string", pattern: "^(a+)+$" } },
              },
            },
          ],
        }
      : {
          content: [{ type: "text", text: "x" }],
          structuredContent: { x: `${"a".repeat(34)}!` },
        },
  );
  const remote = await connectMcp({ url, jsonSchemaValidator });
  let ticked = false;
  setTimeout(() => {
    ticked = true;
  }, 0);
  const { value } = await settle(remote.call("x", {}));
  check(value !== undefined, "a backtracking pattern is left to the server");
  await new Promise((resolve) => setTimeout(resolve, 0));
  check(ticked, "the event loop kept running");
  await remote.shutdown();
  server.close();
}

// 3. Deep arguments to a served toolset: a 4xx with the request's own id.
{
  const add = defineTool({
    name: "add",
    description: "Adds",
    input: v.object({ a: v.number() }),
    call: ({ a }) => String(a),
  });
  const handler = createMcpHandler(Toolset.local([add]), { name: "s", version: "1" });
  const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
  const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":${deep}}}}`;
  const response = await handler.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    }),
  );
  const answer = await response.json();
  check(response.status === 400 && answer.id === 7, `deep arguments: ${response.status}`);
}

// 4. A model endpoint redirecting elsewhere gets neither the key nor the conversation.
{
  let reached = false;
  const elsewhere = http.createServer((_, response) => {
    reached = true;
    response.writeHead(200).end();
  });
  await new Promise((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
  const redirecting = http.createServer((_, response) => {
    response
      .writeHead(307, { location: `http://127.0.0.1:${elsewhere.address().port}/v1/messages` })
      .end();
  });
  await new Promise((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
  const model = anthropic({
    apiKey: "sk-ant-hostile-test-key",
    model: "claude",
    baseURL: `http://127.0.0.1:${redirecting.address().port}`,
  });
  const { error } = await settle(
    (async () => {
      for await (const _ of model.stream({
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      })) {
        // drained
      }
    })(),
  );
  check(error?.type === "http" && !String(error.message).includes("sk-ant"), "redirect refused");
  check(!reached, "the redirect target was never asked");
  elsewhere.close();
  redirecting.close();
}

check(warnings.length === 0, `warnings on stderr: ${warnings.join(", ")}`);
console.log("hostile inputs against the installed package: capped, guarded, refused");
