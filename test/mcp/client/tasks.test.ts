// connectMcp calls tools that run as MCP tasks transparently, in both eras: the 2026-07-28
// Tasks extension (a `resultType: "task"` handle, `tasks/get` polling, `tasks/update` answers)
// and the 2025-11-25 task-augmented calls (`tasks/get`, then `tasks/result`). The behaviours are
// design.md M16 ("Consuming MCP") and docs/mcp.md "Tools that run as tasks".
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type CallOptions,
  InteractionResponse,
  type ToolInteractionRequest,
  type ToolLog,
  type ToolProgress,
  type Toolset,
} from "../../../src/index.ts";
import { connectMcp, createMcpHandler } from "../../../src/mcp/index.ts";
import { caught } from "../../support/caught.ts";
import {
  createFakeTaskServer,
  type FakeTask,
  type FakeTaskServer,
  type FakeTaskServerOptions,
} from "../../support/fake-task-server.ts";

const url = "http://127.0.0.1:3000/mcp";
const TASKS = "io.modelcontextprotocol/tasks";
const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

const done = (text: string, isError = false) => ({
  content: [{ type: "text", text }],
  isError,
});

async function connect(options: FakeTaskServerOptions, extra: { formInteractions?: boolean } = {}) {
  const server = createFakeTaskServer(options);
  const toolset = await connectMcp({
    url,
    fetch: server.fetch,
    protocol: options.era === "2026" ? "2026-07-28" : "2025-11-25",
    ...extra,
  });
  return { server, toolset };
}

// Finishes a task after `polls` polls with `result`.
const finishAfter =
  (polls: number, result: Record<string, unknown>, pollIntervalMs = 50) =>
  (task: FakeTask, poll: number) => {
    task.pollIntervalMs = pollIntervalMs;
    if (poll >= polls) {
      task.status = "completed";
      task.result = result;
    }
  };

/** Resolves once `server` has been sent `count` requests of `method`. */
async function sent(server: FakeTaskServer, method: string, count = 1): Promise<void> {
  while (server.sent(method).length < count) await new Promise((r) => setTimeout(r, 10));
}

/**
 * Calls `research` through `toolset` with a signal, aborts it once `ready` resolves (the call has
 * got as far as the test needs), and expects the call to fail as cancelled.
 *
 * @param toolset The connection to call through.
 * @param ready Resolves when the call is to be aborted.
 * @param options More options for the call, besides its signal.
 */
async function abortCall(
  toolset: Toolset,
  ready: () => Promise<unknown>,
  options: CallOptions = {},
): Promise<void> {
  const controller = new AbortController();
  const call = toolset.call("research", {}, { ...options, signal: controller.signal });
  await ready();
  controller.abort();
  expect((await caught(call)).type).toBe("cancelled");
}

afterEach(() => {
  vi.useRealTimers();
});

