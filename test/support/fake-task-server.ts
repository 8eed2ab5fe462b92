// A small scripted MCP server that runs tool calls as tasks, as a `fetch` function (web
// standards only), speaking the wire docs/mcp.md "Tools that run as tasks" describes: the
// 2026-07-28 Tasks extension (flat handles, `tasks/get` with inlined results, `inputRequests`
// answered by `tasks/update`) or the 2025-11-25 experimental tasks (task-augmented
// `tools/call`, nested handles, `tasks/result`, questions on its stream). A test scripts each
// task through `onPoll` and reads every request it received.

const TASKS = "io.modelcontextprotocol/tasks";
const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

// What a request's params hold, read loosely: the fake trusts the client under test's shapes
// only as far as each assertion checks them.
// biome-ignore lint/suspicious/noExplicitAny: JSON params, read field by field
type Params = Record<string, any>;

/** One task the fake holds; a test changes it between polls. */
export interface FakeTask {
  taskId: string;
  tool: string;
  arguments: unknown;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  statusMessage?: string | undefined;
  pollIntervalMs?: number | undefined;
  ttlMs: number | null;
  /** 2026: the outstanding questions, by key. */
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  /** 2026 answers (`tasks/update`) and 2025 replies (to the questions on `tasks/result`). */
  answers: Record<string, unknown>[];
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  /** 2025: questions `tasks/result` sends on its stream before the result. */
  questions?: { method: string; params: Record<string, unknown> }[];
  /** 2025: progress values `tasks/result` sends first, on the call's progress token. */
  progress?: number[];
  progressToken?: unknown;
  /** How many `tasks/get` it has answered. */
  polls: number;
  cancelRequests: number;
}

/** One request the fake received. */
export interface FakeTaskRequest {
  headers: Headers;
  body: { id?: unknown; method?: string; params?: Params; result?: unknown };
  /** `Date.now()` when it arrived (a fake clock's time under fake timers). */
  at: number;
}

/** Options of `createFakeTaskServer`. */
export interface FakeTaskServerOptions {
  era: "2026" | "2025";
  /** Listed tools; default one task tool `research` (2025: `taskSupport: "required"`) and `echo`. */
  tools?: Record<string, unknown>[];
  /** Answers a `tools/call` without a task (the tool result), or returns nothing to make a task. */
  direct?(name: string, args: unknown): Record<string, unknown> | undefined;
  /** Sets up a new task (its first state); default `working`. */
  onCreate?(task: FakeTask): void;
  /** Moves a task along before each `tasks/get` answer (`poll` counts from 1). */
  onPoll?(task: FakeTask, poll: number): void;
  /** Takes a 2026 `tasks/update` (default: drops the answered keys, `working` once none is left). */
  onUpdate?(task: FakeTask, responses: Record<string, unknown>): void;
  /** 2026: answers `tasks/get` with `-32602` (a task the server lost). */
  lost?: boolean;
}

/** The fake server. */
export interface FakeTaskServer {
  fetch: typeof fetch;
  requests: FakeTaskRequest[];
  tasks: FakeTask[];
  /** The requests whose JSON-RPC method is `method`. */
  sent(method: string): FakeTaskRequest[];
}

const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json" },
  });

const now = () => new Date().toISOString();

