// Our connectMcp against the official SDK's McpServer over Streamable HTTP on 127.0.0.1
// (design.md "Consuming MCP": listing, calls, progress, questions, cancellation, shutdown).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { InteractionResponse, isReadOnly, type Toolset } from "../../../src/index.ts";
import { jsonSchemaValidator } from "../../../src/json-schema/index.ts";
import { connectMcp } from "../../../src/mcp/index.ts";
import { caught } from "../../support/caught.ts";
import { type SdkMcpServer, startSdkMcpServer } from "../../support/sdk-mcp-server.ts";

const CITY_SCHEMA: {
  type: "object";
  properties: { city: { type: "string" } };
  required: string[];
} = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

interface Log {
  started: number;
  aborted: number;
}

function register(server: McpServer, log: Log): void {
  server.registerTool(
    "echo",
    {
      description: "Echoes a message",
      inputSchema: { message: z.string() },
      annotations: { readOnlyHint: true },
      _meta: { origin: "sdk" },
    },
    async ({ message }) => ({ content: [{ type: "text", text: message }], _meta: { echoed: 1 } }),
  );
  server.registerTool("fail", { description: "Fails as a tool", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: "no such record" }],
    isError: true,
    _meta: { code: "E404" },
  }));
  server.registerTool(
    "slow",
    { description: "Waits until cancelled", inputSchema: {} },
    async (_args, extra) => {
      log.started += 1;
      await new Promise<void>((resolve) =>
        extra.signal.addEventListener(
          "abort",
          () => {
            log.aborted += 1;
            resolve();
          },
          { once: true },
        ),
      );
      return { content: [{ type: "text", text: "stopped" }] };
    },
  );
  server.registerTool(
    "progress",
    { description: "Reports progress", inputSchema: {} },
    async (_args, extra) => {
      const progressToken = extra._meta?.progressToken;
      if (progressToken === undefined) return { content: [{ type: "text", text: "no token" }] };
      for (let progress = 1; progress <= 3; progress++) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress, total: 3, message: `step ${progress}` },
        });
      }
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  server.registerTool(
    "ask",
    { description: "Asks for a city", inputSchema: {} },
    async (_args, extra) => {
      const answer = await server.server.elicitInput(
        { message: "Which city?", requestedSchema: CITY_SCHEMA },
        { relatedRequestId: extra.requestId },
      );
      return { content: [{ type: "text", text: JSON.stringify(answer) }] };
    },
  );
}

let server: SdkMcpServer | undefined;
let toolset: Toolset | undefined;
let log: Log;

async function start(stateful = true): Promise<SdkMcpServer> {
  log = { started: 0, aborted: 0 };
  server = await startSdkMcpServer({ stateful, register: (s) => register(s, log) });
  return server;
}

afterEach(async () => {
  await toolset?.shutdown().catch(() => {});
  await server?.close();
  toolset = undefined;
  server = undefined;
});

