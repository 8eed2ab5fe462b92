import { describe, expect, it } from "vitest";
import { jsonSchemaValidator } from "../../../src/json-schema/index.ts";
import { McpSession } from "../../../src/mcp/client/mcp-session.ts";
import { RemoteHandler } from "../../../src/mcp/client/remote-handler.ts";
import {
  createRemoteCallPlan,
  type RemoteTool,
  toolFromMcp,
} from "../../../src/mcp/client/remote-tool.ts";
import { caught } from "../../support/caught.ts";

const URL_ = "http://x.test/mcp";
const schema = { type: "object", properties: { n: { type: "number" } } };
type Body = Record<string, unknown>;
const handlerOn = (
  answer: (body: Body) => Response,
  formInteractions = false,
): { handler: RemoteHandler; posted: Body[] } => {
  const posted: Body[] = [];
  const fetchImpl = (async (_: unknown, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Body;
    posted.push(body);
    return answer(body);
  }) as typeof fetch;
  const origin = "http://x.test/mcp";
  const options = { origin, trusted: false, formInteractions };
  const tool = toolFromMcp({ name: "t", inputSchema: schema }, options) as RemoteTool;
  const plan = createRemoteCallPlan(tool, {
    timeoutMs: 5000,
    formInteractions,
    jsonSchemaValidator,
  });
  return {
    handler: new RemoteHandler(new McpSession(URL_, new Headers(), fetchImpl), plan),
    posted,
  };
};
const result = (id: unknown, text = "ok") =>
  Response.json({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });
const stream = (...messages: unknown[]) =>
  new Response(messages.map((m) => `data: ${JSON.stringify(m)}\n\n`).join(""), {
    headers: { "content-type": "text/event-stream" },
  });
const accepted = () => new Response(null, { status: 202 });

describe("RemoteHandler", () => {
  it("calls the native name with a progress token and completes once", async () => {
    const { handler, posted } = handlerOn((body) => result(body.id));
    const output = await handler.step({ type: "invoke", arguments: { n: 1 } });
    expect(output).toEqual({
      type: "completed",
      result: { content: [{ type: "text", text: "ok" }], isError: false },
    });
    expect(posted[0]).toMatchObject({
      method: "tools/call",
      params: { name: "t", arguments: { n: 1 }, _meta: { progressToken: posted[0]?.id } },
    });
    expect((await caught(handler.step({ type: "invoke", arguments: {} }))).type).toBe(
      "unsupported",
    );
  });

  it("fails the call with the server's id-null error when its response never comes", async () => {
    const { handler } = handlerOn(() =>
      stream({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: bad" } }),
    );
    const error = await caught(handler.step({ type: "invoke", arguments: { n: 1 } }));
    expect(error.data).toEqual({
      type: "protocol",
      message: "tools/call failed: Parse error: bad (JSON-RPC error -32700 with id null)",
    });
    expect((await caught(handler.step({ type: "invoke", arguments: {} }))).type).toBe(
      "unsupported",
    );
  });

  it("refuses invalid arguments without sending anything, and is then finished", async () => {
    const { handler, posted } = handlerOn((body) => result(body.id));
    expect((await caught(handler.step({ type: "invoke", arguments: { n: "x" } }))).type).toBe(
      "invalid_arguments",
    );
    expect(posted).toEqual([]);
    expect((await caught(handler.step({ type: "invoke", arguments: { n: 1 } }))).type).toBe(
      "unsupported",
    );
  });

  it("forwards progress and logs, answers a server ping, and declines elicitation without forms", async () => {
    const { handler, posted } = handlerOn((body) => {
      if (body.method !== "tools/call") return accepted();
      const token = (body.params as { _meta: { progressToken: number } })._meta.progressToken;
      return stream(
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 2 },
        },
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: "other", progress: 9 },
        },
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } },
        { jsonrpc: "2.0", id: "p", method: "ping" },
        {
          jsonrpc: "2.0",
          id: "e",
          method: "elicitation/create",
          params: { message: "?", requestedSchema: {} },
        },
        { jsonrpc: "2.0", id: body.id, result: { content: [] } },
      );
    });
    const progress: unknown[] = [];
    const logs: unknown[] = [];
    await handler.step(
      { type: "invoke", arguments: {} },
      { onProgress: (p) => progress.push(p), onLog: (l) => logs.push(l) },
    );
    expect(progress).toEqual([{ progress: 1, total: 2 }]);
    expect(logs).toEqual([{ level: "info", data: "hi" }]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const replies = posted.filter((body) => !("method" in body));
    expect(replies).toEqual(
      expect.arrayContaining([
        { jsonrpc: "2.0", id: "p", result: {} },
        { jsonrpc: "2.0", id: "e", result: { action: "decline" } },
      ]),
    );
  });

  it("cancels with a cancel step: the call fails cancelled and the server is told", async () => {
    let release: (response: Response) => void = () => {};
    const { handler, posted } = handlerOn((body) =>
      body.method === "tools/call"
        ? (new Promise<Response>((resolve) => {
            release = resolve;
          }) as unknown as Response)
        : accepted(),
    );
    const running = caught(handler.step({ type: "invoke", arguments: {} }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    const cancel = await caught(handler.step({ type: "cancel", reason: "enough" }));
    expect(cancel.toJSON()).toMatchObject({ type: "cancelled", reason: "enough" });
    expect((await running).type).toBe("cancelled");
    release(result(1));
    expect(posted.at(-1)).toMatchObject({
      method: "notifications/cancelled",
      params: { requestId: posted[0]?.id, reason: "enough" },
    });
  });

  it("fails an interaction step when nothing is pending", async () => {
    const { handler } = handlerOn((body) => result(body.id));
    const error = await caught(
      handler.step({ type: "interaction", response: { type: "decline", id: "x" } }),
    );
    expect(error.type).toBe("invalid_interaction");
  });
  it("drops progress that arrives between steps instead of reaching the last step's listener", async () => {
    const { handler } = handlerOn((body) => {
      if (body.method !== "tools/call") return accepted();
      const token = (body.params as { _meta: { progressToken: number } })._meta.progressToken;
      const events = [
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 1 },
        },
        {
          jsonrpc: "2.0",
          id: "e",
          method: "elicitation/create",
          params: { message: "Name?", requestedSchema: { type: "object", properties: {} } },
        },
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 2 },
        },
      ];
      // The stream stays open: the call waits on the answer.
      const body_ = new ReadableStream<Uint8Array>({
        start(controller) {
          const encoder = new TextEncoder();
          for (const event of events)
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`));
        },
      });
      return new Response(body_, { headers: { "content-type": "text/event-stream" } });
    }, true);
    const first: unknown[] = [];
    const output = await handler.step(
      { type: "invoke", arguments: {} },
      { onProgress: (p) => first.push(p) },
    );
    expect(output.type).toBe("interaction");
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    expect(first).toEqual([{ progress: 1 }]);
    await caught(handler.step({ type: "cancel" }));
  });
});
