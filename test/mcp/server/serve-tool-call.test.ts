import { describe, expect, it } from "vitest";
import { fixtureHandler, post, rpc, sseMessages } from "./fixture.ts";

const call = (id: number, name: string, args: unknown, meta?: Record<string, unknown>) =>
  rpc(id, "tools/call", meta ? { name, arguments: args, _meta: meta } : { name, arguments: args });

describe("serveToolCall", () => {
  it("answers a plain call with JSON", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(post(call(1, "echo", { message: "hi" })));
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "echo: hi" }], isError: false },
    });
  });

  it("passes structuredContent through", async () => {
    const { handler } = fixtureHandler();
    const body = await (await handler.fetch(post(call(1, "add", { a: 2, b: 3 })))).json();
    expect(body.result.structuredContent).toEqual({ sum: 5 });
    expect(body.result.isError).toBe(false);
  });

  it("keeps a tool's isError result a result", async () => {
    const { handler } = fixtureHandler();
    const body = await (await handler.fetch(post(call(1, "fail", {})))).json();
    expect(body.result).toEqual({ content: [{ type: "text", text: "boom" }], isError: true });
  });

  it("turns a thrown error into an isError result with its message", async () => {
    const { handler } = fixtureHandler();
    const body = await (await handler.fetch(post(call(1, "throws", {})))).json();
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toContain("kaput");
  });

  it("reports invalid arguments as an isError result naming each issue (SEP-1303)", async () => {
    const { handler } = fixtureHandler();
    const body = await (await handler.fetch(post(call(1, "add", { a: "two" })))).json();
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toMatch(/Invalid arguments for tool add:\n- \/a: /);
    expect(body.result.content[0].text).toContain("/b");
    expect(body.result._meta["toolwire/error"]).toMatchObject({
      type: "invalid_arguments",
      tool: "add",
    });
  });

  it("refuses an unknown tool with -32602", async () => {
    const { handler } = fixtureHandler();
    const body = await (await handler.fetch(post(call(4, "nope", {})))).json();
    expect(body).toMatchObject({ id: 4, error: { code: -32602, message: "Unknown tool: nope" } });
  });

  it("refuses a missing name or non-object arguments with -32602", async () => {
    const { handler } = fixtureHandler();
    const noName = await (await handler.fetch(post(rpc(1, "tools/call", {})))).json();
    expect(noName.error.code).toBe(-32602);
    const list = await (await handler.fetch(post(call(2, "echo", [1])))).json();
    expect(list.error.code).toBe(-32602);
  });

  it("streams progress as SSE when the request carries a progress token", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(
      post(call(9, "slow", { steps: 3 }, { progressToken: "p" })),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const messages = await sseMessages(response);
    expect(messages.slice(0, 3)).toEqual(
      [1, 2, 3].map((i) => ({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p", progress: i, total: 3, message: `step ${i}` },
      })),
    );
    expect(messages[3]).toMatchObject({ id: 9, result: { content: [{ text: "done" }] } });
  });

  it("answers with JSON when the tool reports progress but no token was sent", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(post(call(9, "slow", { steps: 2 })));
    expect(response.headers.get("content-type")).toBe("application/json");
  });

  it("aborts the tool's ctx.signal on notifications/cancelled and sends no response", async () => {
    const { handler, observed } = fixtureHandler();
    const pending = handler.fetch(post(call(5, "wait", {}, { progressToken: 1 })));
    await observed.started;
    const note = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 5, reason: "stop" },
    };
    expect((await handler.fetch(post(note))).status).toBe(202);
    expect(String(await observed.aborted)).toContain("stop");
    const response = await pending;
    const body = await response.text();
    if (response.headers.get("content-type") === "application/json") {
      expect(JSON.parse(body)).toMatchObject({ id: 5, error: { code: -32800 } });
    } else {
      expect(body).toBe("");
    }
  });

  it("rejects a question under the default `reject` policy with an isError result", async () => {
    const { handler } = fixtureHandler();
    const body = await (await handler.fetch(post(call(1, "ask", {})))).json();
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toMatch(
      /`ask` asked for input.*interactionPolicy `reject`/,
    );
    expect(body.result._meta["toolwire/error"]).toMatchObject({ type: "unsupported" });
    const text = await (await handler.fetch(post(call(2, "ask_text", {})))).json();
    expect(text.result.isError).toBe(true);
    expect(text.result.content[0].text).toContain("asked for input");
  });
});
