// Our connectMcp against our createMcpHandler, in-process: the client's `fetch` is the
// handler's, so every byte goes through both real implementations with no socket between.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  defineTool,
  InteractionResponse,
  isReadOnly,
  isToolError,
  type ToolInteractionRequest,
  type ToolLog,
  type ToolProgress,
  ToolResult,
  Toolset,
} from "../../src/index.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
import { caught } from "../support/caught.ts";
import { roundTripServer } from "../support/round-trip-tools.ts";
import { fixtureHandler } from "./server/fixture.ts";

const URL_ = "http://localhost/mcp";

async function connected(
  options: Parameters<typeof roundTripServer>[0] & { clientValidation?: boolean } = {},
) {
  const { clientValidation = true, ...serverOptions } = options;
  const server = roundTripServer(serverOptions);
  const methods: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    methods.push(init?.method ?? "GET");
    return server.handler.fetch(input as string, init);
  };
  // Our own server: its annotations are believed, so read-only tools stay read-only.
  const toolset = await connectMcp({
    url: URL_,
    fetch,
    // Sessions exist only in the 2025 revisions; otherwise the default (`auto`) finds 2026.
    ...(options.sessions === "memory" ? { protocol: "2025-11-25" as const } : {}),
    formInteractions: true,
    trustAnnotations: true,
    ...(clientValidation ? { jsonSchemaValidator } : {}),
  });
  return { ...server, toolset, methods };
}

describe("MCP round trip: connectMcp → createMcpHandler", () => {
  it("works with the handler's own fetch as the client's transport", async () => {
    const { handler } = roundTripServer();
    const toolset = await connectMcp({ url: URL_, fetch: handler.fetch });
    expect((await toolset.call("echo", { message: "hi" })).content).toEqual([
      { type: "text", text: "echo: hi" },
    ]);
    await toolset.shutdown();
  });

  it("lists every tool with its schemas and read-only annotation", async () => {
    const { toolset } = await connected({ pageSize: 2 });
    const tools = await toolset.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["add", "ask", "echo", "fail", "wait", "work"]);
    const add = tools.find((tool) => tool.name === "add");
    expect(add?.description).toBe("Adds two numbers");
    expect(add?.outputSchema?.schema).toMatchObject({ properties: { sum: { type: "number" } } });
    expect(tools.filter(isReadOnly).map((tool) => tool.name)).toEqual(["add", "echo"]);
    await toolset.shutdown();
  });

  it("calls a tool; structuredContent and isError results come back as results", async () => {
    const { toolset } = await connected();
    expect((await toolset.call("echo", { message: "hi" })).content).toEqual([
      { type: "text", text: "echo: hi" },
    ]);
    const sum = await toolset.call("add", { a: 2, b: 3 });
    expect(sum.isError).toBe(false);
    expect(sum.structuredContent).toEqual({ sum: 5 });
    const failed = await toolset.call("fail", {});
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: "text", text: "record not found" }]);
    await toolset.shutdown();
  });

  it("refuses invalid arguments before sending, with the remote schema's issues", async () => {
    const { toolset, methods } = await connected();
    const sent = methods.length;
    const error = await caught(toolset.call("add", { a: "two", b: 3 }));
    expect(isToolError(error, "invalid_arguments")).toBe(true);
    expect(methods.length).toBe(sent);
    await toolset.shutdown();
  });

  it("without a jsonSchemaValidator, sends the arguments and the server refuses them", async () => {
    const { toolset, methods } = await connected({ clientValidation: false });
    const sent = methods.length;
    const result = await toolset.call("add", { a: "two", b: 3 });
    expect(methods.length).toBe(sent + 1);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("/a");
    await toolset.shutdown();
  });

  it("forwards progress and log messages while the tool runs", async () => {
    const { toolset } = await connected();
    const progress: ToolProgress[] = [];
    const logs: ToolLog[] = [];
    const result = await toolset.call(
      "work",
      { steps: 3 },
      { onProgress: (p) => progress.push(p), onLog: (log) => logs.push(log) },
    );
    expect(result.content).toEqual([{ type: "text", text: "worked 3" }]);
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(logs).toEqual(
      [1, 2, 3].map((n) => ({ level: "info", data: `step ${n}`, logger: "work" })),
    );
    await toolset.shutdown();
  });

  it("cancels: aborting the caller's signal fires the served tool's ctx.signal", async () => {
    const { toolset, observed } = await connected();
    const controller = new AbortController();
    const call = toolset.call("wait", {}, { signal: controller.signal });
    await observed.started;
    controller.abort("user pressed stop");
    expect(isToolError(await caught(call), "cancelled")).toBe(true);
    const reason = await observed.aborted;
    expect(isToolError(reason, "cancelled")).toBe(true);
    await toolset.shutdown();
  });

  it("maps elicitation to an interaction step and the answer back to the tool", async () => {
    const { toolset } = await connected();
    const result = await toolset.call(
      "ask",
      {},
      {
        onInteraction: async (request) => {
          expect(request.prompt).toBe("Your name?");
          expect(request.kind.type).toBe("form");
          return InteractionResponse.submit(request.id, { name: "Ada" });
        },
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "Hello Ada" }]);
    const declined = await toolset.call(
      "ask",
      {},
      { onInteraction: async (request) => InteractionResponse.decline(request.id) },
    );
    expect(declined.isError).toBe(true);
    await toolset.shutdown();
  });

  it("with sessions, shutdown ends the session with one DELETE", async () => {
    const { toolset, methods } = await connected({ sessions: "memory" });
    expect((await toolset.call("echo", { message: "s" })).isError).toBe(false);
    await Promise.all([toolset.shutdown(), toolset.shutdown()]);
    expect(methods.filter((method) => method === "DELETE")).toHaveLength(1);
  });
});