describe("connectMcp with 2026-07-28 tasks", () => {
  it("returns a task's result as the call's, declaring the extension and naming the task in headers", async () => {
    const { server, toolset } = await connect({
      era: "2026",
      onPoll: finishAfter(2, done("report on tides")),
    });
    const result = await toolset.call("research", { topic: "tides" });
    expect(result.content).toEqual([{ type: "text", text: "report on tides" }]);
    expect(result.isError).toBe(false);
    expect(server.tasks[0]?.arguments).toEqual({ topic: "tides" });

    const [call] = server.sent("tools/call");
    expect(call?.body.params?._meta[META_CAPABILITIES].extensions).toEqual({ [TASKS]: {} });
    const polls = server.sent("tasks/get");
    expect(polls).toHaveLength(2);
    for (const poll of polls) {
      expect(poll.body.params?._meta[META_CAPABILITIES].extensions).toEqual({ [TASKS]: {} });
      expect(poll.headers.get("mcp-method")).toBe("tasks/get");
      expect(poll.headers.get("mcp-name")).toBe("task-1");
      expect(poll.body.params?.taskId).toBe("task-1");
    }
    // Nothing but calls declares the extension: the listing did not.
    expect(server.sent("tools/list")[0]?.body.params?._meta[META_CAPABILITIES]).toEqual({});
    await toolset.shutdown();
    // A finished task is not cancelled at shutdown.
    expect(server.sent("tasks/cancel")).toEqual([]);
  });

  it("polls at once, then at each snapshot's pollIntervalMs, and every second when none is given", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const intervals = [300, 2000, undefined, undefined];
    const { server, toolset } = await connect({
      era: "2026",
      onCreate: (task) => {
        task.pollIntervalMs = 500;
      },
      onPoll: (task, poll) => {
        task.pollIntervalMs = intervals[poll - 1];
        if (poll === 5) {
          task.status = "completed";
          task.result = done("ok");
        }
        // A status change resets the default interval's growth.
        if (poll === 3) task.statusMessage = "halfway";
      },
    });
    const call = toolset.call("research", {});
    const created = Date.now();
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(call).resolves.toMatchObject({ content: [{ type: "text", text: "ok" }] });
    const gaps = server.sent("tasks/get").map((poll) => poll.at - created);
    // At once; then 300 (poll 1's hint), 2000 (poll 2's), 1000 (default), 1500 (default grown).
    expect(gaps).toEqual([0, 300, 2300, 3300, 4800]);
    await toolset.shutdown();
  });

  it("puts each question to onInteraction once across polls, several at once, and answers by tasks/update", async () => {
    const { server, toolset } = await connect({
      era: "2026",
      onCreate: (task) => {
        task.pollIntervalMs = 50;
        task.status = "input_required";
        task.inputRequests = {
          name: {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: "Your name?",
              requestedSchema: {
                type: "object",
                properties: { name: { type: "string" } },
                required: ["name"],
              },
            },
          },
          confirm: {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: "Go ahead?",
              requestedSchema: {
                type: "object",
                properties: { ok: { type: "boolean" } },
                required: ["ok"],
              },
            },
          },
        };
      },
      onUpdate: (task, responses) => {
        for (const key of Object.keys(responses)) delete task.inputRequests?.[key];
        if (Object.keys(task.inputRequests ?? {}).length === 0) {
          task.status = "completed";
          task.result = done(`answers: ${JSON.stringify(task.answers)}`);
        }
      },
    });
    const asked: ToolInteractionRequest[] = [];
    let release: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    const result = await toolset.call(
      "research",
      {},
      {
        onInteraction: async (request) => {
          asked.push(request);
          if (asked.length === 2) release();
          // Both questions are open together before either is answered.
          await both;
          // Several polls pass while the person thinks; neither question is asked twice.
          await new Promise((resolve) => setTimeout(resolve, 200));
          return request.prompt === "Your name?"
            ? InteractionResponse.submit(request.id, { name: "Ada" })
            : InteractionResponse.decline(request.id);
        },
      },
    );
    expect(asked.map((request) => request.prompt).sort()).toEqual(["Go ahead?", "Your name?"]);
    expect(server.sent("tasks/get").length).toBeGreaterThan(2);
    const updates = server.sent("tasks/update");
    expect(updates).toHaveLength(2);
    for (const update of updates) {
      expect(update.headers.get("mcp-name")).toBe("task-1");
      expect(update.body.params?._meta[META_CAPABILITIES].extensions).toEqual({ [TASKS]: {} });
    }
    const answers = Object.assign(
      {},
      ...updates.map((update) => update.body.params?.inputResponses),
    );
    expect(answers).toEqual({
      name: { action: "accept", content: { name: "Ada" } },
      confirm: { action: "decline" },
    });
    expect(result.content[0]).toMatchObject({ type: "text" });
    await toolset.shutdown();
  });

  it("sends a cancelled question as an ElicitResult, then cancels the call and its task", async () => {
    const { server, toolset } = await connect({
      era: "2026",
      onCreate: (task) => {
        task.pollIntervalMs = 50;
        task.status = "input_required";
        task.inputRequests = {
          go: {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: "Go?",
              requestedSchema: { type: "object", properties: { go: { type: "boolean" } } },
            },
          },
        };
      },
      onUpdate: (task, responses) => {
        task.answers.push(responses);
      },
    });
    const error = await caught(
      toolset.call(
        "research",
        {},
        { onInteraction: async (request) => InteractionResponse.cancel(request.id) },
      ),
    );
    expect(error.type).toBe("cancelled");
    await toolset.shutdown();
    expect(server.sent("tasks/update").map((entry) => entry.body.params?.inputResponses)).toEqual([
      { go: { action: "cancel" } },
    ]);
    expect(server.sent("tasks/cancel")).toHaveLength(1);
  });

  it("resolves to a completed task's isError result, as the tool's own failure", async () => {
    const { toolset } = await connect({
      era: "2026",
      onPoll: finishAfter(1, done("disk full", true)),
    });
    const result = await toolset.call("research", {});
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "disk full" }] });
    await toolset.shutdown();
  });

  it("fails with the protocol error a failed task carries, its code and message", async () => {
    const { toolset } = await connect({
      era: "2026",
      onPoll: (task) => {
        task.status = "failed";
        task.statusMessage = "rate limited";
        task.error = { code: -32603, message: "API rate limit exceeded" };
      },
    });
    const error = await caught(toolset.call("research", {}));
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("API rate limit exceeded");
    expect(error.message).toContain("-32603");
    await toolset.shutdown();
  });

  it("fails as cancelled when the server cancelled the task", async () => {
    const { toolset } = await connect({
      era: "2026",
      onPoll: (task) => {
        task.status = "cancelled";
      },
    });
    const error = await caught(toolset.call("research", {}));
    expect(error.type).toBe("cancelled");
    await toolset.shutdown();
  });

  it("fails as a lost task on -32602 and polls no more", async () => {
    const { server, toolset } = await connect({ era: "2026", lost: true });
    const error = await caught(toolset.call("research", {}));
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("task lost");
    expect(server.sent("tasks/get")).toHaveLength(1);
    expect(server.sent("tasks/cancel")).toEqual([]);
    await toolset.shutdown();
  });

  it("stops polling and sends tasks/cancel when the caller aborts, without waiting for it to end", async () => {
    const { server, toolset } = await connect({
      era: "2026",
      onPoll: (task) => {
        task.pollIntervalMs = 50;
      },
    });
    await abortCall(toolset, () => sent(server, "tasks/get", 2));
    await toolset.shutdown();
    const [cancel] = server.sent("tasks/cancel");
    expect(cancel?.body.params?.taskId).toBe("task-1");
    expect(cancel?.headers.get("mcp-name")).toBe("task-1");
    expect(cancel?.body.params?._meta[META_CAPABILITIES].extensions).toEqual({ [TASKS]: {} });
    const polls = server.sent("tasks/get").length;
    await new Promise((r) => setTimeout(r, 150));
    expect(server.sent("tasks/get")).toHaveLength(polls);
  });

  it("cancels the tasks it started when the connection shuts down", async () => {
    const { server, toolset } = await connect({
      era: "2026",
      onPoll: (task) => {
        task.pollIntervalMs = 50;
      },
    });
    const call = toolset.call("research", {});
    await sent(server, "tasks/get");
    await toolset.shutdown();
    expect((await caught(call)).type).toBe("closed");
    expect(server.sent("tasks/cancel").map((entry) => entry.body.params?.taskId)).toEqual([
      "task-1",
    ]);
    expect(server.tasks[0]?.status).toBe("cancelled");
  });

  it("cancels a stuck task that only lists questions already answered", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { server, toolset } = await connect({
      era: "2026",
      onCreate: (task) => {
        task.pollIntervalMs = 100;
        task.status = "input_required";
        task.inputRequests = {
          again: {
            method: "elicitation/create",
            params: {
              message: "Again?",
              requestedSchema: { type: "object", properties: { a: { type: "string" } } },
            },
          },
        };
      },
      // The server takes the answer and keeps listing the question.
      onUpdate: () => {},
    });
    const call = toolset.call(
      "research",
      {},
      { onInteraction: async (request) => InteractionResponse.submit(request.id, { a: "x" }) },
    );
    const outcome = caught(call);
    await vi.advanceTimersByTimeAsync(60 * 100 + 1000);
    const error = await outcome;
    expect(error.message).toContain("already answered");
    expect(server.sent("tasks/update")).toHaveLength(1);
    expect(server.sent("tasks/cancel")).toHaveLength(1);
    await toolset.shutdown();
  });

  it("gives a task up once its ttl has passed without an end", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const { server, toolset } = await connect({
      era: "2026",
      onCreate: (task) => {
        task.ttlMs = 5000;
        task.pollIntervalMs = 1000;
      },
    });
    const outcome = caught(toolset.call("research", {}));
    await vi.advanceTimersByTimeAsync(8000);
    const error = await outcome;
    expect(error.message).toContain("ttl");
    expect(server.sent("tasks/get").length).toBeLessThanOrEqual(6);
    await toolset.shutdown();
  });

  it("tells status messages through onLog as they change", async () => {
    const messages = ["Gathering sources", "Gathering sources", "Writing"];
    const { toolset } = await connect({
      era: "2026",
      onPoll: (task, poll) => {
        task.pollIntervalMs = 50;
        task.statusMessage = messages[poll - 1];
        if (poll === 3) {
          task.status = "completed";
          task.result = done("ok");
        }
      },
    });
    const logs: ToolLog[] = [];
    await toolset.call("research", {}, { onLog: (log) => logs.push(log) });
    expect(logs.map((log) => (log.data as { statusMessage: string }).statusMessage)).toEqual([
      "Gathering sources",
      "Writing",
    ]);
    await toolset.shutdown();
  });
});

