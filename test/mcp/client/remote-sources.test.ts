// `connectMcp`'s resources, prompts and completion calls (design.md "Consuming MCP",
// "Resources, prompts and completion") against toolwire's own dual-era handler, pinned to each
// revision: typed results, foreign data marked with its source, the server's not-found as one
// `protocol` error, `unsupported` for a capability the server does not declare, `closed` after
// shutdown, credentials scrubbed from what the server echoes.

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, isToolError, Toolset } from "../../../src/index.ts";
import { connectMcp, createMcpHandler, type McpHandlerOptions } from "../../../src/mcp/index.ts";

const PNG = "iVBORw0KGgo=";

function server(options: Partial<McpHandlerOptions> = {}) {
  const tools = Toolset.local([
    defineTool({
      name: "noop",
      description: "Does nothing",
      input: v.object({}),
      readOnly: true,
      call: () => "ok",
    }),
  ]);
  return createMcpHandler(tools, {
    name: "sources",
    version: "1.0.0",
    resources: [
      { uri: "docs://readme", name: "readme", mimeType: "text/markdown", read: () => "# Hi" },
      { uri: "docs://logo", name: "logo", mimeType: "image/png", read: () => ({ blob: PNG }) },
      // Echoes what it was sent: a server may reflect the client's credential back.
      {
        uri: "docs://echo",
        name: "echo",
        read: (ctx) => `token ${(ctx.auth as { token: string }).token}`,
      },
    ],
    resourceTemplates: [
      {
        uriTemplate: "users://{id}",
        name: "user",
        read: (_uri, { id }) => (id === "0" ? undefined : `user ${id}`),
        complete: { id: (value) => ["7", "70"].filter((id) => id.startsWith(value)) },
      },
    ],
    prompts: [
      {
        name: "greet",
        description: "Greets someone",
        arguments: [{ name: "who", required: true }],
        get: ({ who }) => [
          { role: "user", content: { type: "text", text: `Greet ${who}` } },
          { role: "assistant", content: { type: "image", data: PNG, mimeType: "image/png" } },
        ],
      },
    ],
    authorize: (request) => ({
      subject: "u",
      token: request.headers.get("authorization")?.slice(7) ?? "",
    }),
    ...options,
  });
}

const SECRET = "sk-very-secret-token-123";

for (const protocol of ["2025-11-25", "2026-07-28"] as const) {
  describe(`connectMcp resources and prompts (${protocol})`, () => {
    const connect = (handler = server()) =>
      connectMcp({
        url: "http://127.0.0.1/mcp",
        fetch: handler.fetch,
        protocol,
        headers: { authorization: `Bearer ${SECRET}` },
      });

    it("lists and reads resources, text and binary, fixed and templated, marked untrusted", async () => {
      const mcp = await connect();
      expect(await mcp.listResources()).toEqual([
        { uri: "docs://echo", name: "echo" },
        { uri: "docs://logo", name: "logo", mimeType: "image/png" },
        { uri: "docs://readme", name: "readme", mimeType: "text/markdown" },
      ]);
      expect(await mcp.listResourceTemplates()).toEqual([
        { uriTemplate: "users://{id}", name: "user" },
      ]);
      const text = await mcp.readResource("docs://readme");
      expect(text.contents).toEqual([
        { type: "text", uri: "docs://readme", mimeType: "text/markdown", text: "# Hi" },
      ]);
      expect(text.source).toEqual({ type: "mcp", origin: "http://127.0.0.1/mcp", trusted: false });
      expect((await mcp.readResource("docs://logo")).contents[0]).toMatchObject({
        type: "blob",
        blob: PNG,
      });
      expect((await mcp.readResource("users://7")).contents[0]).toMatchObject({ text: "user 7" });
      await mcp.shutdown();
    });

    it("fails a missing resource with one protocol error naming the URI", async () => {
      const mcp = await connect();
      for (const uri of ["users://0", "nowhere://x"]) {
        const error = await mcp.readResource(uri).catch((e: unknown) => e);
        expect(isToolError(error, "protocol")).toBe(true);
        expect((error as Error).message).toContain(uri);
      }
      await mcp.shutdown();
    });

    it("scrubs a credential the server echoes from what it returns", async () => {
      const mcp = await connect();
      const read = await mcp.readResource("docs://echo");
      expect(JSON.stringify(read)).not.toContain(SECRET);
      await mcp.shutdown();
    });

    it("lists and gets prompts, with content as tool content", async () => {
      const mcp = await connect();
      expect(await mcp.listPrompts()).toEqual([
        {
          name: "greet",
          description: "Greets someone",
          arguments: [{ name: "who", required: true }],
        },
      ]);
      const prompt = await mcp.getPrompt("greet", { who: "Ada" });
      expect(prompt.messages).toEqual([
        { role: "user", content: { type: "text", text: "Greet Ada" } },
        { role: "assistant", content: { type: "image", data: PNG, mimeType: "image/png" } },
      ]);
      expect(prompt.source.trusted).toBe(false);
      const missing = await mcp.getPrompt("greet").catch((e: unknown) => e);
      expect(isToolError(missing, "protocol")).toBe(true);
      await mcp.shutdown();
    });

    it("completes template variables", async () => {
      const mcp = await connect();
      expect(
        await mcp.complete({ type: "resource", uri: "users://{id}" }, { name: "id", value: "7" }),
      ).toEqual({ values: ["7", "70"], total: 2, hasMore: false });
      await mcp.shutdown();
    });

    it("refuses what the server does not serve without a request, and everything after shutdown", async () => {
      const bare = createMcpHandler(Toolset.local([]), { name: "bare", version: "1" });
      let requests = 0;
      const mcp = await connectMcp({
        url: "http://127.0.0.1/mcp",
        protocol,
        fetch: (input, init) => {
          requests++;
          return bare.fetch(input, init);
        },
      });
      const before = requests;
      const refused = await mcp.listPrompts().catch((e: unknown) => e);
      expect(isToolError(refused, "unsupported")).toBe(true);
      expect(requests).toBe(before);
      await mcp.shutdown();
      const served = await connect();
      await served.shutdown();
      expect(isToolError(await served.listResources().catch((e: unknown) => e), "closed")).toBe(
        true,
      );
    });

    it("cancels with the caller's signal", async () => {
      const mcp = await connect();
      const controller = new AbortController();
      controller.abort();
      const error = await mcp.listResources({ signal: controller.signal }).catch((e: unknown) => e);
      expect(isToolError(error, "cancelled")).toBe(true);
      await mcp.shutdown();
    });
  });
}
