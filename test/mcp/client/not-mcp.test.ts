// Issue 30 point 6: a URL that is no MCP endpoint (a web page answering 200) says so, with the
// content type and a short scrubbed excerpt, in both protocol eras; and the default client
// answers a remote tool's question when the call has `onInteraction`. Real node:http servers.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { isToolError } from "../../../src/errors.ts";
import { InteractionResponse } from "../../../src/index.ts";
import { connectMcp } from "../../../src/mcp/client/connect-mcp.ts";
import { serve } from "../../../src/node/index.ts";
import { fixtureHandler } from "../server/fixture.ts";

const TOKEN = "tok-SECRET-4242424242";
const PAGE = `<!doctype html>\n<html>\n<head><title>My blog</title></head>\n<body>${"lorem ".repeat(400)} ${TOKEN}</body>\n</html>`;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function page(): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("connectMcp to a URL that serves a web page", () => {
  test.each([
    ["auto", undefined, "server/discover"],
    ["2025-11-25", "2025-11-25", "initialize"],
  ] as const)(
    "says the server answered text/html with an excerpt (protocol %s)",
    async (_, protocol, method) => {
      const base = await page();
      const error = await connectMcp({
        url: `${base}/mcp?token=${TOKEN}`,
        ...(protocol ? { protocol } : {}),
      }).catch((e: unknown) => e);
      expect(isToolError(error, "protocol")).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain(
        `${method}: the server answered text/html (HTTP 200), not JSON or an event stream; check that ${base}/mcp is an MCP endpoint: <!doctype html> <html> <head><title>My blog</title></head>`,
      );
      expect(message).not.toMatch(/JSON-RPC/);
      expect(message.length).toBeLessThan(500);
      expect(JSON.stringify(error)).not.toContain(TOKEN);
    },
  );
});

describe("the default connectMcp over real HTTP and a tool that asks (issue 30 point 4)", () => {
  test("connectMcp({ url }) answers the tool's question through the call's onInteraction", async () => {
    const { handler } = fixtureHandler({ stateSecret: "s".repeat(32) });
    const served = await serve(handler, { port: 0 });
    try {
      const client = await connectMcp({ url: `${served.url}/mcp` });
      const result = await client.call(
        "ask_text",
        {},
        { onInteraction: async (request) => InteractionResponse.submit(request.id, "hello") },
      );
      expect(result.content).toEqual([{ type: "text", text: "got hello" }]);
      await client.shutdown();
    } finally {
      await served.close();
    }
  });
});
