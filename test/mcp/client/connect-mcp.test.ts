// connectMcp against a hand-written in-memory server: the handshake, pagination, malformed
// answers, JSON-RPC and HTTP errors, option validation, deadlines, cleanup of half-open
// sessions, and calls through the returned toolset (design.md "Consuming MCP").
import * as v from "valibot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defineTool, InteractionResponse, Toolset } from "../../../src/index.ts";
import { jsonSchemaValidator } from "../../../src/json-schema/index.ts";
import { connectMcp, createMcpHandler } from "../../../src/mcp/index.ts";
import { caught } from "../../support/caught.ts";
import { createFakeMcp } from "../../support/fake-mcp-fetch.ts";

const URL_ = "https://mcp.example.test/mcp";
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  inputSchema: { type: "object" },
  ...extra,
});
const hang = (_input: RequestInfo | URL, init?: RequestInit) =>
  new Promise<Response>((_, reject) =>
    init?.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true }),
  );

describe("connectMcp: discovery", () => {
  it("fails on a cursor loop and closes the half-open session once", async () => {
    const fake = createFakeMcp({
      sessionId: "s-1",
      override: (message) =>
        message.method === "tools/list"
          ? Response.json({
              jsonrpc: "2.0",
              id: message.id,
              result: { tools: [], nextCursor: "same" },
            })
          : undefined,
    });
    const error = await caught(connectMcp({ url: URL_, fetch: fake.fetch }));
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("repeated the cursor");
    const deletes = fake.requests.filter((r) => r.method === "DELETE");
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.headers.get("mcp-session-id")).toBe("s-1");
  });

  it("reports build_cleanup when closing the failed session fails too", async () => {
    const fake = createFakeMcp({
      sessionId: "s-2",
      protocolVersion: "2024-11-05",
      deleteStatus: 500,
    });
    const error = await caught(connectMcp({ url: URL_, fetch: fake.fetch }));
    expect(error.type).toBe("build_cleanup");
    expect(error.primary?.type).toBe("protocol");
    expect(error.primary?.message).toContain("2024-11-05");
    expect(error.cleanup?.type).toBe("transport");
    expect(fake.messages("notifications/initialized")).toEqual([]);
  });

  it("skips tools/list when the server has no tools capability", async () => {
    const fake = createFakeMcp({ noToolsCapability: true, tools: [tool("x")] });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch });
    expect(await toolset.listTools()).toEqual([]);
    expect(fake.messages("tools/list")).toHaveLength(0);
  });

  it("maps JSON-RPC errors to protocol, HTTP errors and network failures to transport", async () => {
    const rpcError = createFakeMcp({
      override: (m) =>
        m.method === "initialize"
          ? Response.json({ jsonrpc: "2.0", id: m.id, error: { code: -32600, message: "nope" } })
          : undefined,
    });
    const protocol = await caught(
      connectMcp({ protocol: "2025-11-25", url: URL_, fetch: rpcError.fetch }),
    );
    expect(protocol.type).toBe("protocol");
    expect(protocol.message).toContain("nope");
    const http = createFakeMcp({ override: () => new Response("overloaded", { status: 503 }) });
    const transport = await caught(
      connectMcp({ protocol: "2025-11-25", url: URL_, fetch: http.fetch }),
    );
    expect(transport.type).toBe("transport");
    expect(transport.message).toContain("HTTP 503");
    const offline = await caught(
      connectMcp({
        protocol: "2025-11-25",
        url: URL_,
        fetch: () => Promise.reject(new TypeError("fetch failed")),
      }),
    );
    expect(offline.data).toEqual({
      type: "transport",
      tool: "initialize",
      message: "fetch failed",
    });
  });

  it("maps malformed answers to protocol errors", async () => {
    const answers: Record<string, () => Response> = {
      "not JSON": () => new Response("{oops", { headers: { "content-type": "application/json" } }),
      "no tools array": () => Response.json({ jsonrpc: "2.0", id: 2, result: { tools: 3 } }),
      "wrong content type": () =>
        new Response("hello", { headers: { "content-type": "text/plain" } }),
    };
    for (const [why, answer] of Object.entries(answers)) {
      const fake = createFakeMcp({
        override: (m) => (m.method === "tools/list" ? answer() : undefined),
      });
      const error = await caught(connectMcp({ url: URL_, fetch: fake.fetch }));
      expect(error.type, why).toBe("protocol");
    }
  });

  it("rejects a server that lists one name twice", async () => {
    const dup = createFakeMcp({ tools: [tool("x"), tool("x")] });
    const error = await caught(connectMcp({ url: URL_, fetch: dup.fetch }));
    expect(error.toJSON()).toMatchObject({ type: "duplicate_name", name: "x" });
  });

  it("offers the newest revision, adopts the server's, then sends initialized with it", async () => {
    const fake = createFakeMcp({ protocolVersion: "2025-06-18", sessionId: "s" });
    await connectMcp({ url: URL_, fetch: fake.fetch });
    expect(fake.messages("initialize")[0]?.params).toMatchObject({
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "toolwire" },
    });
    const initialized = fake.requests.find(
      (r) => (r.body as { method?: string } | undefined)?.method === "notifications/initialized",
    );
    expect(initialized?.headers.get("mcp-protocol-version")).toBe("2025-06-18");
    expect(initialized?.headers.get("mcp-session-id")).toBe("s");
    const list = fake.requests.find(
      (r) => (r.body as { method?: string } | undefined)?.method === "tools/list",
    );
    expect(list?.headers.get("mcp-session-id")).toBe("s");
  });

  it("advertises elicitation only with form interactions, sampling only with sampling ones", async () => {
    const capabilitiesWith = async (flags: Record<string, boolean>) => {
      const fake = createFakeMcp();
      await connectMcp({ url: URL_, fetch: fake.fetch, ...flags });
      const params = fake.messages("initialize")[0]?.params as { capabilities?: unknown };
      return params.capabilities;
    };
    expect(await capabilitiesWith({})).toEqual({});
    expect(await capabilitiesWith({ formInteractions: true })).toEqual({ elicitation: {} });
    expect(await capabilitiesWith({ samplingInteractions: true })).toEqual({ sampling: {} });
    expect(await capabilitiesWith({ formInteractions: true, samplingInteractions: true })).toEqual({
      elicitation: {},
      sampling: {},
    });
  });

  it("follows nextCursor across pages, in order, with the namespace applied", async () => {
    const fake = createFakeMcp({
      tools: ["a", "b", "c", "d", "e"].map((n) => tool(n)),
      pageSize: 2,
    });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch, namespace: "ns" });
    expect((await toolset.listTools()).map((t) => t.name)).toEqual([
      "ns__a",
      "ns__b",
      "ns__c",
      "ns__d",
      "ns__e",
    ]);
    expect(fake.messages("tools/list").map((m) => m.params)).toEqual([
      {},
      { cursor: "2" },
      { cursor: "4" },
    ]);
    await toolset.call("ns__c", { q: 1 });
    expect(fake.messages("tools/call")[0]?.params).toMatchObject({ name: "c" });
  });

  it("treats a null cursor as the last page and refuses a non-string one", async () => {
    const listing = (result: Record<string, unknown>) =>
      createFakeMcp({
        override: (m) =>
          m.method === "tools/list"
            ? Response.json({ jsonrpc: "2.0", id: m.id, result })
            : undefined,
      });
    const last = listing({ tools: [tool("a")], nextCursor: null });
    const toolset = await connectMcp({ url: URL_, fetch: last.fetch });
    expect((await toolset.listTools()).map((t) => t.name)).toEqual(["a"]);
    const odd = listing({ tools: [], nextCursor: 5 });
    expect((await caught(connectMcp({ url: URL_, fetch: odd.fetch }))).type).toBe("protocol");
  });

  it("lists a copy of the inventory and runs each call on its own", async () => {
    const fake = createFakeMcp({ tools: [tool("a"), tool("b")] });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch });
    const listed = await toolset.listTools();
    listed.pop();
    expect((await toolset.listTools()).map((t) => t.name)).toEqual(["a", "b"]);
    const [one, two] = await Promise.all([
      toolset.call("a", { n: 1 }),
      toolset.call("a", { n: 2 }),
    ]);
    expect([one.content, two.content]).toEqual([
      [{ type: "text", text: '{"n":1}' }],
      [{ type: "text", text: '{"n":2}' }],
    ]);
    expect((await caught(toolset.call("c", {}))).type).toBe("unknown_tool");
  });
});

