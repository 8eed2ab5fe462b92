// connectMcp speaking MCP 2026-07-28 against toolwire's own dual-era handler: the envelope and
// headers of every request, input_required answered through onInteraction and retried, the
// Mcp-Param mirroring, cancel by abort, the `auto` probe with its fallback and per-endpoint
// verdict, and HTTP 400/404 JSON-RPC errors as protocol errors (design.md "Consuming MCP",
// "2026-07-28").
import { describe, expect, it, vi } from "vitest";
import { InteractionResponse } from "../../../src/index.ts";
import { connectMcp } from "../../../src/mcp/index.ts";
import { caught } from "../../support/caught.ts";
import { createFakeMcp } from "../../support/fake-mcp-fetch.ts";
import { fixtureHandler } from "../server/fixture.ts";

const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const TASKS = "io.modelcontextprotocol/tasks";

interface Sent {
  method: string;
  headers: Headers;
  body: Record<string, unknown> | undefined;
}

// A fetch over a handler that records every request and its answer's status.
function recording(fetchImpl: (request: Request) => Promise<Response>) {
  const sent: Sent[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const text = request.method === "POST" ? await request.clone().text() : "";
    sent.push({
      method: request.method,
      headers: request.headers,
      body: text === "" ? undefined : JSON.parse(text),
    });
    return fetchImpl(request);
  };
  const posts = (method: string) =>
    sent.filter((entry) => entry.body?.method === method) as Array<Sent & { body: Rpc }>;
  return { sent, fetch: fetch as typeof globalThis.fetch, posts };
}

interface Rpc {
  id: number;
  method: string;
  params: Record<string, unknown> & { _meta: Record<string, unknown> };
}

const url = "http://127.0.0.1:3000/mcp";