describe("connectMcp with 2025-11-25 tasks", () => {
  it("lists a task-only tool and calls it task-augmented: tasks/get, then tasks/result", async () => {
    const { server, toolset } = await connect(
      {
        era: "2025",
        onCreate: (task) => {
          task.pollIntervalMs = 50;
          task.progress = [1, 2];
          task.result = done("researched");
        },
        onPoll: (task, poll) => {
          if (poll === 2) {
            task.status = "input_required";
            task.questions = [
              {
                method: "elicitation/create",
                params: {
                  message: "Which one?",
                  requestedSchema: {
                    type: "object",
                    properties: { pick: { type: "string" } },
                    required: ["pick"],
                  },
                },
              },
            ];
          }
        },
      },
      { formInteractions: true },
    );
    expect((await toolset.listTools()).map((tool) => tool.name)).toEqual(["echo", "research"]);
    const progress: ToolProgress[] = [];
    const result = await toolset.call(
      "research",
      { topic: "python" },
      {
        onProgress: (update) => progress.push(update),
        onInteraction: async (request) => InteractionResponse.submit(request.id, { pick: "snake" }),
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "researched" }]);
    const [call] = server.sent("tools/call");
    expect(call?.body.params?.task).toEqual({ ttl: expect.any(Number) });
    expect(server.sent("tasks/get")).toHaveLength(2);
    expect(server.sent("tasks/result")).toHaveLength(1);
    expect(server.tasks[0]?.answers).toEqual([
      { "task-1-q1": { action: "accept", content: { pick: "snake" } } },
    ]);
    expect(progress.map((update) => update.progress)).toEqual([1, 2]);
    await toolset.shutdown();
  });

  it("calls a tool without a task when the server does not declare task-augmented calls", async () => {
    const server = createFakeTaskServer({
      era: "2025",
      direct: (name) => (name === "echo" ? done("echoed") : undefined),
    });
    const toolset = await connectMcp({ url, fetch: server.fetch, protocol: "2025-11-25" });
    await toolset.call("echo", {});
    expect(server.sent("tools/call")[0]?.body.params?.task).toBeUndefined();
    await toolset.shutdown();
  });

  it("sends tasks/cancel when the caller aborts a 2025 task", async () => {
    const { server, toolset } = await connect({
      era: "2025",
      onPoll: (task) => {
        task.pollIntervalMs = 50;
      },
    });
    await abortCall(toolset, () => sent(server, "tasks/get"));
    await toolset.shutdown();
    expect(server.sent("tasks/cancel").map((entry) => entry.body.params?.taskId)).toEqual([
      "task-1",
    ]);
  });
});

