// A small MCP server for the demo's e2e: two tools served by toolwire over Streamable HTTP on
// 127.0.0.1:4174, so the page can connect to it with `connectMcp` (loopback origins are allowed
// by default). Run with `tsx e2e/demo-mcp-server.ts`.
import * as v from "valibot";
import { defineTool, Toolset } from "../src/index.ts";
import { createMcpHandler } from "../src/mcp/index.ts";
import { serve } from "../src/node/index.ts";

const echo = defineTool({
  name: "echo",
  description: "Returns its text, reversed, to show a remote read-only call.",
  readOnly: true,
  input: v.object({ text: v.string() }),
  call: ({ text }) => `echo from the MCP server: ${[...text].reverse().join("")}`,
});

const postMessage = defineTool({
  name: "post_message",
  description: "Pretends to post a message somewhere public (a writing, sending tool).",
  capabilities: { externalSend: true },
  input: v.object({ text: v.string() }),
  call: ({ text }) => `posted: ${text}`,
});

const port = Number(process.env.DEMO_MCP_PORT ?? 4174);
const handler = createMcpHandler(Toolset.local([echo, postMessage]), {
  name: "demo-e2e",
  version: "1.0.0",
});
const server = await serve(handler, { port });
console.log(`demo MCP server on ${server.url}/mcp`);
