import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, Toolset } from "../../../src/index.ts";
import { createMcpHandler } from "../../../src/mcp/index.ts";
import { post, rpc } from "./fixture.ts";

const tools = Array.from({ length: 7 }, (_, i) =>
  defineTool({
    name: `tool_${i}`,
    description: `Tool ${i}`,
    input: v.object({ x: v.optional(v.number()) }),
    call: () => "ok",
  }),
);

describe("tools/list", () => {
  it("pages with opaque cursors until every tool is listed once", async () => {
    const handler = createMcpHandler(Toolset.local(tools), {
      name: "p",
      version: "1",
      pageSize: 3,
    });
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const params = cursor === undefined ? {} : { cursor };
      const body = await (await handler.fetch(post(rpc(pages, "tools/list", params)))).json();
      names.push(...body.result.tools.map((tool: { name: string }) => tool.name));
      cursor = body.result.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(names).toEqual(tools.map((tool) => tool.name));
  });

  it("renders the tool's declaration for MCP", async () => {
    const handler = createMcpHandler(Toolset.local(tools.slice(0, 1)), { name: "p", version: "1" });
    const body = await (await handler.fetch(post(rpc(1, "tools/list")))).json();
    expect(body.result.nextCursor).toBeUndefined();
    expect(body.result.tools[0]).toMatchObject({
      name: "tool_0",
      description: "Tool 0",
      inputSchema: { type: "object", properties: { x: { type: "number" } } },
    });
  });

  it("refuses a cursor it did not issue with -32602", async () => {
    const handler = createMcpHandler(Toolset.local(tools), { name: "p", version: "1" });
    for (const cursor of ["garbage", 42, btoa("other:tool_1")]) {
      const body = await (await handler.fetch(post(rpc(1, "tools/list", { cursor })))).json();
      expect(body.error.code, String(cursor)).toBe(-32602);
    }
  });
});
