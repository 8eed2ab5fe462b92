// The official SDK v2 client (@modelcontextprotocol/client 2.4.0) with its Tasks package
// (@modelcontextprotocol/ext-tasks 0.2.2) against createMcpHandler serving tasks: the package
// sees the extension in `server/discover`, calls a task tool, polls the task to its result,
// and answers a task's question through its input handler. The SDK client's own wire codec
// rejects task traffic on 2026-07-28, so the package sends `tools/call` and `tasks/*` through
// the host's `rawDispatch` (here one POST each to the handler, with the standard headers).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  type RawClientDispatch,
  resultFromTaskOutcome,
} from "@modelcontextprotocol/ext-tasks/client";
import { afterEach, describe, expect, it } from "vitest";
import { Toolset } from "../../../src/index.ts";
import { createMcpHandler, type McpHandler, mcpTasks } from "../../../src/mcp/index.ts";
import { tasksTools } from "../../support/tasks-tools.ts";

const URL_ = "http://127.0.0.1:3000/mcp";
const VERSION = "2026-07-28";
const CLIENT_INFO = { name: "sdk-v2-client", version: "2.4.0" };
const CAPABILITIES = { elicitation: { form: {} } };
const closers: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => {})));
});

function server(): McpHandler {
  const { tools } = tasksTools();
  return createMcpHandler(Toolset.local([tools.report, tools.confirm]), {
    name: "tasks-interop",
    version: "1.0.0",
    tasks: mcpTasks({ pollIntervalMs: 20, checkIntervalMs: 20 }),
  });
}

// The host's request path for task traffic: one 2026 POST, headers from the framed message.
function rawDispatch(handler: McpHandler): RawClientDispatch {
  let next = 1;
  return async (request) => {
    const framed = request as { method: string; params?: Record<string, unknown> };
    const message = { jsonrpc: "2.0", id: `raw-${next++}`, ...framed };
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
      "mcp-method": message.method,
    };
    const name = message.method === "tools/call" ? message.params?.name : message.params?.taskId;
    if (typeof name === "string") headers["mcp-name"] = name;
    const response = await handler.fetch(
      new Request(URL_, { method: "POST", headers, body: JSON.stringify(message) }),
    );
    return (await response.json()) as Awaited<ReturnType<RawClientDispatch>>;
  };
}

async function session(handler: McpHandler) {
  const client = new Client(CLIENT_INFO, {
    capabilities: CAPABILITIES,
    versionNegotiation: { mode: { pin: VERSION } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(URL_), {
      fetch: (input, init) => handler.fetch(new Request(input, init)),
    }),
  );
  closers.push(() => client.close());
  const tasks = createTaskSessionFromClient(client, {
    endpointId: "toolwire-test",
    rawDispatch: rawDispatch(handler),
    v2RequestFraming: {
      protocolVersion: VERSION,
      clientInfo: CLIENT_INFO,
      clientCapabilities: CAPABILITIES,
    },
    // The one question these tools ask is a form; the handler's type is generic over the
    // request kind, which a plain function cannot name, hence the cast.
    onInputRequest: async () => ({ action: "accept", content: { ok: true } }) as never,
  });
  closers.push(() => tasks.close());
  return tasks;
}

describe("the SDK v2 client with ext-tasks", () => {
  it("calls a task tool and gets its result", async () => {
    const tasks = await session(server());
    const execution = await tasks.callTool("report", { topic: "tides" });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("completed");
    const result = resultFromTaskOutcome(outcome) as { content: { text: string }[] };
    expect(result.content[0]?.text).toBe("report on tides");
  });

  it("answers a task's question through its input handler", async () => {
    const tasks = await session(server());
    const execution = await tasks.callTool("confirm", {});
    const { outcome } = await execution.settle();
    const result = resultFromTaskOutcome(outcome) as { content: { text: string }[] };
    expect(result.content[0]?.text).toBe("went on");
  });
});