describe("connectMcp at 2026-07-28 against toolwire's handler", () => {
  it("lists and calls with the envelope and the standard headers, no session and no DELETE", async () => {
    const { handler } = fixtureHandler();
    const wire = recording(handler.fetch);
    const toolset = await connectMcp({ url, fetch: wire.fetch, protocol: "2026-07-28" });
    const names = (await toolset.listTools()).map((tool) => tool.name);
    expect(names).toContain("echo");
    const result = await toolset.call("echo", { message: "hi" });
    expect(result.content).toEqual([{ type: "text", text: "echo: hi" }]);
    await toolset.shutdown();

    expect(wire.posts("initialize")).toEqual([]);
    // discover, tools/list at connect, again in listTools (the handler's ttlMs is 0), the call
    expect(wire.sent.map((entry) => entry.method)).toEqual(["POST", "POST", "POST", "POST"]);
    for (const { headers, body } of wire.sent) {
      const meta = (body as unknown as Rpc).params._meta;
      expect(meta[META_VERSION]).toBe("2026-07-28");
      // A call declares the Tasks extension (it takes a task handle); nothing else does.
      expect(meta[META_CAPABILITIES]).toEqual(
        body?.method === "tools/call" ? { extensions: { [TASKS]: {} } } : {},
      );
      expect(meta["io.modelcontextprotocol/clientInfo"]).toMatchObject({ name: "toolwire" });
      expect(headers.get("mcp-protocol-version")).toBe("2026-07-28");
      expect(headers.get("mcp-method")).toBe(body?.method);
      expect(headers.get("mcp-session-id")).toBeNull();
    }
    const [call] = wire.posts("tools/call");
    expect(call?.headers.get("mcp-name")).toBe("echo");
    expect(wire.posts("tools/list")[0]?.headers.get("mcp-name")).toBeNull();
  });

  it("declares form elicitation and sampling only when the caller answers them", async () => {
    const { handler } = fixtureHandler();
    const wire = recording(handler.fetch);
    const options = { url, fetch: wire.fetch, protocol: "2026-07-28" } as const;
    await connectMcp({ ...options, formInteractions: true, samplingInteractions: true });
    const [discover] = wire.posts("server/discover");
    expect(discover?.body.params._meta[META_CAPABILITIES]).toEqual({
      elicitation: { form: {} },
      sampling: {},
    });
  });

  it("answers input_required through onInteraction and retries with a new id and the state as sent", async () => {
    const { handler } = fixtureHandler({ stateSecret: "s".repeat(32) });
    const wire = recording(handler.fetch);
    const toolset = await connectMcp({
      url,
      fetch: wire.fetch,
      protocol: "2026-07-28",
      formInteractions: true,
    });
    const prompts: string[] = [];
    const result = await toolset.call(
      "two_questions",
      {},
      {
        onInteraction: async (request) => {
          prompts.push(request.prompt);
          const field = request.prompt === "Name?" ? "name" : "color";
          return InteractionResponse.submit(request.id, {
            [field]: field === "name" ? "Ada" : "teal",
          });
        },
      },
    );
    expect(prompts).toEqual(["Name?", "Colour?"]);
    expect(result.content).toEqual([{ type: "text", text: "Ada likes teal" }]);
    const calls = wire.posts("tools/call");
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(new Set(calls.map((call) => call.body.id)).size).toBe(calls.length);
    expect(calls[0]?.body.params.requestState).toBeUndefined();
    expect(calls[1]?.body.params.inputResponses).toBeDefined();
    expect(typeof calls[1]?.body.params.requestState).toBe("string");
  });

  it("echoes requestState byte for byte and keeps it out of other calls", async () => {
    const state = '{"b":1, "a":"ü"}  ';
    let round = 0;
    const fake = modernFake((rpc) => {
      if (rpc.method !== "tools/call") return undefined;
      if (rpc.params.name === "other") return { content: [], resultType: "complete" };
      round += 1;
      if (round === 1) return { resultType: "input_required", requestState: state };
      return { content: [{ type: "text", text: "done" }] };
    });
    const toolset = await connectMcp({ url, fetch: fake.fetch, protocol: "2026-07-28" });
    expect((await toolset.call("t", {})).content).toEqual([{ type: "text", text: "done" }]);
    await toolset.call("other", {});
    const calls = fake.calls.filter((rpc) => rpc.method === "tools/call");
    expect(calls[1]?.params.requestState).toBe(state);
    expect(fake.raw.some((text) => text.includes(JSON.stringify(state)))).toBe(true);
    expect(calls[2]?.params.requestState).toBeUndefined();
    expect(calls[2]?.params.inputResponses).toBeUndefined();
  });

  it("answers a sampling question from the caller's model and declines a URL question", async () => {
    const fake = modernFake((rpc) => {
      if (rpc.method !== "tools/call") return undefined;
      const answers = rpc.params.inputResponses as Record<string, unknown> | undefined;
      if (!answers) {
        return {
          resultType: "input_required",
          inputRequests: {
            model: {
              method: "sampling/createMessage",
              params: {
                messages: [{ role: "user", content: { type: "text", text: "2+2?" } }],
                maxTokens: 5,
              },
            },
            link: {
              method: "elicitation/create",
              params: { mode: "url", message: "Log in", url: "https://x.test" },
            },
          },
        };
      }
      return { content: [{ type: "text", text: JSON.stringify(answers) }], resultType: "complete" };
    });
    const toolset = await connectMcp({
      url,
      fetch: fake.fetch,
      protocol: "2026-07-28",
      samplingInteractions: true,
    });
    const result = await toolset.call(
      "t",
      {},
      {
        onInteraction: async (request) =>
          InteractionResponse.submit(request.id, {
            role: "assistant",
            content: { type: "text", text: "4" },
            model: "m",
          }),
      },
    );
    const answers = JSON.parse((result.content[0] as { text: string }).text);
    expect(answers.link).toEqual({ action: "decline" });
    expect(answers.model).toMatchObject({ role: "assistant", model: "m", content: { text: "4" } });
  });

  it("ends the call as interaction_declined when the caller declines sampling, and sampling off is -32021", async () => {
    const { handler } = fixtureHandler({ stateSecret: "s".repeat(32) });
    const on = await connectMcp({
      url,
      fetch: handler.fetch,
      protocol: "2026-07-28",
      samplingInteractions: true,
    });
    const declined = await caught(
      on.call(
        "sample",
        { prompt: "hi" },
        { onInteraction: async (request) => InteractionResponse.decline(request.id, "no model") },
      ),
    );
    expect(declined.data).toMatchObject({ type: "interaction_declined", reason: "no model" });
    const off = await connectMcp({ url, fetch: handler.fetch, protocol: "2026-07-28" });
    const refused = await caught(off.call("sample", { prompt: "hi" }));
    expect(refused.type).toBe("protocol");
    expect(refused.message).toContain("-32021");
    expect(refused.message).toContain("`samplingInteractions: true`");
  });

  it("lets the default client answer a tool that asks when the call has onInteraction (issue 30 point 4)", async () => {
    // What a new user writes: the defaults, and an answerer on the call.
    const { handler } = fixtureHandler({ stateSecret: "s".repeat(32) });
    const { fetch, posts } = recording(handler.fetch);
    const client = await connectMcp({ url, fetch });
    const result = await client.call(
      "ask_text",
      {},
      { onInteraction: async (request) => InteractionResponse.submit(request.id, "hi") },
    );
    expect(result.content).toEqual([{ type: "text", text: "got hi" }]);
    // Declared on that call's requests only: the connection's own requests still declare none.
    const calls = posts("tools/call");
    expect(calls.length).toBeGreaterThan(1);
    for (const call of calls) {
      expect(call.body.params._meta[META_CAPABILITIES]).toEqual({
        elicitation: { form: {} },
        extensions: { [TASKS]: {} },
      });
    }
    expect(posts("tools/list")[0]?.body.params._meta[META_CAPABILITIES]).toEqual({});
    const listed = (await client.listTools()).find((tool) => tool.name === "ask_text");
    expect(listed?.interactions).toMatchObject({ form: true, text: true });
    // A call without an answerer declares nothing, and the refusal names both ways out.
    const refused = await caught(client.call("ask_text", {}));
    expect(refused.message).toContain("-32021");
    expect(refused.message).toContain("`formInteractions: true`");
    expect(refused.message).toContain("`onInteraction`");
    expect(posts("tools/call").at(-1)?.body.params._meta[META_CAPABILITIES]).toEqual({
      extensions: { [TASKS]: {} },
    });
  });

  it("fails a call typed when input_required is malformed or asks what the client cannot answer", async () => {
    const answers: Record<string, Record<string, unknown>> = {
      array: { resultType: "input_required", inputRequests: [] },
      empty: { resultType: "input_required" },
      state: { resultType: "input_required", requestState: 7 },
      unknown: { resultType: "input_required", inputRequests: { k: { method: "files/read" } } },
      sampling: {
        resultType: "input_required",
        inputRequests: {
          k: { method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } },
        },
      },
    };
    const fake = modernFake((rpc) =>
      rpc.method === "tools/list"
        ? {
            ttlMs: 60_000,
            tools: Object.keys(answers).map((name) => ({ name, inputSchema: { type: "object" } })),
          }
        : rpc.method === "tools/call"
          ? answers[String(rpc.params.name)]
          : undefined,
    );
    const toolset = await connectMcp({ url, fetch: fake.fetch, protocol: "2026-07-28" });
    const types: Record<string, string> = {};
    for (const name of Object.keys(answers))
      types[name] = (await caught(toolset.call(name, {}))).type;
    expect(types).toEqual({
      array: "protocol",
      empty: "protocol",
      state: "protocol",
      unknown: "protocol",
      sampling: "interaction_declined",
    });
  });

  it("stops after ten input_required rounds, rejects an unknown resultType and a task handle without an id", async () => {
    const endless = modernFake((rpc) =>
      rpc.method === "tools/call" ? { resultType: "input_required", requestState: "x" } : undefined,
    );
    const toolset = await connectMcp({ url, fetch: endless.fetch, protocol: "2026-07-28" });
    const error = await caught(toolset.call("t", {}));
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("10 rounds");
    const odd = modernFake((rpc) =>
      rpc.method === "tools/call" ? { resultType: "task" } : undefined,
    );
    const other = await connectMcp({ url, fetch: odd.fetch, protocol: "2026-07-28" });
    expect((await caught(other.call("t", {}))).message).toContain(
      "a task handle without a `taskId`",
    );
    const unknown = modernFake((rpc) =>
      rpc.method === "tools/call" ? { resultType: "later" } : undefined,
    );
    const third = await connectMcp({ url, fetch: unknown.fetch, protocol: "2026-07-28" });
    expect((await caught(third.call("t", {}))).message).toContain('resultType "later"');
  });

  it("lists the tools again once ttlMs has passed, and not while the list is fresh", async () => {
    let ttlMs = 60_000;
    let names = ["a"];
    const fake = modernFake((rpc) =>
      rpc.method === "tools/list"
        ? { tools: names.map((name) => ({ name, inputSchema: { type: "object" } })), ttlMs }
        : undefined,
    );
    const toolset = await connectMcp({ url, fetch: fake.fetch, protocol: "2026-07-28" });
    names = ["a", "b"];
    expect((await toolset.listTools()).map((tool) => tool.name)).toEqual(["a"]);
    const lists = () => fake.calls.filter((rpc) => rpc.method === "tools/list").length;
    expect(lists()).toBe(1);

    ttlMs = 0;
    const stale = await connectMcp({ url, fetch: fake.fetch, protocol: "2026-07-28" });
    names = ["a", "b", "c"];
    expect((await stale.listTools()).map((tool) => tool.name)).toEqual(["a", "b", "c"]);
    expect((await stale.call("c", {})).isError).toBe(false);
    expect(lists()).toBe(3);
  });

  it("listens for tools/list_changed while the list is fresh, and lists again after one", async () => {
    const { handler } = fixtureHandler({ cacheHints: { ttlMs: 60_000 } });
    const wire = recording(handler.fetch);
    const toolset = await connectMcp({ url, fetch: wire.fetch, protocol: "2026-07-28" });
    await toolset.listTools();
    expect(wire.posts("tools/list")).toHaveLength(1);
    await vi.waitFor(() => expect(wire.posts("subscriptions/listen")).toHaveLength(1));
    const [listen] = wire.posts("subscriptions/listen");
    expect(listen?.body.params.notifications).toEqual({ toolsListChanged: true });
    expect(listen?.headers.get("mcp-method")).toBe("subscriptions/listen");
    // A change announced before the server registered the stream reaches no one: announce
    // until one gets through.
    await vi.waitFor(async () => {
      handler.toolsChanged();
      await toolset.listTools();
      expect(wire.posts("tools/list").length).toBeGreaterThan(1);
    });
    await toolset.shutdown();
  });

  it("mirrors x-mcp-header arguments into Mcp-Param headers, encoding what is not plain ASCII", async () => {
    const { handler } = fixtureHandler();
    const wire = recording(handler.fetch);
    const toolset = await connectMcp({ url, fetch: wire.fetch, protocol: "2026-07-28" });
    const result = await toolset.call("region", { region: "Zürich", priority: 3, note: "n" });
    expect(result.isError).toBe(false);
    await toolset.call("region", { note: "none" });
    const [first, second] = wire.posts("tools/call");
    expect(first?.headers.get("mcp-param-region")).toBe(
      `=?base64?${Buffer.from("Zürich").toString("base64")}?=`,
    );
    expect(first?.headers.get("mcp-param-priority")).toBe("3");
    expect(second?.headers.get("mcp-param-region")).toBeNull();
  });

  it("skips a tool with an invalid x-mcp-header and keeps the others", async () => {
    const fake = modernFake((rpc) =>
      rpc.method === "tools/list"
        ? {
            ttlMs: 60_000,
            tools: [
              { name: "good", inputSchema: { type: "object" } },
              {
                name: "bad",
                inputSchema: {
                  type: "object",
                  properties: { n: { type: "number", "x-mcp-header": "N" } },
                },
              },
              {
                name: "nested",
                inputSchema: {
                  type: "object",
                  properties: {
                    list: { type: "array", items: { type: "string", "x-mcp-header": "L" } },
                  },
                },
              },
            ],
          }
        : undefined,
    );
    const logs: unknown[] = [];
    const toolset = await connectMcp({
      url,
      fetch: fake.fetch,
      protocol: "2026-07-28",
      onLog: (log) => logs.push(log.data),
    });
    expect((await toolset.listTools()).map((tool) => tool.name)).toEqual(["good"]);
    expect(logs).toHaveLength(2);
  });

  it("cancels a call by aborting its request, with no cancellation notice", async () => {
    const { handler, observed } = fixtureHandler();
    const wire = recording(handler.fetch);
    const toolset = await connectMcp({ url, fetch: wire.fetch, protocol: "2026-07-28" });
    const controller = new AbortController();
    const call = caught(toolset.call("wait", {}, { signal: controller.signal }));
    await observed.started;
    controller.abort();
    expect((await call).type).toBe("cancelled");
    expect(await observed.aborted).toBeDefined();
    expect(wire.posts("notifications/cancelled")).toEqual([]);
  });

  it("reports a 400 or 404 JSON-RPC error as protocol, not as an expired session", async () => {
    const fake = modernFake((rpc) =>
      rpc.method === "tools/call"
        ? new Response(
            JSON.stringify({
              jsonrpc: "2.0",
              id: rpc.id,
              error: { code: -32601, message: "gone" },
            }),
            { status: 404, headers: { "content-type": "application/json" } },
          )
        : undefined,
    );
    const toolset = await connectMcp({ url, fetch: fake.fetch, protocol: "2026-07-28" });
    const error = await caught(toolset.call("t", {}));
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("-32601");
    expect(error.message).not.toContain("expired");
  });
});