describe("connectMcp: options, deadlines and cancellation", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("uses globalThis.fetch as it is at call time", async () => {
    const fake = createFakeMcp({ tools: [tool("x")] });
    vi.stubGlobal("fetch", fake.fetch);
    const toolset = await connectMcp({ url: URL_ });
    expect((await toolset.listTools()).map((t) => t.name)).toEqual(["x"]);
    expect(fake.requests.length).toBeGreaterThan(0);
  });

  it("validates options before any request", async () => {
    const fake = createFakeMcp();
    const bad = [
      { url: "/relative" },
      { url: "ftp://example.test/mcp" },
      { url: URL_, namespace: "bad space" },
      { url: URL_, namespace: "" },
      { url: URL_, requestTimeoutMs: 0 },
      { url: URL_, requestTimeoutMs: Number.NaN },
      { url: URL_, requestTimeoutMs: Number.POSITIVE_INFINITY },
      { url: URL_, headers: { "bad header": "x" } },
      { url: URL_, maxMessageBytes: 0 },
      { url: URL_, maxMessageBytes: 1.5e6 + 0.5 },
      { url: URL_, onLog: "yes" as never },
    ];
    for (const options of bad) {
      const error = await caught(connectMcp({ ...options, fetch: fake.fetch }));
      expect(error.type, JSON.stringify(options)).toBe("invalid_configuration");
    }
    expect(fake.requests).toHaveLength(0);
  });

  it("names a bad header without echoing its value, which may be a key", async () => {
    const fake = createFakeMcp();
    const headers = { "X-Trace": "1", Authorization: "Bearer sk-secret\nx" };
    const error = await caught(connectMcp({ url: URL_, headers, fetch: fake.fetch }));
    expect(error.type).toBe("invalid_configuration");
    expect(error.message).toContain('"Authorization"');
    expect(JSON.stringify(error.toJSON())).not.toContain("sk-secret");
    expect(error.cause).toBeUndefined();
  });

  it("does not echo the query of a URL it cannot parse", async () => {
    const error = await caught(connectMcp({ url: "host.test/mcp?key=sk-secret" }));
    expect(error.type).toBe("invalid_configuration");
    expect(error.message).toContain('"host.test/mcp"');
    expect(error.message).not.toContain("sk-secret");
    const userInfo = await caught(connectMcp({ url: "//bob:pw-secret@host.test/mcp" }));
    expect(userInfo.message).toContain('"host.test/mcp"');
    expect(userInfo.message).not.toContain("pw-secret");
  });

  it("fails with timeout{tool: initialize} when the server never answers", async () => {
    const error = await caught(
      connectMcp({ protocol: "2025-11-25", url: URL_, fetch: hang, requestTimeoutMs: 50 }),
    );
    expect(error.data).toEqual({ type: "timeout", tool: "initialize", timeoutMs: 50 });
  });

  it("honours the connect signal, before and during the handshake", async () => {
    const fake = createFakeMcp();
    const aborted = AbortSignal.abort("stop");
    const before = await caught(
      connectMcp({ protocol: "2025-11-25", url: URL_, fetch: fake.fetch, signal: aborted }),
    );
    expect(before.type).toBe("cancelled");
    expect(fake.requests).toHaveLength(0);
    const controller = new AbortController();
    const during = caught(
      connectMcp({ protocol: "2025-11-25", url: URL_, fetch: hang, signal: controller.signal }),
    );
    controller.abort("stop");
    expect((await during).data).toEqual({ type: "cancelled", tool: "initialize", reason: "stop" });
  });
});

