// A remote call that became an MCP task, followed to its end so the caller just gets the tool's
// result (docs/design.md, "Consuming MCP", "Tasks"). 2026-07-28 (the Tasks extension): poll
// `tasks/get` (at once, then every `pollIntervalMs`), answer its `inputRequests` through
// `tasks/update`, read the result inlined in the terminal snapshot. 2025-11-25 (task-augmented
// calls): poll `tasks/get`, and once the task waits for input or has ended, read `tasks/result`,
// on whose stream the server asks its questions. An abort sends `tasks/cancel` without waiting.
// `remote-handler.ts` loads this module on a call's first task handle, so a client whose servers
// never answer with one does not carry it.

import type { ToolName } from "../../declaration/tool-name.ts";
import { isToolError, ToolError } from "../../errors.ts";
import type { ToolLog } from "../../execution/handler-io.ts";
import type { RemoteTaskHook, RemoteTaskRef } from "../../execution/remote-task-hook.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { Observation } from "../../observer.ts";
import { excerpt } from "../../redaction.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import type { JsonRpcErrorObject, JsonRpcParams } from "../json-rpc.ts";
import {
  type McpSession,
  protocolError,
  reportedRpcError,
  rpcErrorOf,
  type ServerMessage,
  withDeadline,
} from "./mcp-session.ts";
import { TASKS_EXTENSION } from "./remote-tool.ts";
import { handleInputRequest, type ServerRequestFlags } from "./server-request.ts";

/** What following a task needs from the call that became one (`RemoteHandler`). */
export interface TaskHost {
  session: McpSession;
  toolName: ToolName;
  callId: string | undefined;
  /** What the call takes from the server (forms, sampling, roots). */
  flags: ServerRequestFlags;
  /** Each task request's own deadline (`requestTimeoutMs`). */
  timeoutMs: number;
  /** Aborts when the call ends from outside (cancel, timeout, shutdown). */
  signal: AbortSignal;
  parent: Observation | undefined;
  hook: RemoteTaskHook | undefined;
  /** 2025: a request or notification the server sent on a task request's stream. */
  onMessage(message: ServerMessage): void;
  /** 2026: puts one `inputRequests` entry to the caller, to be answered through `answer`. */
  ask(request: ToolInteractionRequest, key: string): void;
  /** The tool's result (a `CallToolResult`, as the server sent it). */
  done(result: Record<string, unknown>): void;
  fail(error: unknown): void;
  log(entry: ToolLog): void;
}

/** A task being followed. */
export interface FollowedTask {
  readonly ref: RemoteTaskRef;
  /** 2026: sends the caller's answer to one `inputRequests` key by `tasks/update`. */
  answer(key: string, value: Record<string, unknown>): Promise<void>;
}

// The poll interval when the server suggests none: 1 s, growing by half for every poll that
// finds nothing changed, up to 10 s. A server's own suggestion is kept within 50 ms and 60 s.
const DEFAULT_POLL_MS = 1000;
const MAX_DEFAULT_POLL_MS = 10_000;
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 60_000;
// A poll that fails in transit (network, 5xx, its deadline) is tried again this many times in
// a row, with the interval doubled each time, before the call fails.
const POLL_RETRIES = 3;
// A task that only lists questions already answered, poll after poll, is stuck: after this
// many such polls it is cancelled and the call fails (the C# SDK's figure).
const MAX_STUCK_POLLS = 60;

/**
 * Returns a task handle's reference, or a phrase saying why the answer is no handle: the flat
 * 2026 `CreateTaskResult`, or the 2025 `{ task: { taskId, … } }`.
 */
export function taskRefOf(
  created: Record<string, unknown>,
  session: McpSession,
): RemoteTaskRef | string {
  const task = session.modern ? created : created.task;
  const taskId = isJsonObject(task) ? task.taskId : undefined;
  if (typeof taskId !== "string" || taskId === "") return "a task handle without a `taskId`";
  return {
    origin: session.origin,
    protocol: session.modern ? "2026-07-28" : "2025-11-25",
    taskId,
  };
}

/**
 * Follows the task `ref` until it ends, reporting to `host`. `created` is the handle's snapshot
 * (absent when resuming a task an earlier run recorded). Aborting `host.signal` sends
 * `tasks/cancel` (unless the host detached the call) and stops polling.
 */
