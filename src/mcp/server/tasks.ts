// The MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on 2026-07-28: a
// `tools/call` of a tool declared with `taskSupport`, from a request that declares the
// extension, is answered with a task handle once the task's record is in the store; the tool
// runs beyond the request on the instance that took it, and `tasks/get`, `tasks/update` and
// `tasks/cancel` read and change the record from whichever instance they reach. The record is
// the only shared state: the running instance holds a lease on it, renews it while it runs,
// and reads it for the client's answers and a cancel. Loaded only by `mcpTasks`, so a handler
// without tasks ships none of this. See `docs/design.md`, "Serving MCP", "Tasks".

import type { ToolInfo } from "../../declaration/tool-info.ts";
import { ToolError } from "../../errors.ts";
import type { CallJournal } from "../../execution/call-journal.ts";
import { createCallJournal } from "../../execution/call-journal.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { memoryStore, type Store } from "../../store/store.ts";
import { JSON_RPC_ERROR, jsonRpcError, jsonRpcResult } from "../json-rpc.ts";
import { MCP_ERROR, META, TASKS_EXTENSION, toMcpCallToolResult } from "../protocol.ts";
import {
  type Caller,
  type Core,
  failure,
  type Method,
  type Outcome,
  type Round,
  result,
  type Scope,
  serve,
  type TaskEngine,
  TOO_MANY_CALLS,
} from "./core.ts";
import { jsonAnswer } from "./http.ts";
import { answerOf, answerProblem, fingerprintOf } from "./mrtr.ts";
import type { McpTasks } from "./options.ts";
import { answerFrom, capabilityFor, questionFor } from "./questions.ts";
import { failureOutcome } from "./tools.ts";

/** What `mcpTasks` takes. */
export interface McpTasksOptions {
  /**
   * Where task records live; default `memoryStore()`, which serves one process (Node, Deno, a
   * single Durable Object). Several instances behind one endpoint need one store they all reach
   * with an atomic `compareAndSet` (a Durable Object's storage, Redis): a `tasks/get` may land on
   * any of them. Workers KV cannot compare and set, so it cannot hold tasks.
   */
  store?: Store;
  /** How long a task stays readable after it was created, in ms; default one hour. */
  ttlMs?: number;
  /** The poll interval suggested to clients, in ms; default 1 000. */
  pollIntervalMs?: number;
  /**
   * How long a running task's record stays claimed by the instance running it without a renewal,
   * in ms; default 30 000. A reader that finds a task `working` past its lease marks it `failed`
   * ("the instance running it stopped"): a task whose instance died or restarted ends.
   */
  leaseMs?: number;
  /**
   * How often the running instance reads its task's record (for a cancel or the client's
   * answers) and renews the lease when half of it has passed, in ms; default 200.
   */
  checkIntervalMs?: number;
  /** The most tasks this instance runs at once; one more is refused (`-32000`). Default 64. */
  maxRunning?: number;
  /** The most tasks one caller identity runs at once on this instance; default 16. */
  maxRunningPerCaller?: number;
  /**
   * The largest record, in bytes of JSON; a result (or questions) past it ends the task
   * `failed` with a message naming the limit. Default 1 MiB.
   */
  maxRecordBytes?: number;
  /**
   * Decides per call whether a tool declared `taskSupport: "optional"` runs as a task (a
   * `required` one always does); default: always. `retry` says the call carries answers of
   * earlier multi round-trip rounds, so a tool can ask its first questions in the request and
   * become a task once they are answered.
   */
  runAsTask?(call: { tool: ToolInfo; arguments: Record<string, unknown>; retry: boolean }): boolean;
}

/** What `mcpTasks` returns: `McpTasks` with the factory of each handler's engine. */
export interface TaskServing extends McpTasks {
  "~engine"(core: Core): TaskEngine;
}

