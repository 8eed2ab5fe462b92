// The MCP Tasks extension served by `createMcpHandler` with `mcpTasks` (2026-07-28): a task tool
// called with the extension declared answers a handle at once and runs on; `tasks/get` reads it
// (working, input_required with every outstanding question, completed with the tool's result,
// failed with a JSON-RPC error), `tasks/update` answers questions, `tasks/cancel` reaches the
// tool's signal; tasks are bound to their caller, limited, bounded in size, and a task whose
// instance stopped ends `failed` once its lease lapses. 2025 sessions never get a task.
import { describe, expect, it } from "vitest";
import { Toolset } from "../../../src/index.ts";
import {
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
  type McpTasksOptions,
  mcpTasks,
} from "../../../src/mcp/index.ts";
import { memoryStore, type Store } from "../../../src/store/store.ts";
import { type TasksToolsSeen, tasksTools } from "../../support/tasks-tools.ts";
import { post, rpc } from "./fixture.ts";
import { json, modern, type Wire } from "./modern.ts";

const EXT = "io.modelcontextprotocol/tasks";
const WITH_TASKS = { elicitation: {}, extensions: { [EXT]: {} } };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

function setup(
  tasks: McpTasksOptions = {},
  options: Partial<McpHandlerOptions> = {},
): { handler: McpHandler; seen: TasksToolsSeen; store: Store } {
  const { tools, seen } = tasksTools();
  const store = tasks.store ?? memoryStore();
  const handler = createMcpHandler(Toolset.local(Object.values(tools)), {
    name: "tasks",
    version: "1.0.0",
    stateSecret: "a-test-secret-of-at-least-32-characters",
    ...options,
    tasks: mcpTasks({
      checkIntervalMs: 20,
      runAsTask: ({ tool, retry }) => tool.name !== "asks_then_task" || retry,
      ...tasks,
      store,
    }),
  });
  return { handler, seen, store };
}

let nextId = 1;