// A `tools/call` aborted while its answer is on its way: the server may have made a task that
// only the handle names. `hold` puts a fetch in front of the fake that keeps each call's answer
// back until `release()`: "answer" keeps the whole response (as an in-process handler that does
// not watch the signal), "body" sends the headers at once and the body after release, erroring
// the body once the request's signal aborts, as a fetch does.
function hold(server: FakeTaskServer, mode: "answer" | "body") {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let answered = () => {};
  const headers = new Promise<void>((resolve) => {
    answered = resolve;
  });
  const signals: AbortSignal[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    if (body?.method !== "tools/call") return server.fetch(input, init);
    const signal = init?.signal ?? undefined;
    if (signal) signals.push(signal);
    const answer = await server.fetch(input, { ...init, signal: null });
    if (mode === "answer") {
      await released;
      return answer;
    }
    const text = await answer.text();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        signal?.addEventListener("abort", () => controller.error(signal.reason));
        void released.then(() => {
          if (signal?.aborted) return;
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        });
      },
    });
    answered();
    return new Response(stream, { status: answer.status, headers: answer.headers });
  };
  return { fetch: fetchImpl as typeof fetch, release, headers, signals };
}

describe("connectMcp when a 2026 call is aborted before its answer arrives", () => {
  async function connectHeld(mode: "answer" | "body") {
    const server = createFakeTaskServer({ era: "2026" });
    const held = hold(server, mode);
    const toolset = await connectMcp({ url, fetch: held.fetch, protocol: "2026-07-28" });
    return { server, held, toolset };
  }

  it("closes the request at once, and cancels the task its handle names when it comes", async () => {
    const { server, held, toolset } = await connectHeld("answer");
    await abortCall(toolset, () => sent(server, "tools/call"));
    // The abort closed the request, as a 2026 cancel does.
    expect(held.signals.map((signal) => signal.aborted)).toEqual([true]);
    held.release();
    await expect.poll(() => server.sent("tasks/cancel").length).toBe(1);
    const [cancel] = server.sent("tasks/cancel");
    expect(cancel?.body.params?.taskId).toBe("task-1");
    expect(cancel?.body.params?._meta[META_CAPABILITIES].extensions).toEqual({ [TASKS]: {} });
    expect(server.tasks[0]?.status).toBe("cancelled");
    // Followed only to be cancelled: never polled.
    expect(server.sent("tasks/get")).toEqual([]);
    await toolset.shutdown();
  });

  it("reads a handle whose body was still arriving at the abort, and cancels its task", async () => {
    const { server, held, toolset } = await connectHeld("body");
    // The caller does not wait for the body.
    await abortCall(toolset, async () => {
      await held.headers;
      await new Promise((r) => setTimeout(r, 10));
    });
    held.release();
    await expect.poll(() => server.sent("tasks/cancel").length).toBe(1);
    expect(server.sent("tasks/cancel")[0]?.body.params?.taskId).toBe("task-1");
    await toolset.shutdown();
  });
});

