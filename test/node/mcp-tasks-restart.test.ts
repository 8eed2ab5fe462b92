// A stateless MCP server restarted mid-task: the process running a task is killed, and a new
// handler over the same Redis store (a real redis-server, Debian's package) reads the task as
// `working` until the dead instance's lease lapses, then as `failed`, saying why; a finished
// status then stays.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Toolset } from "../../src/index.ts";
import { createMcpHandler, type McpHandler, mcpTasks } from "../../src/mcp/index.ts";
import { redisStore } from "../../src/node/index.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { tasksTools } from "../support/tasks-tools.ts";

const root = join(import.meta.dirname, "../..");
const EXT = "io.modelcontextprotocol/tasks";
let redis: RedisServer | undefined;
let url = "";
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  url = redis.url;
}, 30_000);

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  redis?.stop();
});

/** Starts the fixture server in its own process; resolves with its URL and the process. */
async function startServer(prefix: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(root, "test/node/fixtures/tasks-server.ts"), url, prefix],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
  );
  closers.push(() => child.kill("SIGKILL"));
  const served = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.stdout?.on("data", (chunk: Buffer) => {
      const line = chunk.toString().trim();
      if (line.startsWith("http")) resolve(line);
    });
  });
  return { url: served, child };
}

let nextId = 1;

function body(method: string, params: Record<string, unknown>) {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { extensions: { [EXT]: {} } },
      },
    },
  });
}

function headers(method: string, name: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    "mcp-name": name,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: assertions read the wire loosely.
type Wire = Record<string, any>;

async function getTask(handler: McpHandler, taskId: string): Promise<Wire> {
  const response = await handler.fetch("http://127.0.0.1/mcp", {
    method: "POST",
    headers: headers("tasks/get", taskId),
    body: body("tasks/get", { taskId }),
  });
  return ((await response.json()) as Wire).result;
}

describe("a server restarted mid-task", { timeout: 60_000 }, () => {
  it("reports the task failed once the dead instance's lease lapses", async () => {
    const prefix = `restart-${Date.now()}:`;
    const first = await startServer(prefix);
    const created = await fetch(`${first.url}/mcp`, {
      method: "POST",
      headers: headers("tools/call", "wait"),
      body: body("tools/call", { name: "wait", arguments: {} }),
    });
    const handle = ((await created.json()) as Wire).result;
    expect(handle).toMatchObject({ resultType: "task", status: "working" });
    const exited = new Promise((resolve) => first.child.once("exit", resolve));
    first.child.kill("SIGKILL");
    await exited;

    // The restarted server: a new handler over the same store, none of the old one's memory.
    const store = redisStore({ url, prefix });
    closers.push(() => store.close());
    const restarted = createMcpHandler(Toolset.local([tasksTools().tools.wait]), {
      name: "tasks-server",
      version: "1.0.0",
      tasks: mcpTasks({ store, leaseMs: 1000 }),
    });
    let snapshot = await getTask(restarted, handle.taskId);
    expect(["working", "failed"]).toContain(snapshot.status);
    const deadline = Date.now() + 20_000;
    while (snapshot.status === "working" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      snapshot = await getTask(restarted, handle.taskId);
    }
    expect(snapshot.status).toBe("failed");
    expect(snapshot.error).toEqual({
      code: -32603,
      message: "The task's work stopped: the instance running it stopped",
    });
    // Terminal: a cancel is acknowledged and leaves it so.
    const cancel = await restarted.fetch("http://127.0.0.1/mcp", {
      method: "POST",
      headers: headers("tasks/cancel", handle.taskId),
      body: body("tasks/cancel", { taskId: handle.taskId }),
    });
    expect(((await cancel.json()) as Wire).result.resultType).toBe("complete");
    expect((await getTask(restarted, handle.taskId)).status).toBe("failed");
  });
});
