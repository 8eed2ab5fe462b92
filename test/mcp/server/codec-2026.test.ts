// The 2026-07-28 exchange on the wire: which era a POST is, the envelope, header and version
// errors (status, code, echoed id), discover, tools/list and tools/call results, logs, progress,
// cancellation by closing the stream, subscriptions/listen, and 2025 traffic beside it.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, Toolset } from "../../../src/index.ts";
import { jsonSchemaValidator } from "../../../src/json-schema/index.ts";
import { createMcpHandler } from "../../../src/mcp/index.ts";
import {
  CLIENT_HEADERS,
  fixtureHandler,
  nestedText,
  post,
  rpc,
  sseMessages,
  streamEvents,
} from "./fixture.ts";
import {
  envelope,
  json,
  META_CAPABILITIES,
  META_SERVER_INFO,
  META_SUBSCRIPTION,
  META_VERSION,
  modern,
} from "./modern.ts";

describe("choosing the era per POST", () => {
  it("serves a 2025 initialize and 2026 requests on one endpoint, each with its own answers", async () => {
    const { handler } = fixtureHandler({ sessions: "memory" });
    const init = await handler.fetch(
      post(
        rpc(1, "initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "old", version: "1" },
        }),
      ),
    );
    expect(init.status).toBe(200);
    const session = init.headers.get("mcp-session-id") as string;
    expect((await json(init)).result.protocolVersion).toBe("2025-11-25");

    const discover = await handler.fetch(modern(2, "server/discover"));
    expect(discover.status).toBe(200);
    expect(discover.headers.get("mcp-session-id")).toBeNull();

    const legacyList = await handler.fetch(
      post(rpc(3, "tools/list"), {
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
      }),
    );
    const legacy = (await json(legacyList)).result;
    expect(legacy.tools.length).toBeGreaterThan(0);
    // The 2025 answer gains nothing of 2026.
    expect(legacy).not.toHaveProperty("resultType");
    expect(legacy).not.toHaveProperty("ttlMs");
    expect(legacy).not.toHaveProperty("cacheScope");
    expect(legacy._meta?.[META_SERVER_INFO]).toBeUndefined();
  });

  it("ignores Mcp-Session-Id on a 2026 request, even one no session has", async () => {
    const { handler } = fixtureHandler({ sessions: "memory" });
    const response = await handler.fetch(
      modern(1, "tools/list", {}, { headers: { "mcp-session-id": "no-such-session" } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
  });

  it("takes a body claim over a 2025 header: the mismatch is -32020, not a 2025 answer", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(
      modern(7, "tools/list", {}, { headers: { "mcp-protocol-version": "2025-11-25" } }),
    );
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ id: 7, error: { code: -32020 } });
  });

  it("treats a 2026 header without an envelope as a 2026 request missing its _meta", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(modern(8, "tools/list", {}, { meta: null }));
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ id: 8, error: { code: -32602 } });
  });

  it("accepts a 2026 notification with 202 and an empty body", async () => {
    const { handler } = fixtureHandler();
    const response = await handler.fetch(
      post(
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { _meta: envelope() } },
        { "mcp-protocol-version": "2026-07-28" },
      ),
    );
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("");
  });
});