describe("connectMcp when an MRTR round ends in a task", () => {
  it("answers the round, then follows the task without carrying its keys or requestState", async () => {
    const { server, toolset } = await connect({
      era: "2026",
      direct: (_name, args) =>
        (args as { round?: number }).round === undefined && server.sent("tools/call").length === 1
          ? {
              resultType: "input_required",
              inputRequests: {
                user_name: {
                  method: "elicitation/create",
                  params: {
                    mode: "form",
                    message: "Name?",
                    requestedSchema: {
                      type: "object",
                      properties: { name: { type: "string" } },
                      required: ["name"],
                    },
                  },
                },
              },
              requestState: "opaque-1",
            }
          : undefined,
      onPoll: finishAfter(1, done("Hello, Alice")),
    });
    const result = await toolset.call(
      "research",
      {},
      {
        onInteraction: async (request) => InteractionResponse.submit(request.id, { name: "Alice" }),
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "Hello, Alice" }]);
    const calls = server.sent("tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[1]?.body.params).toMatchObject({
      inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
      requestState: "opaque-1",
    });
    const [poll] = server.sent("tasks/get");
    expect(poll?.body.params?.requestState).toBeUndefined();
    expect(poll?.body.params?.inputResponses).toBeUndefined();
    expect(server.sent("tasks/update")).toEqual([]);
    await toolset.shutdown();
  });
});

