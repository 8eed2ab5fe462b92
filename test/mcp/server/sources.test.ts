// Resources, resource templates, prompts and completion served beside a toolset
// (design.md "Serving MCP", "Resources, prompts and completion"), at both revisions: the same
// methods answer on 2025-11-25 (plain results, -32002 for a missing resource, subscriptions on
// the session's GET stream) and on 2026-07-28 (resultType, caching hints, -32602 with data.uri,
// questions as input_required, subscriptions/listen).
import { describe, expect, it } from "vitest";
import { isToolError } from "../../../src/index.ts";
import {
  createMcpHandler,
  type McpHandlerOptions,
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
} from "../../../src/mcp/index.ts";
import { fixtureToolset, post, rpc, streamEvents } from "./fixture.ts";
import { json, META_SUBSCRIPTION, modern } from "./modern.ts";

const PNG_BYTES = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);

const resources: McpResource[] = [
  { uri: "docs://readme", name: "readme", mimeType: "text/markdown", read: () => "# Hello" },
  { uri: "docs://logo", name: "logo", mimeType: "image/png", read: () => PNG_BYTES },
  {
    uri: "docs://private",
    name: "private",
    read: async (ctx) => `Hello ${await ctx.requestText("Your name?")}`,
  },
  {
    uri: "docs://secret",
    name: "secret",
    read: () => {
      throw new Error("database password is hunter2");
    },
  },
];

const templates: McpResourceTemplate[] = [
  {
    uriTemplate: "users://{id}/profile",
    name: "profile",
    mimeType: "application/json",
    read: (_uri, { id }) => (id === "0" ? undefined : JSON.stringify({ id })),
    complete: { id: (value) => ["17", "42", "420"].filter((id) => id.startsWith(value)) },
  },
];

const prompts: McpPrompt[] = [
  {
    name: "review",
    description: "Review code",
    arguments: [{ name: "code", required: true }, { name: "style" }],
    get: ({ code, style }) => ({
      description: "A review",
      messages: [
        { role: "user", content: { type: "text", text: `Review (${style ?? "any"}): ${code}` } },
        {
          role: "user",
          content: {
            type: "embedded_resource",
            resource: { uri: "docs://readme", mimeType: "text/markdown", text: "# Hello" },
          },
        },
      ],
    }),
    complete: { style: (value) => ["strict", "lenient"].filter((s) => s.startsWith(value)) },
  },
  {
    name: "ask",
    get: async (_args, ctx) => {
      const { topic } = await ctx.requestForm("Which topic?", {
        type: "object",
        properties: { topic: { type: "string" } },
        required: ["topic"],
      });
      return `Write about ${String(topic)}`;
    },
  },
];

function handlerWith(options: Partial<McpHandlerOptions> = {}) {
  const errors: unknown[] = [];
  const handler = createMcpHandler(fixtureToolset().toolset, {
    name: "sources",
    version: "1.0.0",
    resources,
    resourceTemplates: templates,
    prompts,
    onError: (error) => errors.push(error),
    ...options,
  });
  return { handler, errors };
}

const legacy = (id: number, method: string, params?: Record<string, unknown>) =>
  post(rpc(id, method, params), { "mcp-protocol-version": "2025-11-25" });

// A 2026 request with the Mcp-Name header its method needs.
const named = (id: number, method: string, params: Record<string, unknown>, capabilities = {}) => {
  const name = method === "resources/read" ? params.uri : params.name;
  return modern(id, method, params, {
    capabilities,
    headers: typeof name === "string" ? { "mcp-name": name } : {},
  });
};

