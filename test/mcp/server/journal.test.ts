// A tool's side effects across an MCP 2026-07-28 retry (design.md T16): answering a question
// runs the tool again from the start, so an effect inside `ctx.once` is recorded in the signed
// `requestState` and replayed, never repeated; a tool declared `replayable: false` that asks
// fails the call instead; a journal past `maxJournalBytes` fails it too. Over 2025 the same tool
// asks once and nothing runs twice. Every call goes through a real `connectMcp` client.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  defineTool,
  InteractionResponse,
  type ToolInteractionRequest,
  Toolset,
} from "../../../src/index.ts";
import { connectMcp, createMcpHandler, type McpHandlerOptions } from "../../../src/mcp/index.ts";

const url = "http://localhost/mcp";
const SECRET = "a-journal-test-secret-of-32-characters";

/** A shop whose `order` tool writes, then asks to confirm: the double-write probe. */
function shop(options: { journaled: boolean; replayable?: boolean; payload?: string }) {
  const writes: string[] = [];
  const order = defineTool({
    name: "order",
    description: "Places an order, then asks for the delivery slot",
    input: v.object({ item: v.string() }),
    interactions: { form: true },
    ...(options.replayable === undefined ? {} : { replayable: options.replayable }),
    call: async ({ item }, ctx) => {
      const write = () => {
        writes.push(item);
        return { orderId: `o-${writes.length}`, note: options.payload };
      };
      const placed = options.journaled ? await ctx.once("place", write) : write();
      const slot = await ctx.requestForm("Delivery slot?", {
        type: "object",
        properties: { slot: { type: "string" } },
      });
      return `${placed.orderId} at ${String(slot.slot)}`;
    },
  });
  return { toolset: Toolset.local([order]), writes };
}

const answer = async (request: ToolInteractionRequest) =>
  InteractionResponse.submit(request.id, { slot: "9:00" });

async function order(
  toolset: Toolset,
  client: { protocol?: "auto" | "2026-07-28" | "2025-11-25" },
  server: Partial<McpHandlerOptions> = {},
) {
  const handler = createMcpHandler(toolset, {
    name: "shop",
    version: "1.0.0",
    stateSecret: SECRET,
    ...server,
  });
  const remote = await connectMcp({ url, fetch: handler.fetch, formInteractions: true, ...client });
  try {
    return await remote.call("order", { item: "tea" }, { onInteraction: answer });
  } finally {
    await remote.shutdown();
  }
}

describe("ctx.once over an MCP 2026-07-28 retry", () => {
  it("writes once when the tool writes and then asks (protocol 2026-07-28)", async () => {
    const { toolset, writes } = shop({ journaled: true });
    const result = await order(toolset, { protocol: "2026-07-28" });
    expect(result.content).toEqual([{ type: "text", text: "o-1 at 9:00" }]);
    expect(writes).toEqual(["tea"]);
  });

  it("writes once with the client's default protocol (auto)", async () => {
    const { toolset, writes } = shop({ journaled: true });
    const result = await order(toolset, {});
    expect(result.content).toEqual([{ type: "text", text: "o-1 at 9:00" }]);
    expect(writes).toEqual(["tea"]);
  });

  it("writes twice when the write is outside ctx.once: the retry runs the tool again", async () => {
    const { toolset, writes } = shop({ journaled: false });
    const result = await order(toolset, {});
    expect(result.content).toEqual([{ type: "text", text: "o-2 at 9:00" }]);
    expect(writes).toEqual(["tea", "tea"]);
  });

  it("refuses a question from a tool declared replayable: false, which then ran once", async () => {
    const { toolset, writes } = shop({ journaled: false, replayable: false });
    const result = await order(toolset, {});
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining("declared `replayable: false`"),
    });
    expect(writes).toEqual(["tea"]);
  });

  it("fails the call rather than re-running effects past maxJournalBytes", async () => {
    const { toolset, writes } = shop({ journaled: true, payload: "x".repeat(2000) });
    const result = await order(toolset, {}, { maxJournalBytes: 1000 });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      text: expect.stringContaining("maxJournalBytes"),
    });
    expect(writes).toEqual(["tea"]);
  });

  it("carries a journal within the default bound (a 100 KB result)", async () => {
    const { toolset, writes } = shop({ journaled: true, payload: "x".repeat(100_000) });
    const result = await order(toolset, {});
    expect(result.content).toEqual([{ type: "text", text: "o-1 at 9:00" }]);
    expect(writes).toEqual(["tea"]);
  });
});

describe("the same tools over MCP 2025-11-25", () => {
  const sessions: Partial<McpHandlerOptions> = { sessions: "memory", interactionPolicy: "elicit" };

  it("asks once and writes once: nothing runs again", async () => {
    const { toolset, writes } = shop({ journaled: true });
    const result = await order(toolset, { protocol: "2025-11-25" }, sessions);
    expect(result.content).toEqual([{ type: "text", text: "o-1 at 9:00" }]);
    expect(writes).toEqual(["tea"]);
  });

  it("lets a replayable: false tool ask, since no retry runs it again", async () => {
    const { toolset, writes } = shop({ journaled: false, replayable: false });
    const result = await order(toolset, { protocol: "2025-11-25" }, sessions);
    expect(result.content).toEqual([{ type: "text", text: "o-1 at 9:00" }]);
    expect(writes).toEqual(["tea"]);
  });
});