export function followTask(
  host: TaskHost,
  ref: RemoteTaskRef,
  created?: Record<string, unknown>,
): FollowedTask {
  const { session, signal } = host;
  // Settled tasks need no cancel: ended, lost, or cancelled already.
  let settled = false;
  const capabilities = session.modern ? { extensions: { [TASKS_EXTENSION]: {} } } : undefined;
  const cancel = () => {
    if (settled) return;
    settled = true;
    void session.cancelTask(ref.taskId, host.toolName, capabilities);
  };
  const onAbort = () => {
    if (host.hook?.detached?.() === true) settled = true;
    else cancel();
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  const request = (method: string, params: JsonRpcParams, onMessage = false) =>
    withDeadline(
      method,
      host.timeoutMs,
      (inner) =>
        session.request(session.newRequestId(), method, params, {
          signal: inner,
          label: host.toolName,
          parent: host.parent,
          ...(capabilities ? { capabilities } : {}),
          ...(onMessage ? { onMessage: host.onMessage } : {}),
        }),
      signal,
    );
  const run = async () => {
    await host.hook?.record?.(ref);
    if (session.modern) await poll2026(host, ref, request, created, cancel);
    else await poll2025(host, ref, request, created);
  };
  void run()
    .catch((error: unknown) => {
      if (signal.aborted) return;
      const code = rpcErrorOf(error)?.code;
      // The task is gone (never existed here, expired, purged): nothing left to cancel.
      if (code === -32602) {
        settled = true;
        const message = `${host.toolName}: the server no longer knows task ${shown(session, ref.taskId)} (task lost)`;
        return host.fail(protocolError(message));
      }
      cancel();
      host.fail(error);
    })
    .finally(() => {
      settled = true;
      signal.removeEventListener("abort", onAbort);
    });
  return {
    ref,
    answer: async (key, value) => {
      await request("tasks/update", { taskId: ref.taskId, inputResponses: { [key]: value } });
    },
  };
}

type TaskRequest = (
  method: string,
  params: JsonRpcParams,
  onMessage?: boolean,
) => Promise<Record<string, unknown>>;

// 2026-07-28: poll until a terminal status. Each `inputRequests` key is put to the caller once
// over the task's life; the caller's answers go out by `tasks/update` as they come.
async function poll2026(
  host: TaskHost,
  ref: RemoteTaskRef,
  request: TaskRequest,
  created: Record<string, unknown> | undefined,
  cancel: () => void,
): Promise<void> {
  const asked = new Set<string>();
  const poller = createPoller(host, ref, created);
  let stuck = 0;
  for (;;) {
    const snapshot = await poller.next(() => request("tasks/get", { taskId: ref.taskId }));
    switch (snapshot.status) {
      case "working":
        stuck = 0;
        continue;
      case "input_required": {
        const requests = host.session.scrubValue(snapshot.inputRequests);
        if (!isJsonObject(requests)) {
          throw protocolError(`${host.toolName}: an input_required task gave no \`inputRequests\``);
        }
        const fresh = Object.keys(requests).filter((key) => !asked.has(key));
        if (fresh.length === 0) {
          if (++stuck >= MAX_STUCK_POLLS) {
            cancel();
            throw protocolError(
              `${host.toolName}: the task asked only questions already answered for ${MAX_STUCK_POLLS} polls; it was cancelled`,
            );
          }
          continue;
        }
        stuck = 0;
        // Every new question at once, as an MRTR round asks them; answers go out as they come.
        const answers: Record<string, unknown> = {};
        const context = { toolName: host.toolName, callId: host.callId };
        const questions: { key: string; request: ToolInteractionRequest }[] = [];
        for (const key of fresh) {
          asked.add(key);
          const outcome = handleInputRequest(requests[key], host.flags, context);
          if (outcome.type === "fail") throw outcome.error;
          if (outcome.type === "answer") answers[key] = outcome.value;
          else questions.push({ key, request: outcome.request });
        }
        if (Object.keys(answers).length > 0) {
          await request("tasks/update", { taskId: ref.taskId, inputResponses: answers });
        }
        for (const { key, request: question } of questions) host.ask(question, key);
        continue;
      }
      case "completed": {
        const { result } = snapshot;
        if (!isJsonObject(result)) {
          throw protocolError(`${host.toolName}: a completed task gave no \`result\` object`);
        }
        return host.done(result);
      }
      case "failed":
        throw failure(host, snapshot);
      case "cancelled":
        throw cancelledTask(host, snapshot);
      default:
        throw unknownStatus(host, snapshot.status);
    }
  }
}

// 2025-11-25: poll `tasks/get`; once the task waits for input or has ended, `tasks/result`
// delivers the server's questions on its stream and answers with the call's result (or its
// JSON-RPC error). Should its deadline pass first, polling goes on.
async function poll2025(
  host: TaskHost,
  ref: RemoteTaskRef,
  request: TaskRequest,
  created: Record<string, unknown> | undefined,
): Promise<void> {
  const nested = created && isJsonObject(created.task) ? created.task : undefined;
  const poller = createPoller(host, ref, nested);
  for (;;) {
    const snapshot = await poller.next(() => request("tasks/get", { taskId: ref.taskId }, true));
    const status = snapshot.status;
    if (status === "working") continue;
    if (status === "cancelled") throw cancelledTask(host, snapshot);
    if (status !== "input_required" && status !== "completed" && status !== "failed") {
      throw unknownStatus(host, status);
    }
    let result: Record<string, unknown>;
    try {
      result = await request("tasks/result", { taskId: ref.taskId }, true);
    } catch (error) {
      if (isToolError(error, "timeout") && !host.signal.aborted) continue;
      throw error;
    }
    return host.done(result);
  }
}

interface Poller {
  /** Waits the interval (none before the first poll), polls, and checks the snapshot. */
  next(poll: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>>;
}

// The polling shared by both eras: the interval re-read from every snapshot, retries of polls
// that fail in transit, the status message told through `log` when it changes, and the TTL
// backstop (`createdAt + ttlMs`, counted from when this client first saw the task, so a clock
// that differs from the server's does not matter).
function createPoller(
  host: TaskHost,
  ref: RemoteTaskRef,
  created: Record<string, unknown> | undefined,
): Poller {
  let interval = DEFAULT_POLL_MS;
  // The next interval without a hint: 1 s after a hint or a new status, then growing.
  let unhinted = DEFAULT_POLL_MS;
  let first = true;
  let failures = 0;
  let lastStatus: unknown;
  let lastMessage: unknown;
  const seen = Date.now();
  let expiresAt = Number.POSITIVE_INFINITY;
  const learn = (snapshot: Record<string, unknown>) => {
    const suggested = snapshot.pollIntervalMs ?? snapshot.pollInterval;
    const changed = snapshot.status !== lastStatus;
    if (typeof suggested === "number" && Number.isFinite(suggested) && suggested > 0) {
      interval = Math.min(Math.max(suggested, MIN_POLL_MS), MAX_POLL_MS);
      unhinted = DEFAULT_POLL_MS;
    } else {
      if (changed) unhinted = DEFAULT_POLL_MS;
      interval = unhinted;
      unhinted = Math.min(unhinted * 1.5, MAX_DEFAULT_POLL_MS);
    }
    const ttl = snapshot.ttlMs ?? snapshot.ttl;
    if (typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0) expiresAt = seen + ttl;
    else if (ttl === null) expiresAt = Number.POSITIVE_INFINITY;
    lastStatus = snapshot.status;
    const message = snapshot.statusMessage;
    if (typeof message === "string" && message !== lastMessage) {
      lastMessage = message;
      const data = { task: ref.taskId, status: snapshot.status, statusMessage: message };
      host.log({ level: "info", logger: "toolwire/mcp", data: host.session.scrubValue(data) });
    }
  };
  if (created) learn(created);
  return {
    async next(poll) {
      for (;;) {
        if (!first) await sleep(interval, host.signal);
        first = false;
        if (Date.now() > expiresAt) {
          throw protocolError(
            `${host.toolName}: task ${shown(host.session, ref.taskId)} outlived its ttl without ending`,
          );
        }
        let snapshot: Record<string, unknown>;
        try {
          snapshot = await poll();
        } catch (error) {
          const transient = isToolError(error, "transport") || isToolError(error, "timeout");
          if (!transient || host.signal.aborted || ++failures > POLL_RETRIES) throw error;
          interval = Math.min(interval * 2, MAX_POLL_MS);
          continue;
        }
        failures = 0;
        const taskId = snapshot.taskId;
        if (taskId !== undefined && taskId !== ref.taskId) {
          throw protocolError(`${host.toolName}: tasks/get answered for another task`);
        }
        learn(snapshot);
        return snapshot;
      }
    },
  };
}

// A `failed` snapshot: the JSON-RPC error the call would have raised.
function failure(host: TaskHost, snapshot: Record<string, unknown>): ToolError {
  const error = snapshot.error;
  const code =
    isJsonObject(error) && Number.isInteger(error.code) ? (error.code as number) : -32603;
  const message =
    isJsonObject(error) && typeof error.message === "string"
      ? error.message
      : typeof snapshot.statusMessage === "string"
        ? snapshot.statusMessage
        : "the task failed";
  const reported: JsonRpcErrorObject = { code, message };
  if (isJsonObject(error) && error.data !== undefined) reported.data = error.data;
  return reportedRpcError(`${host.toolName} (task)`, reported, host.session.secrets);
}

function cancelledTask(host: TaskHost, snapshot: Record<string, unknown>): ToolError {
  const said = snapshot.statusMessage;
  const reason =
    typeof said === "string"
      ? `the server cancelled the task: ${excerpt(said, host.session.secrets, 200)}`
      : "the server cancelled the task";
  return new ToolError({ type: "cancelled", tool: host.toolName, reason });
}

function unknownStatus(host: TaskHost, status: unknown): ToolError {
  const text = JSON.stringify(excerpt(String(status), host.session.secrets, 40));
  return protocolError(`${host.toolName}: the task has status ${text}, which MCP does not define`);
}

function shown(session: McpSession, taskId: string): string {
  return JSON.stringify(excerpt(taskId, session.secrets, 80));
}

// Waits `ms`, or rejects with the signal's reason once it aborts; the timer is cleared either way.
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
