import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { McpHandler, McpHandlerOptions } from "../../../src/mcp/index.ts";
import { fixtureHandler } from "./fixture.ts";

const URL_ = new URL("http://127.0.0.1:3000/mcp");
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
});

// The SDK's transport takes a `fetch`, so the official client drives our handler with no socket.
async function connect(
  handler: McpHandler,
  options: { elicitation?: boolean; sampling?: boolean } = {},
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(URL_, {
    fetch: (input, init) => handler.fetch(new Request(input, init)),
  });
  const capabilities = {
    ...(options.elicitation ? { elicitation: { form: {} } } : {}),
    ...(options.sampling ? { sampling: {} } : {}),
  };
  const client = new Client({ name: "sdk-client", version: "1.0.0" }, { capabilities });
  clients.push(client);
  await client.connect(transport);
  return client;
}

function setup(options: Partial<McpHandlerOptions> = {}) {
  return fixtureHandler(options);
}

describe("the official SDK client against createMcpHandler", () => {
  for (const sessions of ["stateless", "memory"] as const) {
    it(`initializes, lists and calls (${sessions})`, async () => {
      const client = await connect(setup({ sessions }).handler);
      expect(client.getServerVersion()).toMatchObject({ name: "fixture", version: "1.0.0" });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("echo");
      const result = await client.callTool({ name: "echo", arguments: { message: "hi" } });
      expect(result).toMatchObject({
        content: [{ type: "text", text: "echo: hi" }],
        isError: false,
      });
    });
  }

  it("resumes a call whose connections the server closes (ssePollMs, S23), losing no progress", async () => {
    const { handler } = setup({ sessions: "memory", ssePollMs: 20, sseRetryMs: 5 });
    const resumptions: string[] = [];
    const counting = {
      ...handler,
      fetch: (input: Request | string | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        const lastEventId = request.headers.get("last-event-id");
        if (lastEventId !== null) resumptions.push(lastEventId);
        return handler.fetch(request);
      },
    };
    const client = await connect(counting);
    const seen: number[] = [];
    const result = await client.callTool({ name: "slow", arguments: { steps: 40 } }, undefined, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(resumptions.length).toBeGreaterThan(0);
  });

  it("round-trips outputSchema and structuredContent (the SDK validates them)", async () => {
    const client = await connect(setup().handler);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === "add")?.outputSchema).toMatchObject({
      type: "object",
      properties: { sum: { type: "number" } },
    });
    const result = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    expect(result.structuredContent).toEqual({ sum: 3 });
  });

  it("preserves a tool's isError result", async () => {
    const client = await connect(setup().handler);
    const result = await client.callTool({ name: "fail", arguments: {} });
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "boom" }] });
  });

  it("delivers progress to onprogress", async () => {
    const client = await connect(setup().handler);
    const seen: number[] = [];
    const result = await client.callTool({ name: "slow", arguments: { steps: 3 } }, undefined, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(seen).toEqual([1, 2, 3]);
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
  });

  it("cancels: an aborted callTool fires our tool's ctx.signal", async () => {
    const { handler, observed } = setup({ sessions: "memory" });
    const client = await connect(handler);
    const controller = new AbortController();
    const call = client.callTool({ name: "wait", arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await observed.started;
    controller.abort("user pressed stop");
    await expect(call).rejects.toThrow();
    expect(String(await observed.aborted)).toContain("user pressed stop");
  });

  for (const sessions of ["stateless", "memory"] as const) {
    it(`maps elicitation accept/decline to the tool's form question (${sessions})`, async () => {
      const client = await connect(setup({ sessions, interactionPolicy: "elicit" }).handler, {
        elicitation: true,
      });
      const answers = [
        { action: "accept" as const, content: { name: "Ada" } },
        { action: "decline" as const },
      ];
      const messages: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        messages.push(request.params.message);
        return answers.shift() ?? { action: "cancel" as const };
      });
      const accepted = await client.callTool({ name: "ask", arguments: {} });
      expect(accepted.content).toEqual([{ type: "text", text: "Hello Ada" }]);
      const declined = await client.callTool({ name: "ask", arguments: {} });
      expect((declined.content as { text: string }[])[0]?.text).toMatch(/^no name: .*declined/);
      expect(messages).toEqual(["Your name?", "Your name?"]);
    });
  }

  it("maps a text question to a one-field form", async () => {
    const client = await connect(setup({ interactionPolicy: "elicit" }).handler, {
      elicitation: true,
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const schema = (request.params as { requestedSchema?: { required?: string[] } })
        .requestedSchema;
      expect(schema?.required).toEqual(["text"]);
      return { action: "accept" as const, content: { text: "hello" } };
    });
    const result = await client.callTool({ name: "ask_text", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "got hello" }]);
  });

  it("does not elicit from a session client that did not declare elicitation", async () => {
    const client = await connect(
      setup({ sessions: "memory", interactionPolicy: "elicit" }).handler,
    );
    const result = await client.callTool({ name: "ask_text", arguments: {} });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]?.text).toContain("elicitation capability");
  });

  for (const sessions of ["stateless", "memory"] as const) {
    it(`answers a tool's sampling request from the client's model (${sessions})`, async () => {
      const client = await connect(setup({ sessions, interactionPolicy: "elicit" }).handler, {
        sampling: true,
      });
      const asked: unknown[] = [];
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        asked.push(request.params);
        return {
          role: "assistant" as const,
          content: { type: "text" as const, text: "hi there" },
          model: "sdk-model",
          stopReason: "endTurn",
        };
      });
      const result = await client.callTool({ name: "sample", arguments: { prompt: "Greet" } });
      expect(result.content).toEqual([{ type: "text", text: "sdk-model said hi there (endTurn)" }]);
      expect(asked).toEqual([
        {
          messages: [{ role: "user", content: { type: "text", text: "Greet" } }],
          maxTokens: 50,
          systemPrompt: "Be brief.",
          temperature: 0.2,
          stopSequences: ["END"],
        },
      ]);
    });
  }

  it("a client that refuses sampling (an error) leaves the tool to carry on declined", async () => {
    const client = await connect(setup({ interactionPolicy: "elicit" }).handler, {
      sampling: true,
    });
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      throw new Error("User rejected sampling request");
    });
    const result = await client.callTool({ name: "sample", arguments: { prompt: "Greet" } });
    expect(result.isError).toBe(false);
    expect((result.content as { text: string }[])[0]?.text).toMatch(/^no sample: .*declined/);
  });

  it("does not ask a session client for sampling it did not declare", async () => {
    const client = await connect(
      setup({ sessions: "memory", interactionPolicy: "elicit" }).handler,
      { elicitation: true },
    );
    const result = await client.callTool({ name: "sample", arguments: { prompt: "Greet" } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]?.text).toContain("sampling capability");
  });

  it("ends a memory session on close (terminateSession → DELETE)", async () => {
    const { handler } = setup({ sessions: "memory" });
    const transport = new StreamableHTTPClientTransport(URL_, {
      fetch: (input, init) => handler.fetch(new Request(input, init)),
    });
    const client = new Client({ name: "c", version: "1" });
    await client.connect(transport);
    const id = transport.sessionId as string;
    expect(id).toBeTruthy();
    await transport.terminateSession();
    const after = await handler.fetch(
      new Request(URL_, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": id,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
      }),
    );
    expect(after.status).toBe(404);
    await client.close();
  });
});