describe("connectMcp with protocol auto", () => {
  it("stays on 2026-07-28 when server/discover answers", async () => {
    const { handler } = fixtureHandler();
    const wire = recording(handler.fetch);
    const toolset = await connectMcp({ url, fetch: wire.fetch });
    await toolset.call("echo", { message: "x" });
    expect(wire.posts("initialize")).toEqual([]);
    expect(wire.posts("tools/call")[0]?.headers.get("mcp-method")).toBe("tools/call");
  });

  it("falls back to initialize for a legacy server and remembers it for the endpoint", async () => {
    const fake = createFakeMcp({
      sessionId: "s-1",
      override: (message) =>
        message.method === "server/discover"
          ? new Response("Bad Request: no session", { status: 400 })
          : undefined,
    });
    const first = await connectMcp({ url, fetch: fake.fetch });
    await first.shutdown();
    const second = await connectMcp({ url, fetch: fake.fetch });
    await second.shutdown();
    expect(fake.messages("server/discover")).toHaveLength(1);
    expect(fake.messages("initialize")).toHaveLength(2);
    // Another endpoint is probed on its own.
    await (await connectMcp({ url: `${url}/other`, fetch: fake.fetch })).shutdown();
    expect(fake.messages("server/discover")).toHaveLength(2);
  });

  // Issue 22 item 1: the conformance suite's 2025-11-25 servers, and hand-written servers, answer
  // every method they do not know with an empty result; that is no 2026 server without tools.
  it("takes a server that answers server/discover with {} for a 2025 one and lists its tools", async () => {
    const fake = createFakeMcp({
      sessionId: "s-empty",
      protocolVersion: "2025-11-25",
      tools: [{ name: "t", inputSchema: { type: "object" } }],
      override: (message) =>
        ["initialize", "tools/list", "tools/call"].includes(String(message.method)) ||
        message.id === undefined
          ? undefined
          : Response.json({ jsonrpc: "2.0", id: message.id, result: {} }),
    });
    const logs: unknown[] = [];
    const toolset = await connectMcp({
      url: `${url}/empty`,
      fetch: fake.fetch,
      onLog: (log) => logs.push(log),
    });
    expect((await toolset.listTools()).map((tool) => tool.name)).toEqual(["t"]);
    expect((await toolset.call("t", { a: 1 })).content).toEqual([
      { type: "text", text: '{"a":1}' },
    ]);
    await toolset.shutdown();
    expect(fake.messages("server/discover")).toHaveLength(1);
    expect(fake.messages("initialize")).toHaveLength(1);
    expect(logs).toEqual([]);
  });

  it("takes a discover result without 2026-07-28 in supportedVersions for a 2025 server", async () => {
    const answers = [
      { supportedVersions: ["2025-11-25"], capabilities: { tools: {} } },
      { supportedVersions: "2026-07-28", capabilities: { tools: {} } },
      { supportedVersions: ["2026-07-28"] },
    ];
    for (const [i, result] of answers.entries()) {
      const fake = createFakeMcp({
        tools: [{ name: "t", inputSchema: { type: "object" } }],
        override: (message) =>
          message.method === "server/discover"
            ? Response.json({ jsonrpc: "2.0", id: message.id, result })
            : undefined,
      });
      const toolset = await connectMcp({ url: `${url}/odd-${i}`, fetch: fake.fetch });
      expect((await toolset.listTools()).map((tool) => tool.name)).toEqual(["t"]);
      expect(fake.messages("initialize")).toHaveLength(1);
    }
  });

  it("fails a connection pinned to 2026-07-28 whose server/discover answer is {}", async () => {
    const fake = createFakeMcp({
      override: (message) =>
        message.method === "server/discover"
          ? Response.json({ jsonrpc: "2.0", id: message.id, result: {} })
          : undefined,
    });
    const error = await caught(connectMcp({ url, fetch: fake.fetch, protocol: "2026-07-28" }));
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("supportedVersions");
    expect(fake.messages("tools/list")).toEqual([]);
  });

  it("says so through onLog when the server declares no tools capability", async () => {
    const fake = modernFake((rpc) =>
      rpc.method === "server/discover"
        ? { supportedVersions: ["2026-07-28"], capabilities: {} }
        : undefined,
    );
    const logs: Array<{ data: unknown }> = [];
    const toolset = await connectMcp({
      url: `${url}/no-tools`,
      fetch: fake.fetch,
      onLog: (log) => logs.push(log),
    });
    expect(await toolset.listTools()).toEqual([]);
    expect(logs).toMatchObject([
      { level: "warning", data: { message: expect.stringContaining("no `tools` capability") } },
    ]);
  });

  it("sends server/discover once more when -32022 still lists 2026-07-28", async () => {
    let refused = false;
    const fake = modernFake((rpc) => {
      if (rpc.method !== "server/discover" || refused) return undefined;
      refused = true;
      const error = { code: -32022, message: "try again", data: { supported: ["2026-07-28"] } };
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: rpc.id, error }), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    });
    const toolset = await connectMcp({ url: `${url}/retry`, fetch: fake.fetch });
    expect((await toolset.listTools()).map((tool) => tool.name)).toEqual(["other", "t"]);
    expect(fake.calls.filter((rpc) => rpc.method === "server/discover")).toHaveLength(2);
    expect(fake.calls.some((rpc) => rpc.method === "initialize")).toBe(false);
  });

  it("does not fall back on a 2026 refusal, an auth failure or a server error", async () => {
    const status = (code: number, body: unknown) => () =>
      new Response(JSON.stringify(body), {
        status: code,
        headers: { "content-type": "application/json" },
      });
    const cases = [
      status(400, { jsonrpc: "2.0", id: 1, error: { code: -32020, message: "header" } }),
      status(401, { error: "unauthorized" }),
      status(503, { error: "down" }),
    ];
    for (const answer of cases) {
      const fake = createFakeMcp({
        override: (m) => (m.method === "server/discover" ? answer() : undefined),
      });
      const error = await caught(connectMcp({ url, fetch: fake.fetch }));
      expect(["protocol", "transport"]).toContain(error.type);
      expect(fake.messages("initialize")).toEqual([]);
    }
  });
});

// A minimal 2026-07-28 server: discover offers tools, tools/list one tool `t` (and `other`),
// and `answer` decides the rest (a result object or a whole Response).
function modernFake(answer: (rpc: Rpc) => Record<string, unknown> | Response | undefined) {
  const calls: Rpc[] = [];
  const raw: string[] = [];
  const fetch = async (_input: RequestInfo | URL, init?: RequestInit) => {
    const text = String(init?.body);
    raw.push(text);
    const rpc = JSON.parse(text) as Rpc;
    calls.push(rpc);
    const given = answer(rpc);
    if (given instanceof Response) return given;
    const fallback =
      rpc.method === "server/discover"
        ? { supportedVersions: ["2026-07-28"], capabilities: { tools: {} } }
        : rpc.method === "tools/list"
          ? {
              tools: [
                { name: "t", inputSchema: { type: "object" } },
                { name: "other", inputSchema: { type: "object" } },
              ],
            }
          : { content: [] };
    const result = { resultType: "complete", ...(given ?? fallback) };
    return Response.json({ jsonrpc: "2.0", id: rpc.id, result });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls, raw };
}