describe("connectMcp: calls", () => {
  it("streams progress from an SSE answer and skips priming events", async () => {
    const fake = createFakeMcp({
      tools: [tool("work")],
      call: () => ({ progress: [1, 2], result: { content: [{ type: "text", text: "ok" }] } }),
    });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch });
    const seen: number[] = [];
    const result = await toolset.call("work", {}, { onProgress: (p) => seen.push(p.progress) });
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
    expect(seen).toEqual([1, 2]);
    const [call] = fake.messages("tools/call");
    expect(call?.params).toMatchObject({ _meta: { progressToken: call?.id } });
  });

  it("maps a call's JSON-RPC error and malformed result to protocol", async () => {
    const fake = createFakeMcp({
      tools: [tool("rpc"), tool("bad")],
      call: (name) =>
        name === "rpc"
          ? { error: { code: -32602, message: "Unknown tool" } }
          : { result: { content: "not an array" } },
    });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch });
    const rpc = await caught(toolset.call("rpc", {}));
    expect(rpc.type).toBe("protocol");
    expect(rpc.message).toContain("-32602");
    expect((await caught(toolset.call("bad", {}))).type).toBe("protocol");
  });

  it("checks structuredContent against a declared output schema with a jsonSchemaValidator", async () => {
    const outputSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    const fake = createFakeMcp({
      tools: [tool("typed", { outputSchema })],
      call: (_name, args) => ({
        result: { content: [{ type: "text", text: "x" }], structuredContent: args },
      }),
    });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch, jsonSchemaValidator });
    expect((await toolset.call("typed", { n: 1 })).structuredContent).toEqual({ n: 1 });
    const error = await caught(toolset.call("typed", { n: "one" }));
    expect(error.type).toBe("invalid_output");
    expect(error.issues?.[0]?.path).toBe("/n");
    const unchecked = await connectMcp({ url: URL_, fetch: fake.fetch });
    expect((await unchecked.call("typed", { n: "one" })).structuredContent).toEqual({ n: "one" });
  });

  it("refuses a jsonSchemaValidator that is not a function", async () => {
    const options = { url: URL_, jsonSchemaValidator: "yes" as never };
    expect((await caught(connectMcp(options))).type).toBe("invalid_configuration");
  });

  it("reports an expired session (404) as transport", async () => {
    const fake = createFakeMcp({
      sessionId: "s-3",
      tools: [tool("x")],
      override: (m) =>
        m.method === "tools/call" ? new Response(null, { status: 404 }) : undefined,
    });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch });
    const error = await caught(toolset.call("x", {}));
    expect(error.type).toBe("transport");
    expect(error.message).toContain("expired");
  });

  it("treats 405 on DELETE as closed, and a failing DELETE as one shared transport error", async () => {
    const ok = createFakeMcp({ sessionId: "s-4", deleteStatus: 405 });
    await (await connectMcp({ url: URL_, fetch: ok.fetch })).shutdown();
    const broken = createFakeMcp({ sessionId: "s-5", deleteStatus: 500 });
    const toolset = await connectMcp({ url: URL_, fetch: broken.fetch });
    const outcomes = await Promise.allSettled([toolset.shutdown(), toolset.shutdown()]);
    const [first, second] = outcomes;
    expect(first?.status).toBe("rejected");
    expect(first?.status === "rejected" && first.reason).toBe(
      second?.status === "rejected" && second.reason,
    );
    expect(broken.requests.filter((r) => r.method === "DELETE")).toHaveLength(1);
  });

  it("answers a toolwire server's text question with a string, like a local tool's", async () => {
    const greet = defineTool({
      name: "greet",
      description: "Asks for a name",
      input: v.object({}),
      interactions: { text: true },
      call: async (_input, ctx) => `Hello ${await ctx.requestText("Your name?")}`,
    });
    const handler = createMcpHandler(Toolset.local([greet]), {
      name: "greeter",
      version: "1.0.0",
      interactionPolicy: "elicit",
    });
    const url = "http://localhost/mcp";
    const toolset = await connectMcp({ url, fetch: handler.fetch, formInteractions: true });
    const kinds: unknown[] = [];
    const result = await toolset.call(
      "greet",
      {},
      {
        onInteraction: async (request) => {
          kinds.push(request.kind);
          return InteractionResponse.submit(request.id, "Ada");
        },
      },
    );
    expect(kinds).toEqual([{ type: "text", multiline: false }]);
    expect(result.content).toEqual([{ type: "text", text: "Hello Ada" }]);
    const [local] = await toolset.listTools();
    expect(local?.interactions.text).toBe(true);
    await toolset.shutdown();
  });
});