describe("the envelope, the headers and the version", () => {
  const { handler } = fixtureHandler();
  const errorOf = async (request: Request) => {
    const response = await handler.fetch(request);
    const body = await json(response);
    return { status: response.status, id: body.id, code: body.error?.code, data: body.error?.data };
  };

  it("answers a missing or incomplete _meta 400 -32602, echoing the id", async () => {
    const full = envelope();
    const without = (key: string) =>
      Object.fromEntries(Object.entries(full).filter(([k]) => k !== key));
    for (const meta of [{}, without(META_VERSION), without(META_CAPABILITIES)]) {
      expect(await errorOf(modern(101, "server/discover", {}, { meta }))).toMatchObject({
        status: 400,
        id: 101,
        code: -32602,
      });
    }
    expect(await errorOf(modern("m", "server/discover", {}, { meta: null }))).toMatchObject({
      status: 400,
      id: "m",
      code: -32602,
    });
  });

  it("serves a request without clientInfo, and refuses a malformed clientInfo or logLevel", async () => {
    const response = await handler.fetch(
      modern(
        1,
        "server/discover",
        {},
        { meta: { [META_VERSION]: "2026-07-28", [META_CAPABILITIES]: {} } },
      ),
    );
    expect(response.status).toBe(200);
    const bad = [
      { ...envelope(), "io.modelcontextprotocol/clientInfo": { name: 5 } },
      { ...envelope(), "io.modelcontextprotocol/logLevel": "bogus" },
    ];
    for (const meta of bad) {
      expect(await errorOf(modern(2, "server/discover", {}, { meta }))).toMatchObject({
        status: 400,
        code: -32602,
      });
    }
  });

  it("answers a revision it does not serve 400 -32022 with what it supports and what was asked", async () => {
    for (const version of ["2099-01-01", "2025-11-25"]) {
      const meta = { ...envelope(), [META_VERSION]: version };
      expect(
        await errorOf(
          modern(
            301,
            "server/discover",
            {},
            { meta, headers: { "mcp-protocol-version": version } },
          ),
        ),
      ).toEqual({
        status: 400,
        id: 301,
        code: -32022,
        data: { supported: ["2026-07-28"], requested: version },
      });
    }
  });

  it("answers a missing or disagreeing MCP-Protocol-Version 400 -32020", async () => {
    const missing = modern(1, "tools/list");
    missing.headers.delete("mcp-protocol-version");
    expect(await errorOf(missing)).toMatchObject({ status: 400, id: 1, code: -32020 });
    const meta = { ...envelope(), [META_VERSION]: "v999.0.0" };
    expect(await errorOf(modern(2, "tools/list", {}, { meta }))).toMatchObject({
      status: 400,
      code: -32020,
    });
  });

  it("needs Mcp-Method equal to the method, case included", async () => {
    const missing = modern(1, "tools/list");
    missing.headers.delete("mcp-method");
    expect(await errorOf(missing)).toMatchObject({ status: 400, code: -32020 });
    for (const value of ["tools/call", "TOOLS/LIST"]) {
      expect(
        await errorOf(modern(2, "tools/list", {}, { headers: { "mcp-method": value } })),
      ).toMatchObject({ status: 400, id: 2, code: -32020 });
    }
  });

  it("needs Mcp-Name on tools/call equal to the name: trimmed, or Base64-encoded", async () => {
    const call = { name: "echo", arguments: { message: "hi" } };
    const missing = modern(1, "tools/call", call);
    missing.headers.delete("mcp-name");
    expect(await errorOf(missing)).toMatchObject({ status: 400, code: -32020 });
    expect(
      await errorOf(modern(2, "tools/call", call, { headers: { "mcp-name": "add" } })),
    ).toMatchObject({ status: 400, code: -32020 });
    for (const name of ["  echo  ", `=?base64?${btoa("echo")}?=`]) {
      const response = await handler.fetch(
        modern(3, "tools/call", call, { headers: { "mcp-name": name } }),
      );
      expect(response.status).toBe(200);
      expect((await json(response)).result.content).toEqual([{ type: "text", text: "echo: hi" }]);
    }
    expect(
      await errorOf(
        modern(4, "tools/call", call, { headers: { "mcp-name": `=?base64?${btoa("add")}?=` } }),
      ),
    ).toMatchObject({ status: 400, code: -32020 });
  });

  it("checks Mcp-Param headers against the arguments their schema marks with x-mcp-header", async () => {
    const call = (args: Record<string, unknown>, headers: Record<string, string> = {}) =>
      handler.fetch(modern(5, "tools/call", { name: "region", arguments: args }, { headers }));
    expect(
      (
        await call(
          { region: "eu", priority: 3 },
          { "mcp-param-region": "eu", "mcp-param-priority": "3" },
        )
      ).status,
    ).toBe(200);
    // Absent or null values need no header.
    expect((await call({ region: null })).status).toBe(200);
    expect((await call({ note: "x" })).status).toBe(200);
    expect(
      (
        await call(
          { region: "Zürich" },
          { "mcp-param-region": `=?base64?${btoa("Z\u00c3\u00bcrich")}?=` },
        )
      ).status,
    ).toBe(200);
    for (const [args, headers] of [
      [{ region: "eu" }, {}],
      [{ region: "eu" }, { "mcp-param-region": "us" }],
      [{ priority: 3 }, { "mcp-param-priority": "4" }],
      [{ region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" }],
      [{}, { "mcp-param-region": "eu" }],
    ] as const) {
      const response = await call(args, headers);
      expect(response.status).toBe(400);
      expect((await json(response)).error.code).toBe(-32020);
    }
  });

  it("checks headers against the schema last listed, a tool added later and a change announced", async () => {
    // A backend whose one tool gains an x-mcp-header, and which can add a second tool.
    let marked = false;
    let added = false;
    let lists = 0;
    const info = (name: string, header: boolean) => ({
      name,
      description: name,
      inputSchema: {
        schema: {
          type: "object",
          properties: { region: header ? { type: "string", "x-mcp-header": "Region" } : {} },
        },
      },
      annotations: {},
    });
    const local = Toolset.local([
      defineTool({ name: "t", description: "t", input: v.object({}), call: () => "ok" }),
    ]);
    const served = createMcpHandler(
      {
        listTools: async () => {
          lists += 1;
          return [info("t", marked), ...(added ? [info("u", true)] : [])] as never;
        },
        toolHandler: (name) => local.toolHandler(name === "u" ? "t" : name),
        shutdown: async () => {},
      },
      { name: "changing", version: "1" },
    );
    const call = (name: string) =>
      served.fetch(modern(9, "tools/call", { name, arguments: { region: "eu" } }));
    expect((await call("t")).status).toBe(200);
    expect((await call("t")).status).toBe(200);
    expect(lists).toBe(1);
    // Not announced: the schema last listed still applies.
    marked = true;
    expect((await call("t")).status).toBe(200);
    served.toolsChanged();
    expect((await call("t")).status).toBe(400);
    // A name the last list lacks lists again.
    added = true;
    expect((await call("u")).status).toBe(400);
    expect(lists).toBe(3);
  });

  // Issue 23 (14): `Number()` read `0x10` as 16, so a gateway and the server disagreed.
  it("reads a number in an Mcp-Param header as decimal only", async () => {
    const call = (priority: string) =>
      handler.fetch(
        modern(
          6,
          "tools/call",
          { name: "region", arguments: { priority: 16 } },
          { headers: { "mcp-param-priority": priority } },
        ),
      );
    for (const decimal of ["16", "16.0", "  16  "]) {
      expect((await call(decimal)).status, decimal).toBe(200);
    }
    const sentinel = (text: string) => `=?base64?${btoa(text)}?=`;
    for (const other of [
      "0x10",
      "0X10",
      "0b10000",
      "0o20",
      "1.6e1",
      "160e-1",
      "+16",
      "016",
      "16.",
      ".16e2",
      "16_0",
      sentinel(" 16"),
      sentinel("16\n"),
      sentinel("0x10"),
    ]) {
      const response = await call(other);
      expect(response.status, other).toBe(400);
      expect((await json(response)).error.code).toBe(-32020);
    }
    const zero = (priority: string) =>
      handler.fetch(
        modern(
          7,
          "tools/call",
          { name: "region", arguments: { priority: 0 } },
          { headers: { "mcp-param-priority": priority } },
        ),
      );
    expect((await zero("0")).status).toBe(200);
    for (const blank of [sentinel(""), sentinel(" "), "0x0", "0e0"]) {
      expect((await zero(blank)).status, blank).toBe(400);
    }
  });

  it("answers unknown, removed and absent-capability methods 404 -32601", async () => {
    for (const method of [
      "unknown/method",
      "initialize",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "prompts/list",
      "resources/list",
    ]) {
      expect(await errorOf(modern(500, method))).toMatchObject({
        status: 404,
        id: 500,
        code: -32601,
      });
    }
  });
});

describe("2026 results", () => {
  it("discover names the revision, the tools capability, caching hints and the server", async () => {
    const { handler } = fixtureHandler({ title: "Fixture", instructions: "Use echo." });
    const response = await handler.fetch(modern(1, "server/discover"));
    expect(await json(response)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: { listChanged: true }, logging: {} },
        instructions: "Use echo.",
        ttlMs: 0,
        cacheScope: "private",
        _meta: { [META_SERVER_INFO]: { name: "fixture", version: "1.0.0", title: "Fixture" } },
      },
    });
  });

  it("tools/list carries resultType and the configured caching hints on every page", async () => {
    const { handler, toolset } = fixtureHandler({
      pageSize: 3,
      cacheHints: { ttlMs: 60_000, cacheScope: "public" },
    });
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const params: Record<string, unknown> = cursor === undefined ? {} : { cursor };
      const result = (await json(await handler.fetch(modern(1, "tools/list", params)))).result;
      expect(result).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "public" });
      expect(result._meta[META_SERVER_INFO]).toEqual({ name: "fixture", version: "1.0.0" });
      names.push(...result.tools.map((tool: { name: string }) => tool.name));
      cursor = result.nextCursor;
    } while (cursor !== undefined);
    expect(names).toEqual((await toolset.listTools()).map((tool) => tool.name));
    const bad = await json(await handler.fetch(modern(2, "tools/list", { cursor: "nope" })));
    expect(bad).toMatchObject({ id: 2, error: { code: -32602 } });
  });

  it("tools/list keeps a declared output schema as it is, where 2025 makes it an object schema", async () => {
    const toolset = Toolset.local([
      defineTool({
        jsonSchemaValidator,
        name: "count",
        description: "Counts",
        input: v.object({}),
        output: { jsonSchema: { anyOf: [{ type: "integer" }, { type: "string" }] } },
        call: () => "never called",
      }),
    ]);
    const handler = createMcpHandler(toolset, { name: "s", version: "1" });
    const modernList = (await json(await handler.fetch(modern(1, "tools/list")))).result;
    expect(modernList.tools[0].outputSchema).toEqual({
      anyOf: [{ type: "integer" }, { type: "string" }],
    });
    const legacyList = await json(
      await handler.fetch(post(rpc(2, "tools/list"), { "mcp-protocol-version": "2025-11-25" })),
    );
    expect(legacyList.result.tools[0].outputSchema).toMatchObject({ type: "object" });
  });

  it("tools/call: a result is complete, a failing tool an isError result, an unknown tool -32602", async () => {
    const { handler } = fixtureHandler();
    const ok = (
      await json(
        await handler.fetch(modern(1, "tools/call", { name: "add", arguments: { a: 1, b: 2 } })),
      )
    ).result;
    expect(ok).toMatchObject({
      resultType: "complete",
      structuredContent: { sum: 3 },
      isError: false,
    });
    expect(ok._meta[META_SERVER_INFO]).toBeDefined();
    const thrown = (
      await json(await handler.fetch(modern(2, "tools/call", { name: "throws", arguments: {} })))
    ).result;
    expect(thrown).toMatchObject({ resultType: "complete", isError: true });
    expect(thrown.content.length).toBeGreaterThan(0);
    const unknown = await handler.fetch(modern(3, "tools/call", { name: "nope", arguments: {} }));
    expect(unknown.status).toBe(200);
    expect(await json(unknown)).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  it("sends logs only at or above the request's logLevel, and none without one", async () => {
    const { handler } = fixtureHandler();
    const quiet = await handler.fetch(modern(1, "tools/call", { name: "logs", arguments: {} }));
    expect(quiet.headers.get("content-type")).toBe("application/json");
    const meta = { ...envelope(), "io.modelcontextprotocol/logLevel": "warning" };
    const loud = await handler.fetch(
      modern(2, "tools/call", { name: "logs", arguments: {} }, { meta }),
    );
    const messages = await sseMessages(loud);
    expect(messages.filter((m) => m.method === "notifications/message")).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "error", data: "an error line" },
      },
    ]);
    expect(messages.at(-1)).toMatchObject({ id: 2, result: { resultType: "complete" } });
  });

  it("streams progress for a request with a progressToken, then the result", async () => {
    const { handler } = fixtureHandler();
    const meta = { ...envelope(), progressToken: "p" };
    const response = await handler.fetch(
      modern(1, "tools/call", { name: "slow", arguments: { steps: 2 } }, { meta }),
    );
    const messages = await sseMessages(response);
    expect(messages.map((m) => (m.params as { progress?: number } | undefined)?.progress)).toEqual([
      1,
      2,
      undefined,
    ]);
    expect(messages.some((m) => "id" in m && "method" in m)).toBe(false);
  });

  it("cancels the tool when the client aborts the request", async () => {
    const { handler, observed } = fixtureHandler();
    const abort = new AbortController();
    void handler
      .fetch(modern(1, "tools/call", { name: "wait", arguments: {} }, { signal: abort.signal }))
      .catch(() => {});
    await observed.started;
    abort.abort();
    expect(await observed.aborted).toBeDefined();
  });

  it("cancels the tool when the client closes its SSE stream", async () => {
    let aborted: (reason: unknown) => void = () => {};
    const seen = new Promise((resolve) => {
      aborted = resolve;
    });
    const toolset = Toolset.local([
      defineTool({
        name: "chatty",
        description: "Logs, then waits until cancelled",
        input: v.object({}),
        call: (_, ctx) => {
          ctx.log("info", "started");
          return new Promise((_resolve, reject) => {
            ctx.signal.addEventListener("abort", () => {
              aborted(ctx.signal.reason);
              reject(ctx.signal.reason);
            });
          });
        },
      }),
    ]);
    const handler = createMcpHandler(toolset, { name: "s", version: "1" });
    const meta = { ...envelope(), "io.modelcontextprotocol/logLevel": "info" };
    const response = await handler.fetch(
      modern(1, "tools/call", { name: "chatty", arguments: {} }, { meta }),
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(
      "notifications/message",
    );
    await reader.cancel();
    expect(await seen).toBeDefined();
  });
});