/**
 * Creates the MCP Tasks extension for `createMcpHandler`'s `tasks`: tools declared with
 * `taskSupport` then run as tasks for 2026-07-28 clients that declare the extension.
 *
 * @param options The store, retention, lease and limits.
 * @returns The value to pass as `tasks`.
 * @throws ToolError `invalid_configuration` for a limit that is not a positive integer.
 * @example
 * ```ts
 * const report = defineTool({ name: "report", description: "Builds the report", taskSupport: "optional",
 *   input: v.object({}), call: async (_, ctx) => buildReport(ctx.signal) });
 * const handler = createMcpHandler(Toolset.local([report]), {
 *   name: "reports", version: "1.0.0", tasks: mcpTasks({ ttlMs: 3_600_000 }),
 * });
 * ```
 */
export function mcpTasks(options: McpTasksOptions = {}): McpTasks {
  const positive = (name: keyof McpTasksOptions, fallback: number): number => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
      throw new ToolError({
        type: "invalid_configuration",
        message: `mcpTasks \`${name}\` must be a positive integer`,
      });
    }
    return value;
  };
  const settings: Settings = {
    store: options.store ?? memoryStore(),
    ttlMs: positive("ttlMs", 3_600_000),
    pollIntervalMs: positive("pollIntervalMs", 1000),
    leaseMs: positive("leaseMs", 30_000),
    checkIntervalMs: positive("checkIntervalMs", 200),
    maxRunning: positive("maxRunning", 64),
    maxRunningPerCaller: positive("maxRunningPerCaller", 16),
    maxRecordBytes: positive("maxRecordBytes", 1024 * 1024),
    runAsTask: options.runAsTask,
  };
  const serving: TaskServing = {
    "~kind": "mcp_tasks",
    "~engine": (core) => createEngine(core, settings),
  };
  return serving;
}

interface Settings {
  readonly store: Store;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
  readonly checkIntervalMs: number;
  readonly maxRunning: number;
  readonly maxRunningPerCaller: number;
  readonly maxRecordBytes: number;
  readonly runAsTask: McpTasksOptions["runAsTask"];
}

/** A task's status; the last three are terminal and never change. */
type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** A JSON-RPC error as a failed task carries it. */
interface TaskErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/** One task as the store holds it (JSON). */
interface TaskRecord {
  taskId: string;
  /** The digest of the creating caller's identity: no one else reads or changes the task. */
  owner: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** Until when (epoch ms) the running instance holds the task; renewed while it runs. */
  lease: number;
  /** The outstanding questions, by key, as `{ method, params }`. */
  inputRequests?: Record<string, { method: string; params: unknown }>;
  /** Answers `tasks/update` stored, by key, not yet taken by the running instance. */
  answers?: Record<string, Record<string, unknown>>;
  result?: Record<string, unknown>;
  error?: TaskErrorBody;
}

const KEY_PREFIX = "toolwire/mcp-task/";

/** What the instance running a task keeps of it: its tool's controller. */
interface Running {
  readonly caller: string;
  readonly controller: AbortController;
}

