import { describe, expect, it } from "vitest";
import { listRemoteTools } from "../../../src/mcp/client/list-remote-tools.ts";
import { McpSession } from "../../../src/mcp/client/mcp-session.ts";
import { caught } from "../../support/caught.ts";
import { createFakeMcp, type FakeMcpOptions } from "../../support/fake-mcp-fetch.ts";

const tool = (name: string) => ({ name, inputSchema: { type: "object" } });
const options = { formInteractions: false, timeoutMs: 5000 };
const sessionOn = (fake: FakeMcpOptions) => {
  const server = createFakeMcp(fake);
  return { server, session: new McpSession("http://x.test/mcp", new Headers(), server.fetch) };
};
const listing = (result: Record<string, unknown>) => ({
  override: (message: Record<string, unknown>) =>
    message.method === "tools/list"
      ? Response.json({ jsonrpc: "2.0", id: message.id, result })
      : undefined,
});

describe("listRemoteTools", () => {
  it("follows nextCursor across pages, in order, with the namespace applied", async () => {
    const { server, session } = sessionOn({
      tools: ["a", "b", "c", "d", "e"].map(tool),
      pageSize: 2,
    });
    const tools = await listRemoteTools(session, { ...options, namespace: "ns" });
    expect(tools.map((t) => t.info.name)).toEqual(["ns__a", "ns__b", "ns__c", "ns__d", "ns__e"]);
    expect(server.messages("tools/list").map((m) => m.params)).toEqual([
      {},
      { cursor: "2" },
      { cursor: "4" },
    ]);
  });

  it("treats a null cursor as the last page", async () => {
    const { session } = sessionOn(listing({ tools: [tool("a")], nextCursor: null }));
    expect((await listRemoteTools(session, options)).map((t) => t.nativeName)).toEqual(["a"]);
  });

  it("refuses a missing tools array, a non-string cursor and a repeated cursor", async () => {
    for (const result of [{}, { tools: [], nextCursor: 5 }, { tools: [], nextCursor: "same" }]) {
      const { session } = sessionOn(listing(result));
      const error = await caught(listRemoteTools(session, options));
      expect(error.type, JSON.stringify(result)).toBe("protocol");
    }
  });
});