describe("MCP round trip: sampling", () => {
  const reply = {
    role: "assistant",
    content: { type: "text", text: "bonjour" },
    model: "host-model",
    stopReason: "endTurn",
  } as const;

  async function sampling(sessions: "stateless" | "memory", samplingInteractions: boolean) {
    const { handler } = fixtureHandler({ sessions, interactionPolicy: "elicit" });
    // The 2025 path, where a declined request reaches the tool; 2026 is in protocol-2026.test.ts.
    return connectMcp({
      url: URL_,
      fetch: handler.fetch,
      samplingInteractions,
      protocol: "2025-11-25",
    });
  }

  for (const sessions of ["stateless", "memory"] as const) {
    it(`a served tool's requestSampling reaches the caller's onInteraction (${sessions})`, async () => {
      const toolset = await sampling(sessions, true);
      const sample = (await toolset.listTools()).find((tool) => tool.name === "sample");
      expect(sample?.interactions.sampling).toBe(true);
      const asked: ToolInteractionRequest[] = [];
      const result = await toolset.call(
        "sample",
        { prompt: "Say hello in French" },
        {
          onInteraction: async (request) => {
            asked.push(request);
            return InteractionResponse.submit(request.id, reply);
          },
        },
      );
      expect(result.content).toEqual([{ type: "text", text: "host-model said bonjour (endTurn)" }]);
      expect(asked).toMatchObject([
        {
          toolName: "sample",
          prompt: "Say hello in French",
          kind: {
            type: "sampling",
            messages: [{ role: "user", content: { type: "text", text: "Say hello in French" } }],
            maxTokens: 50,
            systemPrompt: "Be brief.",
            temperature: 0.2,
            stopSequences: ["END"],
          },
        },
      ]);
      await toolset.shutdown();
    });
  }

  it("a caller's decline reaches the served tool as interaction_declined", async () => {
    const toolset = await sampling("memory", true);
    const result = await toolset.call(
      "sample",
      { prompt: "x" },
      { onInteraction: async (request) => InteractionResponse.decline(request.id, "no budget") },
    );
    expect(result.isError).toBe(false);
    expect(result.content).toEqual([
      {
        type: "text",
        text: "no sample: interaction for `sample` was declined: the client refused: User rejected sampling request: no budget",
      },
    ]);
    await toolset.shutdown();
  });

  it("with samplingInteractions off, a stateless server's request is refused and the tool sees a decline", async () => {
    const toolset = await sampling("stateless", false);
    const sample = (await toolset.listTools()).find((tool) => tool.name === "sample");
    expect(sample?.interactions.sampling).toBe(false);
    let asked = 0;
    const result = await toolset.call(
      "sample",
      { prompt: "x" },
      {
        onInteraction: async (request) => {
          asked += 1;
          return InteractionResponse.decline(request.id);
        },
      },
    );
    expect(asked).toBe(0);
    expect(result.isError).toBe(false);
    expect((result.content[0] as { text: string }).text).toMatch(
      /^no sample: .*declined.*sampling\/createMessage is not supported/,
    );
    await toolset.shutdown();
  });

  it("with samplingInteractions off, a session server never asks and the call fails as a tool error", async () => {
    const toolset = await sampling("memory", false);
    const result = await toolset.call("sample", { prompt: "x" });
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain(
      "did not declare the sampling capability",
    );
    await toolset.shutdown();
  });
});

