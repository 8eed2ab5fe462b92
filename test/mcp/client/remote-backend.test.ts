import { describe, expect, it } from "vitest";
import { McpSession } from "../../../src/mcp/client/mcp-session.ts";
import { createRemoteBackend } from "../../../src/mcp/client/remote-backend.ts";
import { RemoteHandler } from "../../../src/mcp/client/remote-handler.ts";
import { toolFromMcp } from "../../../src/mcp/client/tool-from-mcp.ts";
import { caught } from "../../support/caught.ts";

const options = { timeoutMs: 1000, formInteractions: false };
const remote = (name: string, namespace?: string) =>
  toolFromMcp(
    { name, inputSchema: { type: "object" } },
    namespace ? { namespace, formInteractions: false } : { formInteractions: false },
  );

describe("createRemoteBackend", () => {
  it("lists the inventory as a copy and makes a fresh handler per call", async () => {
    const session = new McpSession("http://x.test/mcp", new Headers(), fetch);
    const backend = createRemoteBackend(session, [remote("a"), remote("b")], options);
    const listed = await backend.listTools();
    listed.pop();
    expect((await backend.listTools()).map((t) => t.name)).toEqual(["a", "b"]);
    const one = await backend.toolHandler("a" as never);
    expect(one).toBeInstanceOf(RemoteHandler);
    expect(await backend.toolHandler("a" as never)).not.toBe(one);
    expect((await caught(backend.toolHandler("c" as never))).type).toBe("unknown_tool");
  });

  it("refuses two remote tools that end up with one name", async () => {
    const session = new McpSession("http://x.test/mcp", new Headers(), fetch);
    const error = await caught(() =>
      createRemoteBackend(session, [remote("a"), remote("a")], options),
    );
    expect(error.toJSON()).toMatchObject({ type: "duplicate_name", name: "a" });
  });

  it("shuts down by closing the session", async () => {
    let deletes = 0;
    const fetchImpl = (async (_: unknown, init?: RequestInit) => {
      if (init?.method === "DELETE") deletes++;
      return Response.json(
        { jsonrpc: "2.0", id: 1, result: {} },
        { headers: { "mcp-session-id": "s" } },
      );
    }) as typeof fetch;
    const session = new McpSession("http://x.test/mcp", new Headers(), fetchImpl);
    await session.request(1, "initialize", {}, { label: "initialize" });
    const backend = createRemoteBackend(session, [], options);
    await backend.shutdown?.();
    await session.close();
    expect(deletes).toBe(1);
  });
});
