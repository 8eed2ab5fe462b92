// The client's trust boundary (design.md "Consuming MCP", M1-M4): remote tools fail closed
// unless trusted, names MCP allows are kept and others skipped without failing the connection,
// every read is capped, and nothing the client sent as a credential comes back out.
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent } from "../../../src/agent/index.ts";
import { capabilitiesAssumed } from "../../../src/declaration/tool-info.ts";
import {
  InteractionResponse,
  isReadOnly,
  isToolError,
  type ToolInteractionRequest,
  type ToolLog,
} from "../../../src/index.ts";
import { connectMcp } from "../../../src/mcp/index.ts";
import { scriptedModel } from "../../../src/models/index.ts";
import { caught } from "../../support/caught.ts";
import { createFakeMcp } from "../../support/fake-mcp-fetch.ts";

const URL_ = "https://mcp.example.test/mcp";
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  inputSchema: { type: "object" },
  ...extra,
});
const readOnly = tool("lookup", {
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
});

describe("remote tools fail closed", () => {
  it("without trustAnnotations: not read-only, every capability assumed, source named", async () => {
    const fake = createFakeMcp({ tools: [readOnly] });
    const url = "https://mcp.example.test/mcp?key=abcd1234#frag";
    const toolset = await connectMcp({ url, fetch: fake.fetch });
    const [info] = await toolset.listTools();
    expect(info?.annotations.readOnlyHint).toBe(true);
    expect(info && isReadOnly(info)).toBe(false);
    expect(info && capabilitiesAssumed(info)).toBe(true);
    expect(info?.source).toEqual({ type: "mcp", origin: URL_, trusted: false });
    expect(info?.capabilities).toEqual({
      privateData: true,
      untrustedInput: true,
      externalSend: true,
      destructive: true,
    });
  });

  it("with trustAnnotations: true, the hints are believed", async () => {
    const fake = createFakeMcp({ tools: [readOnly, tool("plain")] });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch, trustAnnotations: true });
    const [lookup, plain] = await toolset.listTools();
    expect(lookup && isReadOnly(lookup)).toBe(true);
    expect(lookup?.source?.trusted).toBe(true);
    expect(lookup?.capabilities).toMatchObject({ externalSend: false, destructive: false });
    // Missing hints take MCP's defaults: writing, destructive, open world.
    expect(plain && isReadOnly(plain)).toBe(false);
    expect(plain?.capabilities).toMatchObject({ externalSend: true, destructive: true });
  });
});

describe("remote tool names", () => {
  it("keeps a dotted name and calls the server by it", async () => {
    const fake = createFakeMcp({ tools: [tool("repo.search"), tool("other")] });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch });
    expect((await toolset.listTools()).map((t) => t.name)).toEqual(["other", "repo.search"]);
    await toolset.call("repo.search", { q: "x" });
    expect(fake.messages("tools/call")[0]?.params).toMatchObject({ name: "repo.search" });
  });

  it("skips a tool it cannot represent, with a logged reason, and keeps the rest", async () => {
    const fake = createFakeMcp({
      tools: [tool("has space"), tool("a".repeat(129)), { name: "noschema" }, tool("fine")],
    });
    const logs: ToolLog[] = [];
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch, onLog: (l) => logs.push(l) });
    expect((await toolset.listTools()).map((t) => t.name)).toEqual(["fine"]);
    expect(logs.map((l) => [l.level, l.logger, (l.data as { tool?: string }).tool])).toEqual([
      ["warning", "toolwire/mcp", "has space"],
      ["warning", "toolwire/mcp", "a".repeat(129)],
      ["warning", "toolwire/mcp", "noschema"],
    ]);
    expect(JSON.stringify(logs[0]?.data)).toContain("1-128 characters");
  });

  it("is not stopped by a listener that throws", async () => {
    const fake = createFakeMcp({ tools: [tool("has space"), tool("fine")] });
    const onLog = () => {
      throw new Error("listener bug");
    };
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch, onLog });
    expect((await toolset.listTools()).map((t) => t.name)).toEqual(["fine"]);
  });
});

// A body of `total` bytes made of `unit`, produced as it is read; `pulled` counts what was.
function generated(prefix: string, unit: string, total = Number.POSITIVE_INFINITY) {
  const chunk = new TextEncoder().encode(unit.repeat(Math.ceil(65_536 / unit.length)));
  const state = { pulled: 0, cancelled: false };
  let first = true;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= total) return controller.close();
      const piece = first ? new TextEncoder().encode(prefix) : chunk;
      first = false;
      state.pulled += piece.byteLength;
      controller.enqueue(piece);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

