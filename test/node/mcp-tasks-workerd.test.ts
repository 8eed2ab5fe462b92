// MCP tasks across Workers isolates, in Miniflare: a task created through one Worker runs there
// beyond its request (`ctx.waitUntil`), is read and cancelled through another Worker that shares
// only the Durable Object holding the records, and the cancel reaches the running tool.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, COMPATIBILITY_DATE, workerFetch } from "../support/miniflare.ts";

let mf: Miniflare | undefined;

beforeAll(async () => {
  const modules = await bundleWorker(new URL("../workerd/mcp-tasks-worker.ts", import.meta.url));
  const store = { className: "TaskStore", scriptName: "store" };
  const worker = { modules, compatibilityDate: COMPATIBILITY_DATE };
  mf = new Miniflare({
    workers: [
      { name: "store", ...worker, durableObjects: { STORE: "TaskStore" } },
      { name: "a", ...worker, durableObjects: { STORE: store } },
      { name: "b", ...worker, durableObjects: { STORE: store } },
    ],
  });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

const EXT = "io.modelcontextprotocol/tasks";
let nextId = 1;

async function mcp(worker: string, method: string, params: Record<string, unknown>) {
  const fetcher = await workerFetch(mf as Miniflare, worker);
  const name = method === "tools/call" ? params.name : params.taskId;
  const response = await fetcher("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      "mcp-name": String(name),
    },
    body: JSON.stringify({
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
    }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: assertions read the wire loosely.
  return (await response.json()) as Record<string, any>;
}

async function aborted(worker: string): Promise<string[]> {
  const fetcher = await workerFetch(mf as Miniflare, worker);
  const response = await fetcher("http://127.0.0.1/aborted", { method: "GET" });
  return ((await response.json()) as { aborted: string[] }).aborted;
}

describe("a task kept in a Durable Object, across Workers", { timeout: 30_000 }, () => {
  it("is created on one Worker, read and cancelled on another, and the cancel reaches the tool", async () => {
    const created = await mcp("a", "tools/call", { name: "wait", arguments: {} });
    expect(created.result).toMatchObject({ resultType: "task", status: "working" });
    const taskId = created.result.taskId as string;
    const read = await mcp("b", "tasks/get", { taskId });
    expect(read.result).toMatchObject({ taskId, status: "working" });
    const ack = await mcp("b", "tasks/cancel", { taskId });
    expect(ack.result.resultType).toBe("complete");
    expect((await mcp("b", "tasks/get", { taskId })).result.status).toBe("cancelled");
    // Worker `a`, still running the tool, reads the cancel from the store at its next check.
    await expect
      .poll(async () => (await aborted("a")).length, { timeout: 10_000, interval: 100 })
      .toBe(1);
    expect((await aborted("a"))[0]).toContain("the task ended");
    expect(await aborted("b")).toEqual([]);
    expect((await mcp("a", "tasks/get", { taskId })).result.status).toBe("cancelled");
  });
});
