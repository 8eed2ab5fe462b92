import { describe, expect, it } from "vitest";
import { ToolError, Toolset } from "../../../src/index.ts";
import { connectMcp, createMcpHandler, type McpErrorContext } from "../../../src/mcp/index.ts";
import { CLIENT_HEADERS, fixtureHandler, post, rpc, sseMessages } from "./fixture.ts";

// One `tools/call` from the parsed request to its answer: results, progress, cancellation, the
// in-flight cap, and how failures are answered without passing a backend's detail on
// (docs/design.md S6, S9, S10).

const call = (id: number, name: string, args: unknown, meta?: Record<string, unknown>) =>
  rpc(id, "tools/call", meta ? { name, arguments: args, _meta: meta } : { name, arguments: args });

describe("callTool", () => {
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
    // A caller with an identity: an anonymous one's notification could be anyone's (callers.test.ts).
    const { handler, observed } = fixtureHandler({ authorize: () => ({ subject: "alice" }) });
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

// A toolset whose every call fails with `error`, as a backend (a remote server, a database) can.
function failingWith(error: unknown): Toolset {
  const toolset = Toolset.local([]);
  toolset.call = () => Promise.reject(error);
  return toolset;
}

async function answerTo(error: unknown, seen: [unknown, McpErrorContext][] = []) {
  const handler = createMcpHandler(failingWith(error), {
    name: "t",
    version: "1",
    onError: (e, context) => seen.push([e, context]),
  });
  return (await handler.fetch(post(call(1, "any", {})))).json();
}

describe("answering a failed call", () => {
  it("answers a shut-down toolset with -32603", async () => {
    const body = await answerTo(new ToolError({ type: "closed", operation: "tools/call" }));
    expect(body.error).toEqual({
      code: -32603,
      message: "The server's toolset has shut down",
      data: { type: "closed" },
    });
  });

  it("lists every issue of invalid arguments, an empty path as `/` (SEP-1303)", async () => {
    const error = new ToolError({
      type: "invalid_arguments",
      tool: "add",
      message: "bad",
      issues: [
        { path: "/a", message: "expected number" },
        { path: "", message: "extra key" },
      ],
    });
    const body = await answerTo(error);
    expect(body.result).toEqual({
      content: [
        {
          type: "text",
          text: "Invalid arguments for tool add:\n- /a: expected number\n- /: extra key",
        },
      ],
      isError: true,
      _meta: { "toolwire/error": error.toJSON() },
    });
  });

  it("shows a failure that describes the call itself with its message and JSON shape", async () => {
    const error = new ToolError({ type: "interaction_declined", tool: "ask", reason: "no" });
    const body = await answerTo(error);
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toBe(error.message);
    expect(body.result._meta["toolwire/error"]).toEqual(error.toJSON());
  });

  it("withholds a backend's transport or protocol detail, and hands it to onError", async () => {
    for (const error of [
      new ToolError({
        type: "transport",
        message: "GET https://up.example/mcp?key=SECRET: 502 SECRET",
      }),
      new ToolError({ type: "protocol", message: "upstream said SECRET" }),
      new ToolError({ type: "invalid_configuration", message: "SECRET in config" }),
    ]) {
      const seen: [unknown, McpErrorContext][] = [];
      const body = await answerTo(error, seen);
      expect(JSON.stringify(body)).not.toMatch(/SECRET|up\.example/);
      expect(body.result).toEqual({
        content: [{ type: "text", text: `Tool any failed: internal error (${error.type})` }],
        isError: true,
        _meta: { "toolwire/error": { type: error.type } },
      });
      expect(seen.map(([e, context]) => [e, context.phase])).toEqual([[error, "tool"]]);
    }
  });

  it("withholds what a backend threw that is not a ToolError", async () => {
    const seen: [unknown, McpErrorContext][] = [];
    const thrown = new Error("socket to 10.0.0.7 closed");
    const body = await answerTo(thrown, seen);
    expect(body.result).toEqual({
      content: [{ type: "text", text: "Tool any failed: internal error" }],
      isError: true,
    });
    expect(seen.map(([e]) => e)).toEqual([thrown]);
  });
});

describe("a gateway: serving a connectMcp toolset", () => {
  it("passes the upstream's results on, and none of its failure's detail", async () => {
    const { handler: upstream } = fixtureHandler();
    const secret = "sk-upstream-7f3a9c";
    let broken = false;
    const remote = await connectMcp({
      url: `http://127.0.0.1:3000/mcp?key=${secret}`,
      headers: { authorization: `Bearer ${secret}` },
      fetch: async (input, init) => {
        if (broken) throw new TypeError(`fetch failed: http://127.0.0.1:3000/mcp?key=${secret}`);
        const response = await upstream.fetch(input, init);
        return response;
      },
    });
    const seen: unknown[] = [];
    const gateway = createMcpHandler(remote, {
      name: "gateway",
      version: "1",
      onError: (error) => seen.push(error),
    });
    const ok = await (await gateway.fetch(post(call(1, "echo", { message: "hi" })))).json();
    expect(ok.result.content[0].text).toBe("echo: hi");
    const failed = await (await gateway.fetch(post(call(2, "fail", {})))).json();
    expect(failed.result).toMatchObject({ content: [{ text: "boom" }], isError: true });
    broken = true;
    const response = await gateway.fetch(post(call(3, "echo", { message: "hi" })));
    const text = await response.text();
    expect(text).not.toContain(secret);
    expect(text).not.toContain("fetch failed");
    expect(JSON.parse(text).result.isError).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    broken = false;
    await remote.shutdown();
  });
});

describe("the in-flight cap", () => {
  it("answers a call beyond maxInFlightCalls with -32000 while the running one carries on", async () => {
    const { handler, observed } = fixtureHandler({ maxInFlightCalls: 1 });
    const stop = new AbortController();
    const running = handler.fetch(new Request(post(call(1, "wait", {})), { signal: stop.signal }));
    await observed.started;
    const refused = await (await handler.fetch(post(call(2, "echo", { message: "x" })))).json();
    expect(refused).toMatchObject({ id: 2, error: { code: -32000 } });
    expect(refused.error.message).toContain("limit is 1");
    expect(await (await handler.fetch(post(rpc(3, "ping")))).json()).toMatchObject({ id: 3 });
    stop.abort();
    await running;
    await observed.aborted;
    const after = await (await handler.fetch(post(call(4, "echo", { message: "y" })))).json();
    expect(after.result.content[0].text).toBe("echo: y");
  });

  it("counts per session in memory mode, so one session at its cap does not stop another", async () => {
    const { handler, observed } = fixtureHandler({ sessions: "memory", maxInFlightCalls: 1 });
    const open = async () => {
      const init = await handler.fetch(
        post(rpc(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {} })),
      );
      return { "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
    };
    const busy = await open();
    const other = await open();
    const running = handler.fetch(post(call(1, "wait", {}), busy));
    await observed.started;
    const refused = await (
      await handler.fetch(post(call(2, "echo", { message: "x" }), busy))
    ).json();
    expect(refused.error.code).toBe(-32000);
    const fine = await (await handler.fetch(post(call(2, "echo", { message: "x" }), other))).json();
    expect(fine.result.content[0].text).toBe("echo: x");
    await handler.fetch(
      new Request("http://127.0.0.1:3000/mcp", {
        method: "DELETE",
        headers: { ...CLIENT_HEADERS, ...busy },
      }),
    );
    await (await running).text();
  });

  it("refuses a limit that is not a positive integer", () => {
    expect(() => fixtureHandler({ maxInFlightCalls: 0 })).toThrow(/maxInFlightCalls/);
  });
});