describe("connectMcp against the SDK's McpServer", () => {
  it("lists the tools untrusted by default: hints shown, every capability assumed", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: `${sdk.url}?token=sk-query-secret`, namespace: "repo" });
    const echo = (await toolset.listTools()).find((t) => t.name === "repo__echo");
    expect(echo?.annotations.readOnlyHint).toBe(true);
    expect(echo && isReadOnly(echo)).toBe(false);
    expect(echo?.source).toEqual({ type: "mcp", origin: sdk.url, trusted: false });
    expect(echo?.capabilities).toEqual({
      privateData: true,
      untrustedInput: true,
      externalSend: true,
      destructive: true,
    });
  });

  it("lists the tools with namespaced names, trusted annotations, capabilities and metadata", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url, namespace: "repo", trustAnnotations: true });
    const tools = await toolset.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "repo__ask",
      "repo__echo",
      "repo__fail",
      "repo__progress",
      "repo__slow",
    ]);
    const echo = tools.find((t) => t.name === "repo__echo");
    expect(echo?.description).toBe("Echoes a message");
    expect(echo?.inputSchema.strictness).toBe("unspecified");
    expect(echo?.metadata).toEqual({ origin: "sdk" });
    expect(echo && isReadOnly(echo)).toBe(true);
    // No openWorldHint: MCP's default (open world) applies.
    expect(echo?.capabilities).toEqual({
      privateData: true,
      untrustedInput: true,
      externalSend: true,
      destructive: false,
    });
    const slow = tools.find((t) => t.name === "repo__slow");
    expect(slow && isReadOnly(slow)).toBe(false);
    expect(slow?.interactions.form).toBe(false);
  });

  it("calls the native name behind a namespaced one and keeps result metadata", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url, namespace: "repo" });
    const result = await toolset.call("repo__echo", { message: "hi" });
    expect(result).toEqual({
      content: [{ type: "text", text: "hi" }],
      isError: false,
      metadata: { echoed: 1 },
    });
    const [call] = sdk.messages("tools/call");
    expect(call?.params).toMatchObject({ name: "echo", arguments: { message: "hi" } });
    expect((await caught(toolset.toolHandler("echo"))).data).toEqual({
      type: "unknown_tool",
      name: "echo",
    });
  });

  it("sends clientInfo toolwire and advertises elicitation only with form interactions", async () => {
    const sdk = await start();
    toolset = await connectMcp({ protocol: "2025-11-25", url: sdk.url });
    const plain = sdk.servers[0]?.server;
    expect(plain?.getClientVersion()).toMatchObject({ name: "toolwire", version: "0.1.0" });
    expect(plain?.getClientCapabilities()?.elicitation).toBeUndefined();
    const [init] = sdk.messages("initialize");
    expect(init?.params).toMatchObject({ capabilities: {} });
    expect(init?.params).not.toHaveProperty("capabilities.elicitation");
    const withForms = await connectMcp({
      protocol: "2025-11-25",
      url: sdk.url,
      formInteractions: true,
    });
    const second = sdk.messages("initialize")[1];
    expect(second?.params).toMatchObject({ capabilities: { elicitation: {} } });
    expect(sdk.servers[1]?.server.getClientCapabilities()?.elicitation).toBeDefined();
    await withForms.shutdown();
  });

  it("rejects non-object and schema-invalid arguments before any request", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url, jsonSchemaValidator });
    const before = sdk.requests.length;
    const notObject = await caught(toolset.call("echo", [1, 2]));
    expect(notObject.type).toBe("invalid_arguments");
    const invalid = await caught(toolset.call("echo", { message: 42 }));
    expect(invalid.type).toBe("invalid_arguments");
    expect(invalid.tool).toBe("echo");
    expect(invalid.issues?.[0]?.path).toBe("/message");
    expect(sdk.requests.length).toBe(before);
    expect(sdk.messages("tools/call")).toHaveLength(0);
  });

  it("keeps a remote isError result as a completed result with its metadata", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url });
    const handler = await toolset.toolHandler("fail");
    const output = await handler.step({ type: "invoke", arguments: {} });
    expect(output).toEqual({
      type: "completed",
      result: {
        content: [{ type: "text", text: "no such record" }],
        isError: true,
        metadata: { code: "E404" },
      },
    });
    expect((await caught(handler.step({ type: "invoke", arguments: {} }))).type).toBe(
      "unsupported",
    );
  });

  it("times out with timeout{tool, timeoutMs} and tells the server", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url, requestTimeoutMs: 300 });
    const error = await caught(toolset.call("slow", {}));
    expect(error.data).toEqual({ type: "timeout", tool: "slow", timeoutMs: 300 });
    await vi.waitFor(() => expect(log.aborted).toBe(1));
    const [cancel] = sdk.messages("notifications/cancelled");
    const [call] = sdk.messages("tools/call");
    expect(cancel?.params).toMatchObject({ requestId: call?.id });
  });

  it("cancels through the call's AbortSignal: the server tool's signal aborts", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url });
    const controller = new AbortController();
    const running = toolset.call("slow", {}, { signal: controller.signal });
    await vi.waitFor(() => expect(log.started).toBe(1));
    controller.abort("the user pressed stop");
    const error = await caught(running);
    expect(error.data).toEqual({
      type: "cancelled",
      tool: "slow",
      reason: "the user pressed stop",
    });
    await vi.waitFor(() => expect(log.aborted).toBe(1));
    const [cancel] = sdk.messages("notifications/cancelled");
    expect(cancel?.params).toMatchObject({ reason: "the user pressed stop" });
  });

  it("cancels with a cancel step and on toolset shutdown", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url });
    const handler = await toolset.toolHandler("slow");
    const invoked = caught(handler.step({ type: "invoke", arguments: {} }));
    await vi.waitFor(() => expect(log.started).toBe(1));
    const cancel = await caught(handler.step({ type: "cancel", reason: "enough" }));
    expect(cancel.data).toEqual({ type: "cancelled", tool: "slow", reason: "enough" });
    expect((await invoked).type).toBe("cancelled");
    await vi.waitFor(() => expect(log.aborted).toBe(1));
    const second = caught(toolset.call("slow", {}));
    await vi.waitFor(() => expect(log.started).toBe(2));
    await toolset.shutdown();
    expect((await second).type).toBe("closed");
    expect(log.aborted).toBe(2);
    expect(sdk.messages("notifications/cancelled")).toHaveLength(2);
  });

  it("surfaces notifications/progress through onProgress", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url });
    const seen: unknown[] = [];
    const result = await toolset.call("progress", {}, { onProgress: (p) => seen.push(p) });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
  });

  it("maps elicitation to a form interaction and posts the answer back", async () => {
    const sdk = await start();
    toolset = await connectMcp({
      url: sdk.url,
      formInteractions: true,
      namespace: "geo",
      jsonSchemaValidator,
    });
    const [info] = (await toolset.listTools()).filter((t) => t.name === "geo__ask");
    expect(info?.interactions.form).toBe(true);
    const handler = await toolset.toolHandler("geo__ask");
    const asked = await handler.step({ type: "invoke", callId: "c1", arguments: {} });
    if (asked.type !== "interaction") throw new Error("expected an interaction");
    expect(asked.request).toMatchObject({
      toolName: "geo__ask",
      callId: "c1",
      prompt: "Which city?",
      kind: { type: "form", schema: CITY_SCHEMA, schemaValidation: true },
    });
    const wrong = await caught(
      handler.step({
        type: "interaction",
        response: InteractionResponse.submit("not-the-id", { city: "Oslo" }),
      }),
    );
    expect(wrong.type).toBe("invalid_interaction");
    const invalid = await caught(
      handler.step({
        type: "interaction",
        response: InteractionResponse.submit(asked.request.id, { town: "Oslo" }),
      }),
    );
    expect(invalid.type).toBe("invalid_interaction");
    const done = await handler.step({
      type: "interaction",
      response: InteractionResponse.submit(asked.request.id, { city: "Chicago" }),
    });
    expect(done).toEqual({
      type: "completed",
      result: {
        content: [{ type: "text", text: '{"action":"accept","content":{"city":"Chicago"}}' }],
        isError: false,
      },
    });
  });

  it("answers an interaction cancel with cancel and cancels the call upstream", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url, formInteractions: true });
    const handler = await toolset.toolHandler("ask");
    const asked = await handler.step({ type: "invoke", arguments: {} });
    if (asked.type !== "interaction") throw new Error("expected an interaction");
    const error = await caught(
      handler.step({
        type: "interaction",
        response: InteractionResponse.cancel(asked.request.id, "never mind"),
      }),
    );
    expect(error.data).toEqual({ type: "cancelled", tool: "ask", reason: "never mind" });
    const answers = sdk.requests
      .map((r) => r.body as { result?: unknown } | undefined)
      .filter((b) => b?.result !== undefined);
    expect(answers.map((b) => b?.result)).toEqual([{ action: "cancel" }]);
    expect(sdk.messages("notifications/cancelled")).toHaveLength(1);
  });

  it("sends decline through Toolset.call's onInteraction", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url, formInteractions: true });
    const result = await toolset.call(
      "ask",
      {},
      { onInteraction: async (request) => InteractionResponse.decline(request.id) },
    );
    expect(result.content).toEqual([{ type: "text", text: '{"action":"decline"}' }]);
  });

  it("without form interactions, an elicitation-needing tool fails as a tool", async () => {
    const sdk = await start();
    toolset = await connectMcp({ url: sdk.url });
    const result = await toolset.call("ask", {});
    expect(result.isError).toBe(true);
  });

  it("sends MCP-Protocol-Version, Mcp-Session-Id and caller headers, and DELETEs once", async () => {
    const sdk = await start();
    toolset = await connectMcp({
      protocol: "2025-11-25",
      url: sdk.url,
      headers: { authorization: "Bearer t0k3n" },
    });
    await toolset.call("echo", { message: "x" });
    await Promise.all([toolset.shutdown(), toolset.shutdown(), toolset.shutdown()]);
    await toolset.shutdown();
    const [first, ...rest] = sdk.requests;
    expect(first?.headers.get("mcp-protocol-version")).toBeNull();
    expect(first?.headers.get("mcp-session-id")).toBeNull();
    for (const request of sdk.requests) {
      expect(request.headers.get("authorization")).toBe("Bearer t0k3n");
    }
    for (const request of rest) {
      expect(request.headers.get("mcp-protocol-version")).toBe("2025-11-25");
      expect(request.headers.get("mcp-session-id")).toBeTruthy();
    }
    expect(sdk.requests.filter((r) => r.method === "DELETE")).toHaveLength(1);
    expect((await caught(toolset.listTools())).type).toBe("closed");
  });

  it("works against a stateless server: no session id, no DELETE", async () => {
    const sdk = await start(false);
    toolset = await connectMcp({ url: sdk.url });
    expect((await toolset.listTools()).length).toBe(5);
    expect((await toolset.call("echo", { message: "stateless" })).content).toEqual([
      { type: "text", text: "stateless" },
    ]);
    await toolset.shutdown();
    expect(sdk.requests.some((r) => r.headers.get("mcp-session-id") !== null)).toBe(false);
    expect(sdk.requests.filter((r) => r.method === "DELETE")).toHaveLength(0);
  });
});