describe("MCP round trip: content annotations", () => {
  it("audience, priority and lastModified travel both ways, in both revisions; ill-typed ones are dropped", async () => {
    const report = defineTool({
      name: "report",
      description: "Returns a note for the user and one for the model",
      readOnly: true,
      input: v.object({}),
      call: () =>
        ToolResult.of([
          {
            type: "text",
            text: "for you",
            annotations: { audience: ["user"], priority: 1, lastModified: "2026-12-01T00:00:00Z" },
          },
          { type: "text", text: "for the model", annotations: { audience: ["assistant"] } },
          // A foreign server could send anything; toolwire keeps only well-typed hints.
          {
            type: "text",
            text: "odd",
            annotations: { audience: ["robot"], priority: 7 } as never,
          },
        ]),
    });
    const handler = createMcpHandler(Toolset.local([report]), { name: "notes", version: "1" });
    for (const protocol of ["2025-11-25", "2026-07-28"] as const) {
      const remote = await connectMcp({ url: URL_, fetch: handler.fetch, protocol });
      const result = await remote.call("report", {});
      await remote.shutdown();
      expect(result.content.map((item) => item.annotations)).toEqual([
        { audience: ["user"], priority: 1, lastModified: "2026-12-01T00:00:00Z" },
        { audience: ["assistant"] },
        undefined,
      ]);
    }
  });
});

// Issue 22 item 7: a toolwire server over a connectMcp toolset (a gateway) whose upstream speaks
// 2026-07-28 must not list the upstream before every call, and must honour its `ttlMs`.
describe("MCP round trip: a gateway over a 2026-07-28 upstream", () => {
  async function gateway(cacheHints?: { ttlMs: number; cacheScope: "public" | "private" }) {
    const { handler: upstream } = fixtureHandler(cacheHints ? { cacheHints } : {});
    const methods: string[] = [];
    const counted: typeof globalThis.fetch = async (input, init) => {
      // The listen stream a fresh list opens (to hear of changes) is no request for the tools.
      const { method } = JSON.parse(String(init?.body));
      if (method !== "subscriptions/listen") methods.push(method);
      return upstream.fetch(input as string, init);
    };
    const remote = await connectMcp({ url: "http://127.0.0.1:3000/mcp", fetch: counted });
    const served = createMcpHandler(remote, { name: "gateway", version: "1" });
    const client = await connectMcp({ url: URL_, fetch: served.fetch });
    return { client, remote, methods };
  }

  it("sends each call upstream without listing the tools again", async () => {
    const { client, remote, methods } = await gateway();
    const before = methods.length;
    for (const message of ["a", "b", "c"]) {
      const result = await client.call("echo", { message });
      expect(result.content).toEqual([{ type: "text", text: `echo: ${message}` }]);
    }
    expect(methods.slice(before)).toEqual(["tools/call", "tools/call", "tools/call"]);
    await client.shutdown();
    await remote.shutdown();
  });

  it("lists upstream for a client's tools/list only once the upstream's ttlMs has passed", async () => {
    // ttlMs 0 (toolwire's default): stale at once, so every list of the client goes upstream.
    const fresh0 = await gateway();
    const before0 = fresh0.methods.length;
    await fresh0.client.listTools();
    await fresh0.client.listTools();
    expect(fresh0.methods.slice(before0)).toEqual(["tools/list", "tools/list"]);
    await fresh0.client.shutdown();
    await fresh0.remote.shutdown();
    // A minute: the list made at connect time serves every list of the client.
    const fresh60 = await gateway({ ttlMs: 60_000, cacheScope: "private" });
    expect(fresh60.methods).toEqual(["server/discover", "tools/list"]);
    await fresh60.client.listTools();
    await fresh60.client.listTools();
    await fresh60.client.call("echo", { message: "x" });
    expect(fresh60.methods).toEqual(["server/discover", "tools/list", "tools/call"]);
    await fresh60.client.shutdown();
    await fresh60.remote.shutdown();
  });
});