function createEngine(core: Core, settings: Settings): TaskEngine {
  const { store, leaseMs, maxRecordBytes } = settings;
  const running = new Map<string, Running>();
  const perCaller = new Map<string, number>();
  const keyOf = (taskId: string) => KEY_PREFIX + taskId;
  const now = () => Date.now();

  // The store keeps a record until the task's retention ends, counted from its creation.
  const storeTtl = (record: TaskRecord) =>
    Math.max(1, Date.parse(record.createdAt) + record.ttlMs - now());

  /**
   * Changes a record with `compareAndSet`, reading it again on a conflict: `change` returns the
   * next record, or `undefined` to leave it. Returns the record as it now is (`undefined` when
   * there is none).
   */
  async function update(
    taskId: string,
    change: (record: TaskRecord) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined> {
    // Each lost race means another writer changed the record; past a few dozen something is
    // wrong with the store, and the caller reports it.
    for (let attempt = 0; attempt < 32; attempt++) {
      const text = await store.get(keyOf(taskId));
      if (text === undefined) return undefined;
      const record = JSON.parse(text) as TaskRecord;
      const next = change(record);
      if (next === undefined) return record;
      let nextText = JSON.stringify(next);
      // Characters first: a text within the limit in UTF-16 units may still be over it in bytes.
      const size = nextText.length * 3 <= maxRecordBytes ? 0 : encoder.encode(nextText).byteLength;
      if (size > maxRecordBytes) {
        // Too big to keep: the task fails, saying so, instead of the store refusing it.
        nextText = JSON.stringify(
          terminal(record, "failed", {
            error: {
              code: JSON_RPC_ERROR.internalError,
              message: `The task's record would be ${size} bytes, over the server's maxRecordBytes (${maxRecordBytes})`,
            },
          }),
        );
      }
      const ttlMs = storeTtl(next);
      if (await store.compareAndSet(keyOf(taskId), text, nextText, { ttlMs })) {
        return JSON.parse(nextText) as TaskRecord;
      }
    }
    throw new ToolError({
      type: "protocol",
      message: `task ${taskId}: the store's compareAndSet kept failing`,
    });
  }

  /**
   * Reads the caller's task: `undefined` for an unknown id or another caller's task (both
   * answered as unknown, so ids cannot be probed). A task still `working` past its lease is
   * marked `failed` first: the instance running it stopped.
   */
  async function read(taskId: unknown, caller: Caller): Promise<TaskRecord | undefined> {
    if (typeof taskId !== "string" || taskId === "") return undefined;
    const text = await store.get(keyOf(taskId));
    if (text === undefined) return undefined;
    const record = JSON.parse(text) as TaskRecord;
    if (record.owner !== (await ownerOf(caller.identity))) return undefined;
    if (TERMINAL.has(record.status) || record.lease >= now()) return record;
    return update(taskId, (current) =>
      TERMINAL.has(current.status) || current.lease >= now()
        ? undefined
        : terminal(current, "failed", {
            error: { code: JSON_RPC_ERROR.internalError, message: LEASE_LOST },
          }),
    );
  }

  const unknownTask = (taskId: unknown) =>
    failure(
      JSON_RPC_ERROR.invalidParams,
      `Task not found: ${typeof taskId === "string" ? taskId : "`taskId` must be a string"}`,
    );

  /** Answers `tasks/get`: the task as it is now, with its questions, result or error. */
  const getTask: Method = async (params, scope) => {
    const record = await read(params.taskId, scope.caller);
    if (!record) return unknownTask(params.taskId);
    return result(snapshot(record));
  };

  /**
   * Answers `tasks/update`: stores the answers to outstanding questions (others are ignored),
   * so the next `tasks/get` no longer lists them, and acknowledges with an empty result.
   */
  const updateTask: Method = async (params, scope) => {
    const responses = params.inputResponses;
    if (!isJsonObject(responses)) {
      return failure(JSON_RPC_ERROR.invalidParams, "tasks/update needs an `inputResponses` object");
    }
    const record = await read(params.taskId, scope.caller);
    if (!record) return unknownTask(params.taskId);
    await update(record.taskId, (current) => {
      const outstanding = current.inputRequests;
      if (TERMINAL.has(current.status) || !outstanding) return undefined;
      const answered = Object.entries(responses).filter(
        ([key, value]) => key in outstanding && isJsonObject(value),
      );
      if (answered.length === 0) return undefined;
      const inputRequests = { ...outstanding };
      const answers = { ...current.answers };
      for (const [key, value] of answered) {
        delete inputRequests[key];
        answers[key] = value as Record<string, unknown>;
      }
      const next: TaskRecord = { ...current, answers, lastUpdatedAt: isoNow() };
      if (Object.keys(inputRequests).length === 0) {
        next.status = "working";
        delete next.inputRequests;
      } else {
        next.inputRequests = inputRequests;
      }
      return next;
    });
    return result({});
  };

  /**
   * Answers `tasks/cancel`: a task not yet finished becomes `cancelled` at once and its tool is
   * aborted (here, or by its instance at its next check); a finished one is left as it is. The
   * answer is the same empty acknowledgement either way.
   */
  const cancelTask: Method = async (params, scope) => {
    const record = await read(params.taskId, scope.caller);
    if (!record) return unknownTask(params.taskId);
    await update(record.taskId, (current) =>
      TERMINAL.has(current.status)
        ? undefined
        : terminal(current, "cancelled", { statusMessage: "Cancelled by the client" }),
    );
    running.get(record.taskId)?.controller.abort("the task was cancelled");
    return result({});
  };

  // Slots taken (a task being created counts before it is in `running`).
  let admitted = 0;

  /** Takes a running slot for the caller, or says why not. */
  function admit(caller: string): (() => void) | string {
    if (admitted >= settings.maxRunning) {
      return `Too many tasks running (the limit is ${settings.maxRunning}); retry when one has finished`;
    }
    const held = perCaller.get(caller) ?? 0;
    if (held >= settings.maxRunningPerCaller) {
      return `Too many tasks running for this caller (the limit is ${settings.maxRunningPerCaller}); retry when one has finished`;
    }
    perCaller.set(caller, held + 1);
    admitted++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      admitted--;
      const left = (perCaller.get(caller) ?? 1) - 1;
      if (left > 0) perCaller.set(caller, left);
      else perCaller.delete(caller);
    };
  }

  /** Creates the task's record, starts its run, and answers the handle. */
  async function start(params: Record<string, unknown>, scope: Scope, prior: TaskPrior) {
    const { name, arguments: args = {} } = params;
    if (typeof name !== "string") {
      return failure(JSON_RPC_ERROR.invalidParams, "tools/call needs a string `name`");
    }
    if (!isJsonObject(args)) {
      return failure(JSON_RPC_ERROR.invalidParams, "tools/call `arguments` must be an object");
    }
    const owner = await ownerOf(scope.caller.identity);
    const release = admit(owner);
    if (typeof release === "string") return failure(TOO_MANY_CALLS, release);
    const at = isoNow();
    const record: TaskRecord = {
      taskId: crypto.randomUUID(),
      owner,
      status: "working",
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs: settings.ttlMs,
      pollIntervalMs: settings.pollIntervalMs,
      lease: now() + leaseMs,
    };
    let created: boolean;
    try {
      // The handle goes out only once `tasks/get` would find the task.
      created = await store.compareAndSet(keyOf(record.taskId), undefined, JSON.stringify(record), {
        ttlMs: record.ttlMs,
      });
    } catch (error) {
      release();
      scope.report(error, "request");
      return failure(JSON_RPC_ERROR.internalError, "Internal error: the task store failed");
    }
    if (!created) {
      release();
      return failure(JSON_RPC_ERROR.internalError, "Internal error: the task id was taken");
    }
    // The client left while the record was written: no one can learn the id to follow or
    // cancel the task, so it ends cancelled here and its tool never runs.
    if (scope.signal.aborted) {
      release();
      await update(record.taskId, (current) =>
        TERMINAL.has(current.status)
          ? undefined
          : terminal(current, "cancelled", { statusMessage: CLIENT_LEFT }),
      ).catch((error: unknown) => scope.report(error, "request"));
      return { type: "cancelled" } as const;
    }
    const controller = new AbortController();
    running.set(record.taskId, { caller: owner, controller });
    const work = run(record.taskId, name, args, scope, prior, controller)
      .catch((error: unknown) => scope.report(error, "tool"))
      .finally(() => {
        running.delete(record.taskId);
        release();
      });
    scope.waitUntil?.(work);
    const handle: Record<string, unknown> = { resultType: "task" };
    for (const key of HANDLE_FIELDS) handle[key] = record[key];
    return result(handle);
  }

  /**
   * Runs the task's tool on this instance: its questions go into the record and wait for the
   * answers `tasks/update` stores there; every `checkIntervalMs` the record is read for them
   * and for a cancel, and the lease renewed once half of it has passed; the outcome ends it.
   */
  async function run(
    taskId: string,
    name: string,
    args: Record<string, unknown>,
    scope: Scope,
    prior: TaskPrior,
    controller: AbortController,
  ): Promise<void> {
    const waiting = new Map<
      string,
      { request: ToolInteractionRequest; resolve(response: ToolInteractionResponse): void }
    >();
    const used = new Set<string>();
    let asked = 0;
    let stop: TaskErrorBody | undefined;
    let queued: Record<string, { method: string; params: unknown }> | undefined;
    let checking = false;
    // Questions whose earlier answers are still being looked up.
    let reading = 0;
    // Until when this instance holds the task, as last written.
    let held = now() + leaseMs;
    const questionKey = core.options.questionKey ?? defaultQuestionKey;

    const fail = (error: TaskErrorBody) => {
      stop ??= error;
      controller.abort(error.message);
    };
    // Questions asked together (`Promise.all`) reach the record in one write, so a client
    // never sees only some of them.
    const flush = async () => {
      const add = queued;
      queued = undefined;
      if (!add) return;
      const record = await update(taskId, (current) =>
        TERMINAL.has(current.status)
          ? undefined
          : {
              ...current,
              status: "input_required",
              inputRequests: { ...current.inputRequests, ...add },
              lastUpdatedAt: isoNow(),
            },
      );
      if (!record || TERMINAL.has(record.status)) controller.abort("the task ended");
    };
    const check = async () => {
      if (checking) return;
      checking = true;
      try {
        let taken: Record<string, Record<string, unknown>> = {};
        const record = await update(taskId, (current) => {
          taken = {};
          if (TERMINAL.has(current.status)) return undefined;
          const renew = current.lease - now() < leaseMs / 2;
          const answers = { ...current.answers };
          for (const [key, answer] of Object.entries(answers)) {
            if (!waiting.has(key)) continue;
            taken[key] = answer;
            delete answers[key];
          }
          if (!renew && Object.keys(taken).length === 0) return undefined;
          const next: TaskRecord = { ...current };
          if (renew) next.lease = now() + leaseMs;
          if (Object.keys(answers).length > 0) next.answers = answers;
          else delete next.answers;
          return next;
        });
        if (!record || TERMINAL.has(record.status)) {
          controller.abort(record ? "the task ended" : "the task's record is gone");
          return;
        }
        for (const [key, answer] of Object.entries(taken)) {
          const entry = waiting.get(key);
          if (!entry) continue;
          waiting.delete(key);
          entry.resolve(answerFrom(entry.request, jsonRpcResult(entry.request.id, answer)));
        }
        held = record.lease;
      } catch (error) {
        scope.report(error, "tool");
        // Past its lease without a renewal, the task counts as failed everywhere else: the work
        // stops here too rather than run on for no one.
        if (now() > held) controller.abort("the task's lease lapsed");
      } finally {
        checking = false;
      }
    };
    const timer = setInterval(() => void check(), settings.checkIntervalMs);

    const onInteraction = async (
      request: ToolInteractionRequest,
      signal: AbortSignal,
    ): Promise<ToolInteractionResponse> => {
      const index = asked++;
      reading++;
      let earlier: ToolInteractionResponse | undefined;
      try {
        earlier = await prior.answered(request, index);
      } finally {
        reading--;
      }
      if (earlier) return earlier;
      const capability = capabilityFor(request.kind);
      if (scope.capabilities && !scope.capabilities[capability]) {
        const required =
          capability === "elicitation" ? { elicitation: { form: {} } } : { [capability]: {} };
        fail({
          code: MCP_ERROR.missingClientCapability,
          message: `tool \`${request.toolName}\` asks for input, which needs the client capability ${JSON.stringify(required)}`,
          data: { requiredCapabilities: required },
        });
        throw new ToolError({
          type: "cancelled",
          tool: request.toolName,
          reason: "missing capability",
        });
      }
      // A key is never used twice in one task, whatever `questionKey` answers.
      let key = questionKey(request, index);
      if (used.has(key)) key = `${key}-${index}`;
      used.add(key);
      const question = questionFor(request, key, "2025-11-25");
      const answer = new Promise<ToolInteractionResponse>((resolve, reject) => {
        const cancelled = () => {
          waiting.delete(key);
          reject(
            new ToolError({ type: "cancelled", tool: request.toolName, reason: "the task ended" }),
          );
        };
        waiting.set(key, {
          request,
          resolve(response) {
            signal.removeEventListener("abort", cancelled);
            resolve(response);
          },
        });
        if (signal.aborted) cancelled();
        else signal.addEventListener("abort", cancelled, { once: true });
      });
      if (!queued) {
        queued = {};
        // Written once no other question is still being read (its fingerprint is a crypto
        // promise) and a macrotask passed.
        const later = () =>
          setTimeout(() => {
            if (reading > 0) return later();
            flush().catch((error: unknown) => scope.report(error, "tool"));
          }, 0);
        later();
      }
      queued[key] = { method: question.method, params: question.params };
      return answer;
    };

    let outcome: Outcome;
    try {
      const value = await core.toolset.call(name, args, {
        signal: controller.signal,
        auth: scope.caller.auth,
        onInteraction,
        "~journal": prior.journal,
      });
      outcome = result(toMcpCallToolResult(value));
    } catch (error) {
      outcome = controller.signal.aborted
        ? { type: "cancelled" }
        : failureOutcome(name, error, (hidden) => scope.report(hidden, "tool"));
    } finally {
      clearInterval(timer);
    }
    const stopped = stop;
    await update(taskId, (current) => {
      if (TERMINAL.has(current.status)) return undefined;
      if (stopped) return terminal(current, "failed", { error: stopped });
      switch (outcome.type) {
        case "result":
          // As the call would have answered on this revision: with its `resultType` (the SDK's
          // Tasks client reads the inlined result as a 2026 result and needs it).
          return terminal(current, "completed", {
            result: { ...outcome.result, resultType: "complete" },
          });
        case "error":
          return terminal(current, "failed", {
            error: errorBody(outcome.code, outcome.message, outcome.data),
          });
        default:
          return terminal(current, "cancelled", { statusMessage: "The task's work was cancelled" });
      }
    });
  }

  /** Whether a call of `tool` runs as a task, for a request that declared the extension. */
  const runsAsTask = (tool: ToolInfo, args: Record<string, unknown>, retry: boolean) =>
    tool.taskSupport === "required" ||
    (tool.taskSupport === "optional" &&
      (settings.runAsTask ? settings.runAsTask({ tool, arguments: args, retry }) : true));

  const methods: Partial<Record<string, Method>> = {
    "tasks/get": getTask,
    "tasks/update": updateTask,
    "tasks/cancel": cancelTask,
  };

  /**
   * Watches the caller's tasks among `taskIds` for a listen stream: sends each one's snapshot
   * (as `tasks/get` would answer it) when it first reads it and whenever it changes, until it
   * is finished; another caller's ids and unknown ones are left out of what it agrees to.
   */
  async function watch(
    taskIds: string[],
    caller: Caller,
    send: (snapshot: Record<string, unknown>) => void,
  ): Promise<{ taskIds: string[]; stop(): void }> {
    const watched = new Map<string, string>();
    for (const taskId of new Set(taskIds)) {
      if (await read(taskId, caller)) watched.set(taskId, "");
    }
    const agreed = [...watched.keys()];
    let reading = false;
    const check = async () => {
      if (reading) return;
      reading = true;
      try {
        for (const [taskId, last] of watched) {
          const record = await read(taskId, caller);
          if (!record) {
            watched.delete(taskId);
            continue;
          }
          const value = snapshot(record);
          const text = JSON.stringify(value);
          if (text !== last) send(value);
          if (TERMINAL.has(record.status)) watched.delete(taskId);
          else watched.set(taskId, text);
        }
      } catch {
        // A store that fails now may answer at the next check; the stream goes on.
      } finally {
        reading = false;
      }
      if (watched.size === 0) stop();
    };
    const timer = setInterval(() => void check(), settings.checkIntervalMs);
    // A listen stream must not keep a Node process alive on its own.
    (timer as { unref?: () => void }).unref?.();
    const stop = () => clearInterval(timer);
    void check();
    return { taskIds: agreed, stop };
  }

  return {
    async listen(message, headers, caller, send) {
      const asked = message.params?.notifications as { taskIds?: unknown } | undefined;
      const taskIds = asked?.taskIds;
      if (!declaresTasks(message.params?._meta)) {
        const why = `Task notifications need the client to declare the extension ${TASKS_EXTENSION}`;
        const error = jsonRpcError(
          message.id,
          MCP_ERROR.missingClientCapability,
          why,
          TASKS_REQUIRED,
        );
        return jsonAnswer(error, 400, headers);
      }
      if (!Array.isArray(taskIds) || taskIds.some((id) => typeof id !== "string")) {
        const why = "`notifications.taskIds` must be an array of task ids";
        return jsonAnswer(
          jsonRpcError(message.id, JSON_RPC_ERROR.invalidParams, why),
          200,
          headers,
        );
      }
      return watch(taskIds as string[], caller, send);
    },
    call(envelope, round, inputResponses, plain) {
      const { message, headers } = envelope;
      const params = message.params ?? {};
      const { name, arguments: args = {} } = params;
      // The declaration as last listed: the codec has just found it for the call's headers.
      const tool = typeof name === "string" ? core.tools.known(name) : undefined;
      if (tool?.taskSupport === undefined || !isJsonObject(args)) return plain();
      if (!declaresTasks(params._meta)) {
        if (tool.taskSupport !== "required") return plain();
        return jsonAnswer(
          jsonRpcError(
            message.id,
            MCP_ERROR.missingClientCapability,
            `Tool ${tool.name} runs only as a task, which needs the client to declare the extension ${TASKS_EXTENSION}`,
            TASKS_REQUIRED,
          ),
          400,
          headers,
        );
      }
      const retry = inputResponses !== undefined || params.requestState !== undefined;
      if (!runsAsTask(tool, args, retry)) return plain();
      const key = core.options.questionKey ?? defaultQuestionKey;
      const prior: TaskPrior = {
        // A call without earlier rounds has nothing to look up (and no fingerprint to take).
        answered: (question, index) =>
          round.answers.size === 0 && inputResponses === undefined
            ? Promise.resolve(undefined)
            : answeredInRound(round, inputResponses, key(question, index), question),
        // The task runs once, so its questions never replay it: the effects the rounds before
        // recorded are replayed, new ones just run.
        journal: createCallJournal({ entries: round.steps }),
      };
      return serve(core, envelope, (taskParams, scope) => start(taskParams, scope, prior));
    },
    extensions: { [TASKS_EXTENSION]: {} },
    request(envelope, name) {
      const { message, headers } = envelope;
      const fail = (code: number, why: string, data?: unknown) =>
        jsonAnswer(jsonRpcError(message.id, code, why, data), 400, headers);
      // `tasks/result` and `tasks/list` (2025 tasks) are gone from this revision.
      const method = methods[message.method];
      if (!method) {
        const error = jsonRpcError(
          message.id,
          JSON_RPC_ERROR.methodNotFound,
          `Method not found: ${message.method}`,
        );
        return jsonAnswer(error, 404, headers);
      }
      // The header lets a load balancer route by task; one that differs would mislead it.
      if (name === undefined || name !== message.params?.taskId) {
        return fail(
          MCP_ERROR.headerMismatch,
          name === undefined
            ? "Header mismatch: Mcp-Name is required"
            : "Header mismatch: Mcp-Name differs from the body's taskId",
        );
      }
      // The gate comes before the lookup: without the extension no id is even looked up.
      if (!declaresTasks(message.params?._meta)) {
        return fail(
          MCP_ERROR.missingClientCapability,
          `${message.method} needs the client to declare the extension ${TASKS_EXTENSION}`,
          TASKS_REQUIRED,
        );
      }
      return serve(core, envelope, method);
    },
    async legacyCall(envelope, plain) {
      const { message, headers } = envelope;
      const name = message.params?.name;
      const tool = typeof name === "string" ? await core.tools.find(name) : undefined;
      if (tool?.taskSupport !== "required") return plain();
      // 2025-11-25 has no -32021; its tasks text answers an unaugmented call of a task-only
      // tool with -32601, which reads as "tools/call not found", so -32600 says it better.
      return jsonAnswer(
        jsonRpcError(
          message.id,
          JSON_RPC_ERROR.invalidRequest,
          `Invalid Request: tool ${tool.name} runs only as an MCP task, which this server serves on protocol revision 2026-07-28 only`,
        ),
        200,
        headers,
      );
    },
  };
}