describe("bounded reads", () => {
  const flood = (answers: Record<string, () => Response>) =>
    createFakeMcp({
      tools: [tool("ok"), ...Object.keys(answers).map((name) => tool(name))],
      override: (message) => {
        const name = (message.params as { name?: string } | undefined)?.name;
        return message.method === "tools/call" && name && name in answers
          ? answers[name]?.()
          : undefined;
      },
    });

  it("fails a body over the default 4 MiB cap as transport; other calls are unaffected", async () => {
    const sse = { "content-type": "text/event-stream" };
    const json = { "content-type": "application/json" };
    const seen: Record<string, { pulled: number; cancelled: boolean }> = {};
    const make =
      (name: string, type: Record<string, string>, prefix: string, unit: string) => () => {
        const { body, state } = generated(prefix, unit);
        seen[name] = state;
        return new Response(body, { headers: type });
      };
    const fake = flood({
      json_body: make("json_body", json, '{"jsonrpc":"2.0","id":2,"result":{"p":"', "x"),
      sse_line: make("sse_line", sse, "data: ", "y"),
      sse_event: make("sse_event", sse, "", "data: z\n"),
    });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch });
    for (const [name, which] of [
      ["json_body", "response body is larger than maxMessageBytes (4194304 bytes)"],
      ["sse_line", "server-sent event line exceeded 4194304 characters"],
      ["sse_event", "server-sent event exceeded 4194304 characters"],
    ] as const) {
      const error = await caught(toolset.call(name, {}));
      expect(error.type, name).toBe("transport");
      expect(error.message).toContain(which);
      expect(seen[name]?.cancelled, name).toBe(true);
      expect(seen[name]?.pulled).toBeLessThan(5 * 1024 * 1024);
      expect((await toolset.call("ok", { n: 1 })).content).toEqual([
        { type: "text", text: '{"n":1}' },
      ]);
    }
  });

  it("honours a smaller maxMessageBytes and refuses a declared length over it unread", async () => {
    let pulled = 0;
    const fake = flood({
      declared: () => {
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled += 1;
            controller.enqueue(new Uint8Array(1024));
          },
        });
        return new Response(body, {
          headers: { "content-type": "application/json", "content-length": "999999" },
        });
      },
    });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch, maxMessageBytes: 4096 });
    const error = await caught(toolset.call("declared", {}));
    expect(error.message).toContain("larger than maxMessageBytes (4096 bytes)");
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it("reads an error body only as far as the excerpt it shows", async () => {
    let state = { pulled: 0, cancelled: false };
    const fake = flood({
      failing: () => {
        const made = generated("upstream exploded: ", "e");
        state = made.state;
        return new Response(made.body, { status: 500 });
      },
    });
    const toolset = await connectMcp({ url: URL_, fetch: fake.fetch });
    const error = await caught(toolset.call("failing", {}));
    expect(error.type).toBe("transport");
    expect(error.message).toContain("HTTP 500: upstream exploded: eee");
    expect(error.message.length).toBeLessThan(300);
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(200_000);
  });
});