async function send(
  handler: McpHandler,
  method: string,
  params: Record<string, unknown>,
  options: { capabilities?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Wire }> {
  const headers: Record<string, string> = {};
  if (method.startsWith("tasks/") && typeof params.taskId === "string") {
    headers["mcp-name"] = params.taskId;
  }
  const response = await handler.fetch(
    modern(nextId++, method, params, {
      capabilities: options.capabilities ?? WITH_TASKS,
      headers: { ...headers, ...options.headers },
    }),
  );
  return { status: response.status, body: await json(response) };
}

async function create(handler: McpHandler, name: string, args: Record<string, unknown> = {}) {
  const { body } = await send(handler, "tools/call", { name, arguments: args });
  expect(body.result?.resultType).toBe("task");
  return body.result.taskId as string;
}

const getTask = async (handler: McpHandler, taskId: string) =>
  (await send(handler, "tasks/get", { taskId })).body;

/** Polls `tasks/get` until `done` holds (10 s at most, for a busy machine). */
async function until(
  handler: McpHandler,
  taskId: string,
  done: (result: Wire) => boolean,
): Promise<Wire> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const body = await getTask(handler, taskId);
    if (body.result && done(body.result)) return body.result;
    if (Date.now() > deadline) throw new Error(`task never got there: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const terminal = (result: Wire) => ["completed", "failed", "cancelled"].includes(result.status);

describe("server/discover", () => {
  it("lists the extension when tasks are served, and only then", async () => {
    const { handler } = setup();
    const { body } = await send(handler, "server/discover", {});
    expect(body.result.capabilities.extensions).toEqual({ [EXT]: {} });
    expect(body.result.capabilities).not.toHaveProperty("tasks");
    const bare = createMcpHandler(Toolset.local([]), { name: "b", version: "1" });
    const plain = await send(bare, "server/discover", {});
    expect(plain.body.result.capabilities).not.toHaveProperty("extensions");
  });
});

describe("a task tool called with the extension", () => {
  it("answers a flat handle, readable at once, that completes with the tool's result", async () => {
    const { handler, seen } = setup();
    const response = await handler.fetch(
      modern(
        1,
        "tools/call",
        { name: "quick", arguments: {} },
        {
          capabilities: WITH_TASKS,
        },
      ),
    );
    const handle = (await json(response)).result;
    expect(Object.keys(handle).sort()).toEqual(
      [
        "_meta",
        "createdAt",
        "lastUpdatedAt",
        "pollIntervalMs",
        "resultType",
        "status",
        "taskId",
        "ttlMs",
      ].sort(),
    );
    expect(handle).toMatchObject({ resultType: "task", status: "working" });
    expect(handle.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(handle.createdAt).toMatch(ISO);
    expect(handle.ttlMs).toBeGreaterThan(0);
    expect(handle.pollIntervalMs).toBeGreaterThan(0);
    const first = await getTask(handler, handle.taskId);
    expect(first.result.taskId).toBe(handle.taskId);
    expect(first.result.resultType).toBe("complete");
    const done = await until(handler, handle.taskId, terminal);
    expect(done.status).toBe("completed");
    expect(done.result).toEqual({
      content: [{ type: "text", text: "quick: done" }],
      isError: false,
      resultType: "complete",
    });
    expect(done).not.toHaveProperty("error");
    expect(done).not.toHaveProperty("inputRequests");
    // The tool reported progress; a task sends no notifications, so the handle was plain JSON.
    expect(seen.progressSent).toBe(1);
    expect(response.headers.get("content-type")).toContain("application/json");
  });

  it("completes a tool's isError result as completed, never failed", async () => {
    const { handler } = setup();
    const done = await until(handler, await create(handler, "tool_error"), terminal);
    expect(done.status).toBe("completed");
    expect(done.result.isError).toBe(true);
    expect(done.result.content[0].text).toBe("the tool failed");
  });

  it("fails with the JSON-RPC error the call would have answered, and a status message", async () => {
    const { handler } = setup();
    const done = await until(handler, await create(handler, "protocol_error"), terminal);
    expect(done.status).toBe("failed");
    expect(done.error).toMatchObject({ code: -32602, message: "Unknown tool: upstream" });
    expect(done.statusMessage).toBe("Unknown tool: upstream");
    expect(done).not.toHaveProperty("result");
  });

  it("gives the tool's result to an optional task tool called without the extension", async () => {
    const { handler } = setup();
    const { body } = await send(
      handler,
      "tools/call",
      { name: "quick", arguments: {} },
      { capabilities: {} },
    );
    expect(body.result).toMatchObject({
      resultType: "complete",
      content: [{ text: "quick: done" }],
    });
    expect(body.result).not.toHaveProperty("taskId");
  });

  it("never makes a task of a tool without taskSupport, even with the extension", async () => {
    const { handler } = setup();
    const { body } = await send(handler, "tools/call", { name: "plain", arguments: {} });
    expect(body.result).toMatchObject({ resultType: "complete", content: [{ text: "plain" }] });
  });

  it("refuses a required task tool without the extension: -32021 naming it, HTTP 400", async () => {
    const { handler } = setup();
    const { status, body } = await send(
      handler,
      "tools/call",
      { name: "only_task", arguments: {} },
      { capabilities: { elicitation: {} } },
    );
    expect(status).toBe(400);
    expect(body.error.code).toBe(-32021);
    expect(body.error.data).toEqual({ requiredCapabilities: { extensions: { [EXT]: {} } } });
  });
});

describe("tasks/cancel", () => {
  it("reaches the running tool's signal and ends the task cancelled", async () => {
    const { handler, seen } = setup();
    const taskId = await create(handler, "wait");
    const ack = await send(handler, "tasks/cancel", { taskId });
    expect(ack.body.result).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const done = await until(handler, taskId, terminal);
    expect(done.status).toBe("cancelled");
    await expect.poll(() => seen.aborted.length).toBe(1);
  });

  it("cancels a task whose client left while its record was written, and never runs it", async () => {
    // The record's first write waits until the client has gone.
    const memory = memoryStore();
    let writing = (_key: string) => {};
    const written = new Promise<string>((resolve) => {
      writing = resolve;
    });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store: Store = {
      ...memory,
      compareAndSet: async (key, expected, value, o) => {
        if (expected === undefined) {
          writing(key);
          await gate;
        }
        return memory.compareAndSet(key, expected, value, o);
      },
    };
    const { handler, seen } = setup({ store, maxRunningPerCaller: 1 });
    const client = new AbortController();
    const answered = handler.fetch(
      modern(
        nextId++,
        "tools/call",
        { name: "wait", arguments: {} },
        {
          capabilities: WITH_TASKS,
          signal: client.signal,
        },
      ),
    );
    const key = await written;
    const taskId = key.slice(key.lastIndexOf("/") + 1);
    client.abort();
    release();
    await answered;
    const task = (await getTask(handler, taskId)).result;
    expect(task.status).toBe("cancelled");
    expect(task.statusMessage).toBe("Cancelled: the client left before it got the task's handle");
    expect(seen.aborted).toEqual([]);
    // Its running slot is free again: the caller's one task may start.
    expect(await create(handler, "quick")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("acknowledges a cancel of a finished task and leaves it as it was", async () => {
    const { handler } = setup();
    const taskId = await create(handler, "quick");
    await until(handler, taskId, terminal);
    const ack = await send(handler, "tasks/cancel", { taskId });
    expect(ack.body.result.resultType).toBe("complete");
    expect((await getTask(handler, taskId)).result.status).toBe("completed");
  });
});

describe("questions inside a task", () => {
  it("lists every outstanding question, takes partial answers at once, and ignores unknown keys", async () => {
    const { handler } = setup();
    const taskId = await create(handler, "two_questions");
    const parked = await until(handler, taskId, (r) => r.status === "input_required");
    const keys = Object.keys(parked.inputRequests).sort();
    expect(keys).toEqual(["q0", "q1"]);
    expect(parked.inputRequests.q0).toMatchObject({
      method: "elicitation/create",
      params: { message: "First?" },
    });
    const unknown = await send(handler, "tasks/update", {
      taskId,
      inputResponses: { "unknown-key": { ignored: true } },
    });
    expect(unknown.body.result).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const ack = await send(handler, "tasks/update", {
      taskId,
      inputResponses: { q0: { action: "accept", content: { value: "a" } } },
    });
    expect(Object.keys(ack.body.result).sort()).toEqual(["_meta", "resultType"]);
    const partial = (await getTask(handler, taskId)).result;
    expect(partial.status).toBe("input_required");
    expect(Object.keys(partial.inputRequests)).toEqual(["q1"]);
    await send(handler, "tasks/update", {
      taskId,
      inputResponses: { q1: { action: "accept", content: { value: "b" } } },
    });
    // The third question repeats the first one's prompt, under a key never used before.
    const third = await until(
      handler,
      taskId,
      (r) => r.status === "input_required" && !("q1" in r.inputRequests),
    );
    expect(Object.keys(third.inputRequests)).toEqual(["q2"]);
    await send(handler, "tasks/update", {
      taskId,
      inputResponses: { q2: { action: "accept", content: { value: "c" } } },
    });
    const done = await until(handler, taskId, terminal);
    expect(done.result.content[0].text).toBe("a b c");
  });

  it("fails the task with -32021 for a question the creating request cannot answer", async () => {
    const { handler } = setup();
    const { body } = await send(
      handler,
      "tools/call",
      { name: "two_questions", arguments: {} },
      { capabilities: { extensions: { [EXT]: {} } } },
    );
    const done = await until(handler, body.result.taskId, terminal);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe(-32021);
    expect(done.error.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
  });

  it("acknowledges answers to a finished task and leaves it as it was", async () => {
    const { handler } = setup();
    const taskId = await create(handler, "quick");
    await until(handler, taskId, terminal);
    const ack = await send(handler, "tasks/update", {
      taskId,
      inputResponses: { q0: { action: "accept", content: {} } },
    });
    expect(ack.body.result.resultType).toBe("complete");
    expect((await getTask(handler, taskId)).result.status).toBe("completed");
  });

  it("continues a call whose first question was asked in the request as a task, with that answer", async () => {
    const { handler, seen } = setup();
    const round = await send(handler, "tools/call", { name: "asks_then_task", arguments: {} });
    expect(round.body.result.resultType).toBe("input_required");
    expect(round.body.result).not.toHaveProperty("taskId");
    const retry = await send(handler, "tools/call", {
      name: "asks_then_task",
      arguments: {},
      inputResponses: { q0: { action: "accept", content: { name: "Alice" } } },
      requestState: round.body.result.requestState,
    });
    expect(retry.body.result.resultType).toBe("task");
    expect(retry.body.result).not.toHaveProperty("requestState");
    expect(retry.body.result).not.toHaveProperty("inputRequests");
    const done = await until(handler, retry.body.result.taskId, terminal);
    expect(done.result.content[0].text).toBe("Hello Alice after 1 step");
    // The `ctx.once` effect of the first round was replayed, not run again.
    expect(seen.onceRuns).toBe(1);
  });
});

describe("the tasks/* methods", () => {
  it("refuse a request without the extension with -32021, before looking the id up", async () => {
    const { handler } = setup();
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const { status, body } = await send(
        handler,
        method,
        { taskId: "gate-test", inputResponses: {} },
        { capabilities: {} },
      );
      expect(status).toBe(400);
      expect(body.error.code).toBe(-32021);
      expect(body.error.data.requiredCapabilities.extensions[EXT]).toEqual({});
    }
  });

  it("answer an unknown id with -32602", async () => {
    const { handler } = setup();
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const { body } = await send(handler, method, { taskId: "nope", inputResponses: {} });
      expect(body.error.code).toBe(-32602);
    }
  });

  it("answer tasks/result and tasks/list as methods not found", async () => {
    const { handler } = setup();
    for (const method of ["tasks/result", "tasks/list"]) {
      const { status, body } = await send(handler, method, { taskId: "x" });
      expect(status).toBe(404);
      expect(body.error.code).toBe(-32601);
    }
  });

  it("refuse an Mcp-Name that is not the taskId with -32020", async () => {
    const { handler } = setup();
    const taskId = await create(handler, "quick");
    const { status, body } = await send(
      handler,
      "tasks/get",
      { taskId },
      { headers: { "mcp-name": "another" } },
    );
    expect(status).toBe(400);
    expect(body.error.code).toBe(-32020);
  });

  it("answer another caller's task as unknown, and leave it untouched", async () => {
    const { handler } = setup(
      {},
      { authorize: (request) => ({ subject: request.headers.get("x-user") ?? "nobody" }) },
    );
    const alice = { "x-user": "alice" };
    const created = await send(
      handler,
      "tools/call",
      { name: "wait", arguments: {} },
      { headers: alice },
    );
    const taskId = created.body.result.taskId as string;
    const bob = { headers: { "x-user": "bob" } };
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const { body } = await send(handler, method, { taskId, inputResponses: {} }, bob);
      expect(body.error.code).toBe(-32602);
    }
    const own = await send(handler, "tasks/get", { taskId }, { headers: alice });
    expect(own.body.result.status).toBe("working");
    await send(handler, "tasks/cancel", { taskId }, { headers: alice });
  });
});

/** Reads the JSON-RPC messages of an SSE answer as they arrive. */
function events(response: Response): () => Promise<Wire> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return async () => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trim())
          .join("\n");
        if (data !== "") return JSON.parse(data) as Wire;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended");
      buffer += decoder.decode(value, { stream: true });
    }
  };
}

describe("task status on subscriptions/listen", () => {
  it("sends each named task's snapshot as it changes, for the caller's own tasks", async () => {
    const { handler } = setup();
    const taskId = await create(handler, "wait");
    const controller = new AbortController();
    const response = await handler.fetch(
      new Request(
        modern(
          nextId++,
          "subscriptions/listen",
          {
            notifications: { taskIds: [taskId, "not-a-task"] },
          },
          { capabilities: WITH_TASKS },
        ),
        { signal: controller.signal },
      ),
    );
    const next = events(response);
    const ack = await next();
    expect(ack.method).toBe("notifications/subscriptions/acknowledged");
    expect(ack.params.notifications.taskIds).toEqual([taskId]);
    const first = await next();
    expect(first.method).toBe("notifications/tasks");
    expect(first.params).toMatchObject({ taskId, status: "working" });
    await send(handler, "tasks/cancel", { taskId });
    const cancelled = await next();
    expect(cancelled.params).toMatchObject({ taskId, status: "cancelled" });
    const { body } = await send(handler, "tasks/get", { taskId });
    const { resultType: _r, _meta: _m, ...snapshot } = body.result;
    const { _meta: tag, ...pushed } = cancelled.params;
    expect(pushed).toEqual(snapshot);
    expect(tag["io.modelcontextprotocol/subscriptionId"]).toBeDefined();
    controller.abort();
  });

  it("refuses task notifications without the extension: -32021", async () => {
    const { handler } = setup();
    const response = await handler.fetch(
      modern(
        nextId++,
        "subscriptions/listen",
        { notifications: { taskIds: ["x"] } },
        {
          capabilities: {},
        },
      ),
    );
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe(-32021);
  });
});

describe("limits", () => {
  it("refuses a task past maxRunningPerCaller and maxRunning, and admits again once one ends", async () => {
    const { handler } = setup(
      { maxRunning: 2, maxRunningPerCaller: 1 },
      {
        authorize: (request) => ({ subject: request.headers.get("x-user") ?? "nobody" }),
      },
    );
    const as = (user: string) => ({ headers: { "x-user": user } });
    const call = (user: string) =>
      send(handler, "tools/call", { name: "wait", arguments: {} }, as(user));
    const first = await call("a");
    expect(first.body.result.resultType).toBe("task");
    const again = await call("a");
    expect(again.body.error.code).toBe(-32000);
    expect(again.body.error.message).toContain("for this caller (the limit is 1)");
    expect((await call("b")).body.result.resultType).toBe("task");
    const third = await call("c");
    expect(third.body.error.message).toContain("Too many tasks running (the limit is 2)");
    await send(handler, "tasks/cancel", { taskId: first.body.result.taskId }, as("a"));
    await expect
      .poll(async () => (await call("c")).body.result?.resultType, { timeout: 10_000 })
      .toBe("task");
  });

  it("fails a task whose result would pass maxRecordBytes, saying so", async () => {
    const { handler } = setup({ maxRecordBytes: 2000 });
    const done = await until(handler, await create(handler, "huge"), terminal);
    expect(done.status).toBe("failed");
    expect(done.error.code).toBe(-32603);
    expect(done.error.message).toContain("maxRecordBytes (2000)");
  });
});

describe("an instance that stops", { timeout: 30_000 }, () => {
  it("leaves its task failed once the lease lapses, for a handler over the same store", async () => {
    const shared = memoryStore();
    // The first instance's writes stop reaching the store, as when its process dies.
    let dead = false;
    const dying: Store = {
      get: (key) => (dead ? Promise.reject(new Error("dead")) : shared.get(key)),
      put: (key, value, o) => shared.put(key, value, o),
      delete: (key) => shared.delete(key),
      compareAndSet: (key, expected, value, o) =>
        dead ? Promise.reject(new Error("dead")) : shared.compareAndSet(key, expected, value, o),
    };
    const first = setup({ store: dying, leaseMs: 300 });
    const taskId = await create(first.handler, "wait");
    dead = true;
    const restarted = setup({ store: shared, leaseMs: 300 });
    expect((await getTask(restarted.handler, taskId)).result.status).toBe("working");
    const done = await until(restarted.handler, taskId, terminal);
    expect(done.status).toBe("failed");
    expect(done.statusMessage).toContain("the instance running it stopped");
    // The cut-off instance stops the work itself once it could not renew its lease.
    await expect.poll(() => first.seen.aborted.length, { timeout: 10_000 }).toBe(1);
  });
});

describe("2025-11-25", () => {
  const call = (handler: McpHandler, name: string) =>
    handler.fetch(
      post(rpc(1, "tools/call", { name, arguments: {} }), {
        "mcp-protocol-version": "2025-11-25",
      }),
    );

  it("never answers a task: an optional task tool gives its result", async () => {
    const { handler } = setup();
    const body = await json(await call(handler, "tool_error"));
    expect(body.result).toMatchObject({ isError: true, content: [{ text: "the tool failed" }] });
    expect(body.result).not.toHaveProperty("taskId");
  });

  it("refuses a tool that runs only as a task with -32600", async () => {
    const { handler } = setup();
    const body = await json(await call(handler, "only_task"));
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain("2026-07-28");
  });
});