describe("subscriptions/listen", () => {
  it("acknowledges first, tags list_changed with the subscription id, and ends with a result on close", async () => {
    const { handler } = fixtureHandler();
    const tools = await handler.fetch(
      modern("L1", "subscriptions/listen", {
        notifications: { toolsListChanged: true, promptsListChanged: true },
      }),
    );
    const prompts = await handler.fetch(
      modern("L2", "subscriptions/listen", { notifications: { promptsListChanged: true } }),
    );
    expect(tools.headers.get("content-type")).toBe("text/event-stream");
    const toolEvents = streamEvents(tools);
    const promptEvents = streamEvents(prompts);
    expect((await toolEvents.next()).value).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { toolsListChanged: true }, _meta: { [META_SUBSCRIPTION]: "L1" } },
    });
    expect((await promptEvents.next()).value).toMatchObject({
      params: { notifications: {}, _meta: { [META_SUBSCRIPTION]: "L2" } },
    });
    handler.toolsChanged();
    expect((await toolEvents.next()).value).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [META_SUBSCRIPTION]: "L1" } },
    });
    handler.close();
    expect((await toolEvents.next()).value).toMatchObject({
      id: "L1",
      result: { resultType: "complete", _meta: { [META_SUBSCRIPTION]: "L1" } },
    });
    expect((await toolEvents.next()).done).toBe(true);
    // The prompts-only listen never saw the tools change.
    expect((await promptEvents.next()).value).toMatchObject({
      id: "L2",
      result: { resultType: "complete" },
    });
    expect((await promptEvents.next()).done).toBe(true);
  });
});