describe("no secrets out", () => {
  const HEADER_SECRET = "sk-header-secret-1234";
  const KEY_SECRET = "key-secret-5678";
  const QUERY_SECRET = "query-secret-9012";
  const SECRETS = [HEADER_SECRET, KEY_SECRET, QUERY_SECRET];
  const url = `https://mcp.example.test/mcp?token=${QUERY_SECRET}`;
  const headers = { authorization: `Bearer ${HEADER_SECRET}`, "x-api-key": KEY_SECRET };

  it("scrubs every error, log line, progress message and question the server echoes them in", async () => {
    // The server echoes everything it was sent: URL, every header value.
    let echo = "";
    const rpc = (id: unknown, body: Record<string, unknown>) =>
      Response.json({ jsonrpc: "2.0", id, ...body });
    const stream = (...messages: unknown[]) =>
      new Response(messages.map((m) => `data: ${JSON.stringify(m)}\n\n`).join(""), {
        headers: { "content-type": "text/event-stream" },
      });
    const cases: Record<string, (id: unknown, token: unknown) => Response | Promise<Response>> = {
      http_500: () => new Response(`bad request from ${echo}`, { status: 500 }),
      http_401: () => new Response(`denied ${echo}`, { status: 401 }),
      rpc_error: (id) => rpc(id, { error: { code: -32000, message: `failed for ${echo}` } }),
      bad_json: () =>
        new Response(`{not json ${echo}`, { headers: { "content-type": "application/json" } }),
      redirect: () =>
        new Response(null, {
          status: 302,
          headers: { location: `https://evil.test/${HEADER_SECRET}?t=${QUERY_SECRET}` },
        }),
      network: () => Promise.reject(new TypeError(`error sending request for url (${url})`)),
      chatty: (_id, token) =>
        stream(
          {
            jsonrpc: "2.0",
            method: "notifications/message",
            params: { level: "error", data: { seen: echo, list: [echo] }, logger: echo },
          },
          {
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: token, progress: 1, message: `at ${echo}` },
          },
          {
            jsonrpc: "2.0",
            id: "q1",
            method: "elicitation/create",
            params: { message: `confirm ${echo}`, requestedSchema: { type: "object" } },
          },
        ),
    };
    const fake = createFakeMcp({
      tools: [...Object.keys(cases).map((name) => tool(name)), tool("ok")],
      override: (message, request) => {
        echo = `${request.url} ${[...request.headers].map(([k, v]) => `${k}=${v}`).join(" ")}`;
        const params = (message.params ?? {}) as {
          name?: string;
          _meta?: { progressToken?: unknown };
        };
        const answer =
          message.method === "tools/call" && params.name ? cases[params.name] : undefined;
        return answer?.(message.id, params._meta?.progressToken) as Response | undefined;
      },
    });
    const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const body = typeof init?.body === "string" ? init.body : "";
      if (body.includes('"name":"network"')) return cases.network?.(0, 0);
      return fake.fetch(input, init);
    }) as typeof fetch;
    const toolset = await connectMcp({ url, headers, fetch: fetchImpl, formInteractions: true });
    const shown: unknown[] = [];
    const questions: ToolInteractionRequest[] = [];
    for (const name of Object.keys(cases)) {
      const outcome = await toolset
        .call(
          name,
          {},
          {
            onLog: (log) => shown.push(log),
            onProgress: (progress) => shown.push(progress),
            onInteraction: async (request) => {
              questions.push(request);
              return InteractionResponse.decline(request.id);
            },
          },
        )
        .then(
          (result) => result,
          (error: unknown) => error,
        );
      expect(isToolError(outcome) || name === "chatty", name).toBe(true);
      if (isToolError(outcome)) {
        shown.push(outcome.message, outcome.toJSON(), String(outcome.cause ?? ""));
      }
    }
    shown.push(...questions);
    // The echo happened, so a leak would show.
    expect(echo).toContain(HEADER_SECRET);
    expect(shown.length).toBeGreaterThan(10);
    const text = JSON.stringify(shown);
    for (const secret of SECRETS) expect(text, secret).not.toContain(secret);
    expect(text).toContain("[redacted]");
    expect(text).toContain("https://mcp.example.test/mcp");
  });

  // Issue 23, item 8.
  const windows = (secret: string) =>
    Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8));
  const expectNoPiece = (shown: unknown) => {
    const text = JSON.stringify(shown);
    for (const secret of SECRETS) {
      for (const piece of windows(secret)) expect(text, secret).not.toContain(piece);
    }
  };

  it("scrubs a credential that a log line carries as an object key", async () => {
    const fake = createFakeMcp({
      tools: [tool("chatty")],
      override: (message) => {
        if (message.method !== "tools/call") return undefined;
        const log = {
          jsonrpc: "2.0",
          method: "notifications/message",
          params: {
            level: "info",
            data: { [KEY_SECRET]: "value", nested: [{ [`q=${QUERY_SECRET}`]: 1 }] },
          },
        };
        const answer = { jsonrpc: "2.0", id: message.id, result: { content: [] } };
        return new Response(`data: ${JSON.stringify(log)}\n\ndata: ${JSON.stringify(answer)}\n\n`, {
          headers: { "content-type": "text/event-stream" },
        });
      },
    });
    const toolset = await connectMcp({ url, headers, fetch: fake.fetch });
    const logs: ToolLog[] = [];
    await toolset.call("chatty", {}, { onLog: (log) => logs.push(log) });
    expect(logs).toEqual([
      {
        level: "info",
        data: { "[redacted]": "value", nested: [{ "q=[redacted]": 1 }] },
      },
    ]);
    expectNoPiece(logs);
  });

  it("two tools named after the URL's query token: no duplicate_name carrying it, both skipped", async () => {
    const fake = createFakeMcp({ tools: [tool(QUERY_SECRET), tool(QUERY_SECRET), tool("ok")] });
    const logs: ToolLog[] = [];
    const outcome = await connectMcp({
      url,
      headers,
      fetch: fake.fetch,
      onLog: (l) => logs.push(l),
    })
      .then((toolset) => toolset.listTools())
      .catch((error: unknown) => [error, (error as { toJSON?(): unknown }).toJSON?.()]);
    expectNoPiece([outcome, logs]);
    expect(outcome).toMatchObject([{ name: "ok" }]);
    expect(logs).toHaveLength(2);
  });

  it("scrubs a warning before cutting it: no part of a token straddling the cut shows", async () => {
    // The token's first 32 characters fall before the 140-character cut of a skipped name.
    const token = "tok-0123456789abcdefghijklmnopqrstu";
    const tokenUrl = `https://mcp.example.test/mcp?token=${token}`;
    const fake = createFakeMcp({
      tools: [tool(`${"a".repeat(108)}${token}`), tool(`${"b".repeat(20)} ${token}`), tool("ok")],
    });
    const logs: ToolLog[] = [];
    const toolset = await connectMcp({
      url: tokenUrl,
      fetch: fake.fetch,
      onLog: (log) => logs.push(log),
    });
    expect((await toolset.listTools()).map((info) => info.name)).toEqual(["ok"]);
    expect(logs).toHaveLength(2);
    const text = JSON.stringify(logs);
    for (const piece of windows(token)) expect(text).not.toContain(piece);
    expect(text).toContain("[redacted]");
  });

  it("skips a tool named after a credential and scrubs a result that echoes one", async () => {
    const fake = createFakeMcp({
      tools: [
        tool(KEY_SECRET),
        tool("lookup", { description: `uses ${HEADER_SECRET}` }),
        tool("plain", { description: "see https://docs.test/a?section=2" }),
      ],
      call: () => ({
        result: {
          content: [{ type: "text", text: `your key is ${KEY_SECRET}; https://x.test/?q=1` }],
        },
      }),
    });
    const logs: ToolLog[] = [];
    const toolset = await connectMcp({
      url,
      headers,
      fetch: fake.fetch,
      onLog: (l) => logs.push(l),
    });
    const infos = await toolset.listTools();
    expect(infos.map((info) => info.name)).toEqual(["lookup", "plain"]);
    expect(infos[0]?.description).toBe("uses [redacted]");
    // Data that echoes nothing keeps its URLs whole.
    expect(infos[1]?.description).toBe("see https://docs.test/a?section=2");
    expect(logs).toHaveLength(1);
    const model = scriptedModel([
      { toolCalls: [{ name: "lookup", arguments: {} }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      toolsets: [toolset],
      approver: async () => ({ type: "allow" }),
    });
    const events: AgentEvent[] = [];
    for await (const event of agent.run("go")) events.push(event);
    await toolset.shutdown();
    const text = JSON.stringify([infos, logs, events, model.requests]);
    expect(text).toContain("your key is [redacted]");
    expectNoPiece([infos, logs, events, model.requests]);
  });

  it("refuses credentials in the URL (fetch cannot send them) without echoing them", async () => {
    const error = await caught(
      connectMcp({ url: "https://bob:pw-secret-3456@mcp.example.test/mcp" }),
    );
    expect(error.type).toBe("invalid_configuration");
    expect(error.message).toContain("headers");
    expect(error.message).not.toContain("pw-secret-3456");
  });

  it("scrubs a connection failure too, and keeps no runtime error as cause", async () => {
    const failing = (() =>
      Promise.reject(new TypeError(`error sending request for url (${url})`))) as typeof fetch;
    const error = await caught(connectMcp({ url, headers, fetch: failing }));
    const text = JSON.stringify([error.message, error.toJSON(), String(error.cause ?? "")]);
    for (const secret of SECRETS) expect(text, secret).not.toContain(secret);
    expect(error.message).toContain("https://mcp.example.test/mcp");
  });

  it("reaches neither the agent's events nor the model through a failing remote tool", async () => {
    let echo = "";
    const fake = createFakeMcp({
      tools: [tool("leaky")],
      override: (message, request) => {
        echo = `${request.url} ${[...request.headers].map(([k, v]) => `${k}=${v}`).join(" ")}`;
        if (message.method !== "tools/call") return undefined;
        return Response.json({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32000, message: `upstream refused ${echo}` },
        });
      },
    });
    const toolset = await connectMcp({ url, headers, fetch: fake.fetch });
    const model = scriptedModel([
      { toolCalls: [{ name: "leaky", arguments: {} }] },
      { text: "It failed." },
    ]);
    const agent = new Agent({
      model,
      toolsets: [toolset],
      approver: async () => ({ type: "allow" }),
    });
    const events: AgentEvent[] = [];
    for await (const event of agent.run("Try the tool")) events.push(event);
    expect(echo).toContain(HEADER_SECRET);
    expect(events.some((event) => event.type === "tool_result" && event.isError)).toBe(true);
    const text = JSON.stringify([events, model.requests]);
    for (const secret of SECRETS) expect(text, secret).not.toContain(secret);
    expect(text).toContain("upstream refused https://mcp.example.test/mcp");
    await toolset.shutdown();
  });
});