/** What the multi round-trip rounds before a task gathered, for the task's run to reuse. */
interface TaskPrior {
  /** The answer those rounds hold for the tool's `index`-th question, if any. */
  answered(
    question: ToolInteractionRequest,
    index: number,
  ): Promise<ToolInteractionResponse | undefined>;
  /** The journal of the rounds' `ctx.once` effects, replayed instead of run again. */
  readonly journal: CallJournal;
}

/**
 * The answer the rounds so far hold for a question under `key`, as the round's asker would
 * give it (an earlier round's answer to the same question, or this retry's to the question the
 * last round asked), or `undefined`.
 */
async function answeredInRound(
  round: Round,
  inputResponses: Record<string, unknown> | undefined,
  key: string,
  request: ToolInteractionRequest,
): Promise<ToolInteractionResponse | undefined> {
  const fingerprint = await fingerprintOf(request);
  const earlier = round.answers.get(key);
  if (earlier?.fingerprint === fingerprint) return answerOf(request, earlier.response);
  const given = inputResponses?.[key];
  const expected = round.pending.get(key);
  if (!isJsonObject(given) || (expected !== undefined && expected !== fingerprint))
    return undefined;
  return answerProblem(request, given) === undefined ? answerOf(request, given) : undefined;
}

function defaultQuestionKey(_question: ToolInteractionRequest, index: number): string {
  return `q${index}`;
}

