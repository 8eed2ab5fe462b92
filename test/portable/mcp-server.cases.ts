import * as v from "valibot";
import { defineTool, Toolset } from "../../src/index.ts";
import { createMcpHandler } from "../../src/mcp/index.ts";
import { assert, assertEqual, type PortableCase } from "./harness.ts";

const ENDPOINT = "http://127.0.0.1:8787/mcp";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function handler() {
  const add = defineTool({
    name: "add",
    description: "Adds two numbers",
    readOnly: true,
    input: v.object({ a: v.number(), b: v.number() }),
    call: ({ a, b }) => String(a + b),
  });
  return createMcpHandler(Toolset.local([add]), { name: "portable", version: "1.0.0" });
}

function post(body: string, url = ENDPOINT, headers: Record<string, string> = {}): Request {
  return new Request(url, { method: "POST", headers: { ...HEADERS, ...headers }, body });
}

export const cases: PortableCase[] = [
  {
    name: "mcp server: initialize, tools/list and tools/call through an in-process fetch",
    async run() {
      const { fetch } = handler();
      const init = await fetch(
        post(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-06-18",
              capabilities: {},
              clientInfo: { name: "p", version: "0" },
            },
          }),
        ),
      );
      const initBody = (await init.json()) as {
        result: { protocolVersion: string; serverInfo: unknown };
      };
      assertEqual(initBody.result.protocolVersion, "2025-06-18");
      assertEqual(initBody.result.serverInfo, { name: "portable", version: "1.0.0" });
      const list = (await (
        await fetch(post(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })))
      ).json()) as { result: { tools: { name: string }[] } };
      assertEqual(
        list.result.tools.map((tool: { name: string }) => tool.name),
        ["add"],
      );
      const call = await fetch(
        post(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 3,
            method: "tools/call",
            params: { name: "add", arguments: { a: 2, b: 3 } },
          }),
        ),
      );
      assertEqual(await call.json(), {
        jsonrpc: "2.0",
        id: 3,
        result: { content: [{ type: "text", text: "5" }], isError: false },
      });
    },
  },
  {
    name: "mcp server: refuses a foreign Host or Origin with 403",
    async run() {
      const { fetch } = handler();
      const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
      const foreignHost = await fetch(post(ping, "http://attacker.example/mcp"));
      assertEqual(foreignHost.status, 403);
      const request = post(ping, ENDPOINT, { origin: "https://attacker.example" });
      // Browsers drop `Origin` from scripted requests; elsewhere it must be refused.
      if (request.headers.get("origin") !== null) {
        assertEqual((await fetch(request)).status, 403);
      }
    },
  },
  {
    name: "mcp server: malformed JSON gets a -32700 parse error with id null",
    async run() {
      const response = await handler().fetch(post("{oops"));
      assertEqual(response.status, 400);
      const body = (await response.json()) as {
        id: unknown;
        error: { code: number; message: unknown };
      };
      assertEqual(body.id, null);
      assertEqual(body.error.code, -32700);
      assert(typeof body.error.message === "string", "the error has no message");
    },
  },
];