describe("connectMcp: the 2025 standalone GET stream", () => {
  // A session server that asks its question on the GET stream, not on the call's stream, and
  // answers the call once the reply to that question has arrived.
  function standaloneServer() {
    const encoder = new TextEncoder();
    let push: (data: unknown) => void = () => {};
    let replied: (value: Record<string, unknown>) => void = () => {};
    const reply = new Promise<Record<string, unknown>>((resolve) => {
      replied = resolve;
    });
    const gets: Headers[] = [];
    const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "GET") {
        gets.push(request.headers);
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            push = (data) =>
              controller.enqueue(encoder.encode(`data: ${JSON.stringify(data)}\n\n`));
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }
      if (request.method === "DELETE") return new Response(null, { status: 200 });
      const message = (await request.json()) as Record<string, unknown>;
      const json = (result: unknown) =>
        Response.json(
          { jsonrpc: "2.0", id: message.id, result },
          { headers: { "mcp-session-id": "s-9" } },
        );
      if (message.id !== undefined && message.method === undefined) {
        replied(message);
        return new Response(null, { status: 202 });
      }
      switch (message.method) {
        case "server/discover":
          return new Response("no session", { status: 400 });
        case "initialize":
          return json({
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "s", version: "1" },
          });
        case "tools/list":
          return json({ tools: [{ name: "ask", inputSchema: { type: "object" } }] });
        case "tools/call": {
          push({
            jsonrpc: "2.0",
            id: "q-1",
            method: "elicitation/create",
            params: {
              message: "Colour?",
              requestedSchema: { type: "object", properties: { c: { type: "string" } } },
            },
          });
          const answer = await reply;
          return json({ content: [{ type: "text", text: JSON.stringify(answer.result) }] });
        }
        default:
          return new Response(null, { status: 202 });
      }
    };
    return { fetch: fetchImpl as typeof fetch, gets, push: (data: unknown) => push(data), reply };
  }

  it("answers a question the server asks on the GET stream through the running call's onInteraction", async () => {
    const server = standaloneServer();
    const toolset = await connectMcp({ url: URL_, fetch: server.fetch, formInteractions: true });
    const prompts: string[] = [];
    const result = await toolset.call(
      "ask",
      {},
      {
        onInteraction: async (request) => {
          prompts.push(request.prompt);
          return InteractionResponse.submit(request.id, { c: "teal" });
        },
      },
    );
    expect(prompts).toEqual(["Colour?"]);
    expect(result.content).toEqual([
      { type: "text", text: '{"action":"accept","content":{"c":"teal"}}' },
    ]);
    expect(server.gets).toHaveLength(1);
    expect(server.gets[0]?.get("mcp-session-id")).toBe("s-9");
    expect(server.gets[0]?.get("accept")).toBe("text/event-stream");
    await toolset.shutdown();
  });

  it("answers a ping on the GET stream while no call runs", async () => {
    const server = standaloneServer();
    const toolset = await connectMcp({ url: URL_, fetch: server.fetch });
    await vi.waitFor(() => expect(server.gets).toHaveLength(1));
    server.push({ jsonrpc: "2.0", id: "p-1", method: "ping" });
    expect(await server.reply).toEqual({ jsonrpc: "2.0", id: "p-1", result: {} });
    await toolset.shutdown();
  });
});