/** The `data` of a `-32021` for a request that needs the Tasks extension. */
const TASKS_REQUIRED = { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } };

/** Whether a request's `_meta` capabilities declare the Tasks extension (this request's only). */
function declaresTasks(meta: unknown): boolean {
  const capabilities = isJsonObject(meta) ? meta[META.clientCapabilities] : undefined;
  return (
    isJsonObject(capabilities) &&
    isJsonObject(capabilities.extensions) &&
    isJsonObject(capabilities.extensions[TASKS_EXTENSION])
  );
}

const LEASE_LOST = "The task's work stopped: the instance running it stopped";
const CLIENT_LEFT = "Cancelled: the client left before it got the task's handle";

/** The fields of a handle, in the order the spec lists them. */
const HANDLE_FIELDS = [
  "taskId",
  "status",
  "createdAt",
  "lastUpdatedAt",
  "ttlMs",
  "pollIntervalMs",
] as const;

/** What `tasks/get` answers: the task and the part of its status (no owner, lease or answers). */
function snapshot(record: TaskRecord): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const key of HANDLE_FIELDS) value[key] = record[key];
  if (record.statusMessage !== undefined) value.statusMessage = record.statusMessage;
  switch (record.status) {
    case "input_required":
      value.inputRequests = record.inputRequests ?? {};
      break;
    case "completed":
      value.result = record.result;
      break;
    case "failed":
      value.error = record.error;
      break;
  }
  return value;
}

