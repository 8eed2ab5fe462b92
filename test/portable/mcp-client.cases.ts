// connectMcp through an in-memory fake MCP server (a `fetch` function, no sockets), so the
// client is proven in Node, Chromium, workerd and Deno.
import { isToolError } from "../../src/index.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { connectMcp } from "../../src/mcp/index.ts";
import { createFakeMcp } from "../support/fake-mcp-fetch.ts";
import { assert, assertEqual, assertRejects, type PortableCase } from "./harness.ts";

const URL_ = "https://mcp.example.test/mcp";

function fake() {
  return createFakeMcp({
    sessionId: "portable-1",
    tools: [
      {
        name: "echo",
        description: "Echoes",
        inputSchema: {
          type: "object",
          properties: { message: { type: "string" } },
          required: ["message"],
        },
        annotations: { readOnlyHint: true },
      },
      { name: "fail", inputSchema: { type: "object" } },
      { name: "work", inputSchema: { type: "object" } },
    ],
    pageSize: 2,
    call: (name, args) => {
      if (name === "fail") {
        return {
          result: {
            content: [{ type: "text", text: "record not found" }],
            isError: true,
            _meta: { code: "E404" },
          },
        };
      }
      if (name === "work") {
        return { progress: [1, 2], result: { content: [{ type: "text", text: "worked" }] } };
      }
      const message = (args as { message: string }).message;
      return { result: { content: [{ type: "text", text: message }] } };
    },
  });
}

export const cases: PortableCase[] = [
  {
    name: "mcp client: lists every page with namespaced names",
    async run() {
      const server = fake();
      const toolset = await connectMcp({ url: URL_, namespace: "repo", fetch: server.fetch });
      const tools = await toolset.listTools();
      assertEqual(
        tools.map((t) => t.name),
        ["repo__echo", "repo__fail", "repo__work"],
      );
      assertEqual(tools[0]?.annotations, { readOnlyHint: true });
      assertEqual(server.messages("tools/list").length, 2);
      await toolset.shutdown();
    },
  },
  {
    name: "mcp client: calls the native name and returns its content",
    async run() {
      const server = fake();
      const toolset = await connectMcp({ url: URL_, namespace: "repo", fetch: server.fetch });
      const result = await toolset.call("repo__echo", { message: "hello" });
      assertEqual(result, { content: [{ type: "text", text: "hello" }], isError: false });
      const [call] = server.messages("tools/call");
      assertEqual((call?.params as { name?: unknown } | undefined)?.name, "echo");
      await toolset.shutdown();
    },
  },
  {
    name: "mcp client: a remote isError stays a result with its metadata",
    async run() {
      const server = fake();
      const toolset = await connectMcp({ url: URL_, fetch: server.fetch });
      const result = await toolset.call("fail", {});
      assertEqual(result, {
        content: [{ type: "text", text: "record not found" }],
        isError: true,
        metadata: { code: "E404" },
      });
      await toolset.shutdown();
    },
  },
  {
    name: "mcp client: with a jsonSchemaValidator, invalid arguments fail before any request",
    async run() {
      const server = fake();
      const toolset = await connectMcp({ url: URL_, fetch: server.fetch, jsonSchemaValidator });
      const before = server.requests.length;
      await assertRejects(
        () => toolset.call("echo", "not an object"),
        (e) => isToolError(e, "invalid_arguments"),
      );
      await assertRejects(
        () => toolset.call("echo", { message: 7 }),
        (e) => isToolError(e, "invalid_arguments") && e.issues?.[0]?.path === "/message",
      );
      assertEqual(server.requests.length, before);
      await toolset.shutdown();
    },
  },
  {
    name: "mcp client: SSE progress reaches onProgress; shutdown DELETEs once",
    async run() {
      const server = fake();
      const toolset = await connectMcp({ url: URL_, fetch: server.fetch });
      const seen: number[] = [];
      const result = await toolset.call("work", {}, { onProgress: (p) => seen.push(p.progress) });
      assertEqual(result.content, [{ type: "text", text: "worked" }]);
      assertEqual(seen, [1, 2]);
      await Promise.all([toolset.shutdown(), toolset.shutdown()]);
      const deletes = server.requests.filter((r) => r.method === "DELETE");
      assertEqual(deletes.length, 1);
      assert(deletes[0]?.headers.get("mcp-session-id") === "portable-1", "no session id on DELETE");
    },
  },
];