describe("capabilities", () => {
  it("declares resources, prompts and completions only when they are served", async () => {
    const bare = createMcpHandler(fixtureToolset().toolset, { name: "t", version: "1" });
    const init = (handler: typeof bare) =>
      handler.fetch(
        post(
          rpc(1, "initialize", {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "c", version: "1" },
          }),
        ),
      );
    const none = (await json(await init(bare))).result.capabilities;
    expect(none.resources).toBeUndefined();
    expect(none.prompts).toBeUndefined();
    expect(none.completions).toBeUndefined();
    const served = (await json(await init(handlerWith().handler))).result.capabilities;
    // Stateless: no stream to announce an update on, so no subscriptions.
    expect(served).toMatchObject({
      resources: { subscribe: false, listChanged: false },
      prompts: { listChanged: false },
      completions: {},
    });
    const discovered = (await json(await handlerWith().handler.fetch(modern(2, "server/discover"))))
      .result.capabilities;
    expect(discovered).toMatchObject({
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    const missing = await bare.fetch(modern(3, "prompts/list"));
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe(-32601);
  });
});

describe("resources", () => {
  it("lists resources and templates, and reads text, binary and templated contents (2025)", async () => {
    const { handler } = handlerWith();
    const list = (await json(await handler.fetch(legacy(1, "resources/list")))).result;
    // Listed in URI order, whatever order the source gives.
    expect(list.resources.map((r: { uri: string }) => r.uri)).toEqual([
      "docs://logo",
      "docs://private",
      "docs://readme",
      "docs://secret",
    ]);
    expect(list.ttlMs).toBeUndefined();
    const listed = (await json(await handler.fetch(legacy(2, "resources/templates/list")))).result;
    expect(listed.resourceTemplates).toEqual([
      { name: "profile", mimeType: "application/json", uriTemplate: "users://{id}/profile" },
    ]);
    const text = await json(
      await handler.fetch(legacy(3, "resources/read", { uri: "docs://readme" })),
    );
    expect(text.result.contents).toEqual([
      { uri: "docs://readme", mimeType: "text/markdown", text: "# Hello" },
    ]);
    const binary = await json(
      await handler.fetch(legacy(4, "resources/read", { uri: "docs://logo" })),
    );
    expect(binary.result.contents[0].blob).toBe(btoa(String.fromCharCode(...PNG_BYTES)));
    const templated = await json(
      await handler.fetch(legacy(5, "resources/read", { uri: "users://a%20b/profile" })),
    );
    expect(templated.result.contents[0]).toEqual({
      uri: "users://a%20b/profile",
      mimeType: "application/json",
      text: JSON.stringify({ id: "a b" }),
    });
  });

  it("answers a missing resource -32002 with data.uri on 2025 and -32602 on 2026", async () => {
    const { handler } = handlerWith();
    for (const uri of ["nowhere://x", "users://0/profile", "users://a/b/profile"]) {
      const old = await json(await handler.fetch(legacy(1, "resources/read", { uri })));
      expect(old.error).toMatchObject({ code: -32002, data: { uri } });
      const answer = await handler.fetch(named(2, "resources/read", { uri }));
      expect(answer.status).toBe(200);
      expect((await json(answer)).error).toMatchObject({ code: -32602, data: { uri } });
    }
  });

  it("adds resultType and the caching hints on 2026 lists and reads", async () => {
    const { handler } = handlerWith({ cacheHints: { ttlMs: 5000, cacheScope: "public" } });
    for (const [method, params] of [
      ["resources/list", {}],
      ["resources/templates/list", {}],
      ["resources/read", { uri: "docs://readme" }],
      ["prompts/list", {}],
    ] as const) {
      const body = await json(await handler.fetch(named(1, method, params)));
      expect(body.result, method).toMatchObject({
        resultType: "complete",
        ttlMs: 5000,
        cacheScope: "public",
      });
    }
  });

  it("asks a read's question as input_required on 2026, bound to the URI", async () => {
    const { handler } = handlerWith();
    const capabilities = { elicitation: {} };
    const first = await json(
      await handler.fetch(named(1, "resources/read", { uri: "docs://private" }, capabilities)),
    );
    expect(first.result).toMatchObject({ resultType: "input_required" });
    expect(first.result.ttlMs).toBeUndefined();
    const retry = {
      uri: "docs://private",
      inputResponses: { q0: { action: "accept", content: { text: "Ada" } } },
      requestState: first.result.requestState,
    };
    const done = await json(await handler.fetch(named(2, "resources/read", retry, capabilities)));
    expect(done.result.contents[0].text).toBe("Hello Ada");
    const moved = await json(
      await handler.fetch(
        named(3, "resources/read", { ...retry, uri: "docs://readme" }, capabilities),
      ),
    );
    expect(moved.error.code).toBe(-32602);
  });

  it("withholds what a failing read threw and tells onError", async () => {
    const { handler, errors } = handlerWith();
    const body = await json(
      await handler.fetch(legacy(1, "resources/read", { uri: "docs://secret" })),
    );
    expect(body.error.code).toBe(-32603);
    expect(JSON.stringify(body)).not.toContain("hunter2");
    expect(String(errors[0])).toContain("hunter2");
  });

  it("pages a long list with a cursor, and refuses a cursor it did not issue", async () => {
    const many = Array.from({ length: 5 }, (_, i) => ({
      uri: `n://${i}`,
      name: `n${i}`,
      read: () => String(i),
    }));
    const { handler } = handlerWith({ resources: many, pageSize: 2 });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (
        await json(
          await handler.fetch(legacy(1, "resources/list", cursor === undefined ? {} : { cursor })),
        )
      ).result;
      seen.push(...page.resources.map((r: { uri: string }) => r.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(many.map((r) => r.uri));
    const bad = await json(await handler.fetch(legacy(2, "resources/list", { cursor: "nope" })));
    expect(bad.error.code).toBe(-32602);
  });

  it("lists per caller when the source is a function of auth", async () => {
    const handler = createMcpHandler(fixtureToolset().toolset, {
      name: "t",
      version: "1",
      authorize: (request) => ({ subject: request.headers.get("x-user") ?? "anon" }),
      resources: ({ auth }) => [
        {
          uri: `home://${(auth as { subject: string }).subject}`,
          name: "home",
          read: () => "mine",
        },
      ],
    });
    const body = await json(
      await handler.fetch(
        post(rpc(1, "resources/list"), { "mcp-protocol-version": "2025-11-25", "x-user": "ada" }),
      ),
    );
    expect(body.result.resources[0].uri).toBe("home://ada");
  });

  it("refuses a malformed source at createMcpHandler with invalid_configuration", () => {
    const make = (options: Partial<McpHandlerOptions>) => () =>
      createMcpHandler(fixtureToolset().toolset, { name: "t", version: "1", ...options });
    for (const options of [
      { resources: [{ name: "x", read: () => "" }] as never },
      { resourceTemplates: [{ uriTemplate: "a://{+path}", name: "x", read: () => "" }] },
      { resourceTemplates: [{ uriTemplate: "a://{x", name: "x", read: () => "" }] },
      { prompts: [{ name: "p" }] as never },
      { prompts: "nope" as never },
    ]) {
      let error: unknown;
      try {
        make(options)();
      } catch (caught) {
        error = caught;
      }
      expect(isToolError(error, "invalid_configuration"), JSON.stringify(options)).toBe(true);
    }
  });
});

describe("prompts", () => {
  it("lists prompts with their arguments and fills one in (2025 and 2026)", async () => {
    const { handler } = handlerWith();
    const list = (await json(await handler.fetch(legacy(1, "prompts/list")))).result;
    expect(list.prompts.map((p: { name: string }) => p.name)).toEqual(["ask", "review"]);
    expect(list.prompts[1]).toEqual({
      name: "review",
      description: "Review code",
      arguments: [{ name: "code", required: true }, { name: "style" }],
    });
    const params = { name: "review", arguments: { code: "x = 1" } };
    for (const request of [legacy(2, "prompts/get", params), named(3, "prompts/get", params)]) {
      const result = (await json(await handler.fetch(request))).result;
      expect(result.description).toBe("A review");
      expect(result.messages).toEqual([
        { role: "user", content: { type: "text", text: "Review (any): x = 1" } },
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: "docs://readme", mimeType: "text/markdown", text: "# Hello" },
          },
        },
      ]);
    }
  });

  it("refuses an unknown prompt, a missing required argument and a non-string one with -32602", async () => {
    const { handler } = handlerWith();
    for (const params of [
      { name: "nope" },
      { name: "review", arguments: {} },
      { name: "review", arguments: { code: 5 } },
    ]) {
      const body = await json(await handler.fetch(legacy(1, "prompts/get", params)));
      expect(body.error.code, JSON.stringify(params)).toBe(-32602);
    }
  });

  it("asks its question as input_required on 2026 and completes on the retry", async () => {
    const { handler } = handlerWith({ stateSecret: "s".repeat(32) });
    const capabilities = { elicitation: {} };
    const first = await json(
      await handler.fetch(named(1, "prompts/get", { name: "ask" }, capabilities)),
    );
    expect(first.result.resultType).toBe("input_required");
    const [key] = Object.keys(first.result.inputRequests);
    expect(first.result.inputRequests[key as string]).toMatchObject({
      method: "elicitation/create",
      params: { message: "Which topic?" },
    });
    const retry = {
      name: "ask",
      inputResponses: { [key as string]: { action: "accept", content: { topic: "owls" } } },
      requestState: first.result.requestState,
    };
    const done = await json(await handler.fetch(named(2, "prompts/get", retry, capabilities)));
    expect(done.result.resultType).toBe("complete");
    expect(done.result.messages[0].content.text).toBe("Write about owls");
    // The state is bound to the prompt it was issued for.
    const moved = await json(
      await handler.fetch(named(3, "prompts/get", { ...retry, name: "review" }, capabilities)),
    );
    expect(moved.error.code).toBe(-32602);
    // Without elicitation declared, the question is never sent.
    const refused = await handler.fetch(named(4, "prompts/get", { name: "ask" }));
    expect(refused.status).toBe(400);
    expect((await json(refused)).error.code).toBe(-32021);
  });

  it("asks its question on the request's stream on a 2025 session with interactionPolicy elicit", async () => {
    const { handler } = handlerWith({ sessions: "memory", interactionPolicy: "elicit" });
    const init = await handler.fetch(
      post(
        rpc(1, "initialize", {
          protocolVersion: "2025-11-25",
          capabilities: { elicitation: {} },
          clientInfo: { name: "c", version: "1" },
        }),
      ),
    );
    const session = init.headers.get("mcp-session-id") as string;
    const headers = { "mcp-protocol-version": "2025-11-25", "mcp-session-id": session };
    const answer = await handler.fetch(post(rpc(2, "prompts/get", { name: "ask" }), headers));
    const events = streamEvents(answer);
    const question = (await events.next()).value as Record<string, never>;
    expect(question).toMatchObject({ method: "elicitation/create" });
    await handler.fetch(
      post(
        {
          jsonrpc: "2.0",
          id: question.id,
          result: { action: "accept", content: { topic: "bats" } },
        },
        headers,
      ),
    );
    const final = (await events.next()).value as Record<string, never>;
    expect(final).toMatchObject({
      id: 2,
      result: { messages: [{ content: { text: "Write about bats" } }] },
    });
  });
});