/** Creates a scripted task server. */
export function createFakeTaskServer(options: FakeTaskServerOptions): FakeTaskServer {
  const modern = options.era === "2026";
  const requests: FakeTaskRequest[] = [];
  const tasks: FakeTask[] = [];
  // 2025: replies to the questions sent on a `tasks/result` stream, by request id.
  const waiting = new Map<string, (value: unknown) => void>();
  const tools = options.tools ?? [
    {
      name: "research",
      inputSchema: { type: "object", properties: { topic: { type: "string" } } },
      ...(modern ? {} : { execution: { taskSupport: "required" } }),
    },
    { name: "echo", inputSchema: { type: "object" } },
  ];
  const find = (params: Params | undefined) => tasks.find((task) => task.taskId === params?.taskId);
  const snapshot = (task: FakeTask) => {
    const base: Record<string, unknown> = {
      taskId: task.taskId,
      status: task.status,
      createdAt: now(),
      lastUpdatedAt: now(),
    };
    if (task.statusMessage !== undefined) base.statusMessage = task.statusMessage;
    if (modern) {
      base.ttlMs = task.ttlMs;
      if (task.pollIntervalMs !== undefined) base.pollIntervalMs = task.pollIntervalMs;
    } else {
      base.ttl = task.ttlMs;
      if (task.pollIntervalMs !== undefined) base.pollInterval = task.pollIntervalMs;
    }
    return base;
  };

  const answer = async (message: FakeTaskRequest["body"]): Promise<Response> => {
    const { id, method, params } = message;
    const ok = (result: Record<string, unknown>) =>
      json({ jsonrpc: "2.0", id, result: modern ? { resultType: "complete", ...result } : result });
    const fail = (code: number, text: string, status = modern ? 400 : 200) =>
      json({ jsonrpc: "2.0", id, error: { code, message: text } }, status);
    const declared = params?._meta?.[META_CAPABILITIES]?.extensions?.[TASKS] !== undefined;
    switch (method) {
      case "server/discover":
        return ok({
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {}, extensions: { [TASKS]: {} } },
          serverInfo: { name: "fake-tasks", version: "1" },
        });
      case "initialize":
        return json({
          jsonrpc: "2.0",
          id,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
            serverInfo: { name: "fake-tasks", version: "1" },
          },
        });
      case "tools/list":
        return ok({ tools });
      case "tools/call": {
        const direct = options.direct?.(params?.name, params?.arguments);
        if (direct) return ok(direct);
        if (modern && !declared) return fail(-32021, "the tool needs the Tasks extension");
        if (!modern && params?.task === undefined) return fail(-32601, "task-augmented only");
        const task: FakeTask = {
          taskId: `task-${tasks.length + 1}`,
          tool: params?.name,
          arguments: params?.arguments,
          status: "working",
          ttlMs: 60_000,
          answers: [],
          polls: 0,
          cancelRequests: 0,
          progressToken: params?._meta?.progressToken,
        };
        options.onCreate?.(task);
        tasks.push(task);
        return modern
          ? ok({ resultType: "task", ...snapshot(task) })
          : ok({ task: snapshot(task) });
      }
      case "tasks/get": {
        if (modern && !declared) return fail(-32021, "declare the Tasks extension");
        const task = find(params);
        if (!task || options.lost) return fail(-32602, "Task not found");
        task.polls += 1;
        options.onPoll?.(task, task.polls);
        const body = snapshot(task);
        if (modern) {
          if (task.status === "input_required") body.inputRequests = task.inputRequests ?? {};
          if (task.status === "completed") body.result = task.result;
          if (task.status === "failed") body.error = task.error;
        }
        return ok(body);
      }
      case "tasks/update": {
        const task = find(params);
        if (!task) return fail(-32602, "Task not found");
        const responses = params?.inputResponses ?? {};
        task.answers.push(responses);
        if (options.onUpdate) options.onUpdate(task, responses);
        else {
          for (const key of Object.keys(responses)) delete task.inputRequests?.[key];
          if (Object.keys(task.inputRequests ?? {}).length === 0) task.status = "working";
        }
        return ok({});
      }
      case "tasks/cancel": {
        const task = find(params);
        if (!task) return fail(-32602, "Task not found");
        task.cancelRequests += 1;
        const terminal = ["completed", "failed", "cancelled"].includes(task.status);
        if (!terminal) task.status = "cancelled";
        return ok(modern ? {} : snapshot(task));
      }
      case "tasks/result":
        return modern
          ? fail(-32601, "tasks/result is not part of 2026-07-28", 404)
          : result(id, params);
      default:
        return fail(-32601, `${method} not found`, modern ? 404 : 200);
    }
  };

  // 2025 `tasks/result`: the task's progress and questions on an event stream, each question's
  // reply awaited, then the result (or the task's JSON-RPC error).
  const result = (id: unknown, params: Params | undefined): Response => {
    const task = find(params);
    if (!task)
      return json({ jsonrpc: "2.0", id, error: { code: -32602, message: "Task not found" } });
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const send = (value: unknown) =>
          controller.enqueue(encoder.encode(`data: ${JSON.stringify(value)}\n\n`));
        for (const progress of task.progress ?? []) {
          send({
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: task.progressToken, progress },
          });
        }
        for (const [index, question] of (task.questions ?? []).entries()) {
          const qid = `${task.taskId}-q${index + 1}`;
          const replied = new Promise((resolve) => waiting.set(qid, resolve));
          send({
            jsonrpc: "2.0",
            id: qid,
            method: question.method,
            params: {
              ...question.params,
              _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } },
            },
          });
          task.answers.push({ [qid]: await replied });
        }
        task.questions = [];
        if (task.status === "input_required" || task.status === "working") {
          task.status = "completed";
        }
        if (task.error) send({ jsonrpc: "2.0", id, error: task.error });
        else send({ jsonrpc: "2.0", id, result: task.result ?? { content: [] } });
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };

  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.method === "GET") return new Response(null, { status: 405 });
    if (request.method === "DELETE") return new Response(null, { status: 200 });
    const body = JSON.parse(await request.text());
    requests.push({ headers: request.headers, body, at: Date.now() });
    if (body.method === undefined) {
      // A reply to a question asked on a `tasks/result` stream.
      waiting.get(String(body.id))?.(body.result ?? body.error);
      return new Response(null, { status: 202 });
    }
    if (body.id === undefined) return new Response(null, { status: 202 });
    return answer(body);
  };
  return {
    fetch: fetchImpl as typeof fetch,
    requests,
    tasks,
    sent: (method) => requests.filter((entry) => entry.body.method === method),
  };
}