// A toolwire server over a connectMcp toolset (a gateway, examples/gateway): a remote task tool
// passes through as an ordinary tool, and a downstream cancel reaches the upstream task.
describe("a gateway in front of a task server", () => {
  async function gateway(options: FakeTaskServerOptions, era: "2026-07-28" | "2025-11-25") {
    const upstream = createFakeTaskServer(options);
    const remote = await connectMcp({ url, fetch: upstream.fetch, protocol: era });
    const served = createMcpHandler(remote, { name: "gateway", version: "1" });
    const client = await connectMcp({
      url: "http://localhost/mcp",
      fetch: served.fetch,
      protocol: era,
    });
    return { upstream, remote, client };
  }

  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    it(`serves the upstream task's result as the tool's (${era})`, async () => {
      const { upstream, remote, client } = await gateway(
        {
          era: era === "2026-07-28" ? "2026" : "2025",
          onPoll: finishAfter(2, done("via gateway")),
        },
        era,
      );
      expect((await client.listTools()).map((tool) => tool.name)).toContain("research");
      const result = await client.call("research", { topic: "tides" });
      expect(result.content).toEqual([{ type: "text", text: "via gateway" }]);
      expect(upstream.sent("tools/call")).toHaveLength(1);
      await client.shutdown();
      await remote.shutdown();
    });
  }

  it("cancels the upstream task when the downstream caller aborts", async () => {
    const { upstream, remote, client } = await gateway(
      {
        era: "2026",
        onPoll: (task) => {
          task.pollIntervalMs = 50;
        },
      },
      "2026-07-28",
    );
    await abortCall(client, () => sent(upstream, "tasks/get"));
    await sent(upstream, "tasks/cancel");
    expect(upstream.tasks[0]?.status).toBe("cancelled");
    await client.shutdown();
    await remote.shutdown();
  });
});

describe("a task followed again by its id (CallOptions['~task'])", () => {
  it("polls a recorded task from a fresh connection instead of calling the tool", async () => {
    const server = createFakeTaskServer({
      era: "2026",
      onPoll: (task, poll) => {
        task.pollIntervalMs = 50;
        if (poll >= 3) {
          task.status = "completed";
          task.result = done("finished meanwhile");
        }
      },
    });
    const first = await connectMcp({ url, fetch: server.fetch, protocol: "2026-07-28" });
    const recorded: unknown[] = [];
    await abortCall(first, () => sent(server, "tasks/get"), {
      "~task": { record: (ref) => void recorded.push(ref), detached: () => true },
    });
    await first.shutdown();
    // Detached: the task was left running.
    expect(server.sent("tasks/cancel")).toEqual([]);
    expect(recorded).toEqual([{ origin: url, protocol: "2026-07-28", taskId: "task-1" }]);

    const second = await connectMcp({ url, fetch: server.fetch, protocol: "2026-07-28" });
    const result = await second.call(
      "research",
      {},
      {
        "~task": {
          resume: recorded[0] as { origin: string; protocol: "2026-07-28"; taskId: string },
        },
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "finished meanwhile" }]);
    expect(server.sent("tools/call")).toHaveLength(1);
    await second.shutdown();
  });

  it("refuses to resume a task recorded on another server or era", async () => {
    const server = createFakeTaskServer({ era: "2026" });
    const toolset = await connectMcp({ url, fetch: server.fetch, protocol: "2026-07-28" });
    const elsewhere = {
      origin: "https://other.example/mcp",
      protocol: "2026-07-28",
      taskId: "t",
    } as const;
    const error = await caught(toolset.call("research", {}, { "~task": { resume: elsewhere } }));
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("not on this connection");
    const older = { origin: url, protocol: "2025-11-25", taskId: "t" } as const;
    expect((await caught(toolset.call("research", {}, { "~task": { resume: older } }))).type).toBe(
      "protocol",
    );
    expect(server.sent("tools/call")).toEqual([]);
    expect(server.sent("tasks/get")).toEqual([]);
    await toolset.shutdown();
  });
});

describe("polls that fail in transit, and 2025 failures", () => {
  it("tries a poll that failed in transit again, then goes on", async () => {
    const server = createFakeTaskServer({
      era: "2026",
      onCreate: (task) => {
        task.pollIntervalMs = 50;
      },
      onPoll: finishAfter(2, done("ok")),
    });
    let failed = 0;
    const flaky: typeof fetch = async (input, init) => {
      const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
      if (body?.method === "tasks/get" && failed < 2) {
        failed += 1;
        return new Response("busy", { status: 503 });
      }
      return server.fetch(input, init);
    };
    const toolset = await connectMcp({ url, fetch: flaky, protocol: "2026-07-28" });
    const result = await toolset.call("research", {});
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
    expect(failed).toBe(2);
    await toolset.shutdown();
  });

  it("fails with the JSON-RPC error tasks/result gives for a failed 2025 task", async () => {
    const { toolset } = await connect({
      era: "2025",
      onPoll: (task) => {
        task.status = "failed";
        task.error = { code: -32603, message: "backend down" };
      },
    });
    const error = await caught(toolset.call("research", {}));
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("backend down");
    await toolset.shutdown();
  });
});