describe("nesting depth", () => {
  const deepCall = (id: number, levels: string | number) =>
    new Request("http://127.0.0.1:3000/mcp", {
      method: "POST",
      headers: {
        ...CLIENT_HEADERS,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "echo",
      },
      body: nestedText(
        rpc(id, "tools/call", {
          name: "echo",
          arguments: { message: "<deep>" },
          _meta: envelope(),
        }),
        levels,
      ),
    });

  // Issue 23 (5): 200,000 levels in 400 KB was a 500 with id null, and onError saw a stack overflow.
  it("answers arguments nested 200,000 levels 400 -32602 with the request's id, onError silent", async () => {
    const errors: unknown[] = [];
    const { handler } = fixtureHandler({ onError: (error) => errors.push(error) });
    const response = await handler.fetch(deepCall(7, 200_000));
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(body.error.message).toContain("deeper than 128 levels");
    expect(errors).toEqual([]);
    // The handler carries on.
    const fine = await handler.fetch(
      modern(8, "tools/call", { name: "echo", arguments: { message: "hi" } }),
    );
    expect((await json(fine)).result.content[0].text).toBe("echo: hi");
  });

  it("serves the deepest message the limit allows and refuses one level more", async () => {
    // The message is level 1, params 2, arguments 3; `message`'s 125 levels are 4 to 128.
    const { handler } = fixtureHandler();
    const atLimit = await handler.fetch(deepCall(1, 125));
    expect(atLimit.status).toBe(200);
    expect((await json(atLimit)).result.isError).toBe(true); // echo wants a string
    const over = await handler.fetch(deepCall(2, 126));
    expect(over.status).toBe(400);
    expect(await json(over)).toMatchObject({ id: 2, error: { code: -32602 } });
    const { handler: wide } = fixtureHandler({ maxJsonDepth: 200 });
    expect((await wide.fetch(deepCall(3, 126))).status).toBe(200);
  });
});

describe("2026 options", () => {
  it("refuses a short stateSecret and malformed cacheHints", () => {
    const toolset = Toolset.local([]);
    expect(() =>
      createMcpHandler(toolset, { name: "s", version: "1", stateSecret: "short" }),
    ).toThrow(/stateSecret/);
    expect(() =>
      createMcpHandler(toolset, { name: "s", version: "1", cacheHints: { ttlMs: -1 } }),
    ).toThrow(/cacheHints/);
  });
});