describe("completion/complete", () => {
  it("completes prompt arguments and template variables, empty where there is no completer", async () => {
    const { handler } = handlerWith();
    const complete = async (params: Record<string, unknown>) =>
      (await json(await handler.fetch(legacy(1, "completion/complete", params)))).result;
    expect(
      await complete({
        ref: { type: "ref/prompt", name: "review" },
        argument: { name: "style", value: "s" },
      }),
    ).toEqual({ completion: { values: ["strict"], total: 1, hasMore: false } });
    expect(
      (
        await complete({
          ref: { type: "ref/resource", uri: "users://{id}/profile" },
          argument: { name: "id", value: "42" },
        })
      ).completion.values,
    ).toEqual(["42", "420"]);
    expect(
      (
        await complete({
          ref: { type: "ref/prompt", name: "review" },
          argument: { name: "code", value: "" },
        })
      ).completion.values,
    ).toEqual([]);
    const unknown = await json(
      await handler.fetch(
        legacy(2, "completion/complete", {
          ref: { type: "ref/prompt", name: "nope" },
          argument: { name: "x", value: "" },
        }),
      ),
    );
    expect(unknown.error.code).toBe(-32602);
  });
});

describe("subscriptions", () => {
  it("sends resources/updated to a 2025 session that subscribed, on its GET stream", async () => {
    const { handler } = handlerWith({ sessions: "memory" });
    const init = await handler.fetch(
      post(
        rpc(1, "initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "c", version: "1" },
        }),
      ),
    );
    expect((await json(init)).result.capabilities.resources.subscribe).toBe(true);
    const session = init.headers.get("mcp-session-id") as string;
    const headers = { "mcp-protocol-version": "2025-11-25", "mcp-session-id": session };
    const subscribed = await json(
      await handler.fetch(post(rpc(2, "resources/subscribe", { uri: "docs://readme" }), headers)),
    );
    expect(subscribed.result).toEqual({});
    const stream = await handler.fetch(
      new Request("http://127.0.0.1:3000/mcp", {
        method: "GET",
        headers: { accept: "text/event-stream", host: "127.0.0.1:3000", ...headers },
      }),
    );
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const events = streamEvents(stream);
    handler.resourceUpdated("docs://other");
    handler.resourceUpdated("docs://readme");
    expect((await events.next()).value).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "docs://readme" },
    });
    await handler.fetch(post(rpc(3, "resources/unsubscribe", { uri: "docs://readme" }), headers));
    handler.resourceUpdated("docs://readme");
    // Deleting the session ends its stream; nothing more arrived after the unsubscribe.
    await handler.fetch(
      new Request("http://127.0.0.1:3000/mcp", {
        method: "DELETE",
        headers: { host: "127.0.0.1:3000", ...headers },
      }),
    );
    expect((await events.next()).done).toBe(true);
  });

  it("acknowledges and delivers resource and prompt changes on a 2026 listen stream", async () => {
    const { handler } = handlerWith();
    const response = await handler.fetch(
      modern("L1", "subscriptions/listen", {
        notifications: {
          toolsListChanged: false,
          promptsListChanged: true,
          resourcesListChanged: true,
          resourceSubscriptions: ["docs://readme"],
        },
      }),
    );
    const events = streamEvents(response);
    expect((await events.next()).value).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: {
          promptsListChanged: true,
          resourcesListChanged: true,
          resourceSubscriptions: ["docs://readme"],
        },
      },
    });
    handler.toolsChanged();
    handler.resourceUpdated("docs://other");
    handler.resourceUpdated("docs://readme");
    handler.promptsChanged();
    handler.resourcesChanged();
    const tag = { [META_SUBSCRIPTION]: "L1" };
    expect((await events.next()).value).toMatchObject({
      method: "notifications/resources/updated",
      params: { uri: "docs://readme", _meta: tag },
    });
    expect((await events.next()).value).toMatchObject({
      method: "notifications/prompts/list_changed",
      params: { _meta: tag },
    });
    expect((await events.next()).value).toMatchObject({
      method: "notifications/resources/list_changed",
    });
    handler.close();
  });

  it("answers resources/subscribe on 2026 with 404 -32601 (removed in that revision)", async () => {
    const { handler } = handlerWith();
    const answer = await handler.fetch(modern(1, "resources/subscribe", { uri: "docs://readme" }));
    expect(answer.status).toBe(404);
  });
});