/** The record in a terminal status: nothing outstanding, the result or the error. */
function terminal(
  record: TaskRecord,
  status: "completed" | "failed" | "cancelled",
  end: { result?: Record<string, unknown>; error?: TaskErrorBody; statusMessage?: string },
): TaskRecord {
  const next: TaskRecord = { ...record, status, lastUpdatedAt: isoNow() };
  delete next.inputRequests;
  delete next.answers;
  delete next.result;
  delete next.error;
  if (end.result) next.result = end.result;
  if (end.error) next.error = end.error;
  const message = end.statusMessage ?? end.error?.message;
  if (message !== undefined) next.statusMessage = message;
  return next;
}

function errorBody(code: number, message: string, data: unknown): TaskErrorBody {
  return data === undefined ? { code, message } : { code, message, data };
}

function isoNow(): string {
  return new Date().toISOString();
}

const encoder = new TextEncoder();

/**
 * The owner recorded on a task: a digest of the caller's identity (which may hold a token), so
 * the store never keeps the identity itself; every anonymous caller is the same owner.
 */
async function ownerOf(identity: string | undefined): Promise<string> {
  if (identity === undefined) return "anonymous";
  const hash = await crypto.subtle.digest("SHA-256", encoder.encode(identity));
  let hex = "";
  for (const byte of new Uint8Array(hash)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
