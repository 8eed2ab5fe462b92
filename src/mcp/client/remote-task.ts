// A remote call that became an MCP task, followed to its end so the caller just gets the tool's
// result (docs/design.md, "Consuming MCP", "Tasks"). 2026-07-28 (the Tasks extension): poll
// `tasks/get` (at once, then every `pollIntervalMs`), answer its `inputRequests` through
// `tasks/update`, read the result inlined in the terminal snapshot. 2025-11-25 (task-augmented
// calls): poll `tasks/get`, and once the task waits for input or has ended, read `tasks/result`,
// on whose stream the server asks its questions. An abort sends `tasks/cancel` without waiting.
// `remote-handler.ts` loads this module on a call's first task handle, so a client whose servers
// never answer with one does not carry it.

import type { ToolError } from "../../errors.ts";
import type { ToolLog } from "../../execution/handler-io.ts";
import type { RemoteTaskHook, RemoteTaskRef } from "../../execution/remote-task-hook.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { JsonRpcErrorObject, JsonRpcParams } from "../json-rpc.ts";
import type { InputRequestOutcome } from "./server-request.ts";

// Hint: this module imports types only. Everything it runs of the client's (requests, errors,
// scrubbing, questions) comes through `TaskHost`, so a bundler makes it a chunk of its own
// instead of moving the code it shares with the client into a third chunk, which would load at
// once and compress apart (measured: 2.1 KB more for every `connectMcp` bundle, 1.3 KB more for
// a server's that never loads it).

/** What following a task needs from the call that became one (`RemoteHandler`). */
export interface TaskHost {
  toolName: string;
  /** Whether the connection speaks 2026-07-28 (else a 2025 session). */
  modern: boolean;
  /** The server's URL as shown, kept in the task's reference. */
  origin: string;
  /** Aborts when the call ends from outside (cancel, timeout, shutdown). */
  signal: AbortSignal;
  hook: RemoteTaskHook | undefined;
  /**
   * Sends one task request under its own deadline, the Tasks extension declared in 2026; with
   * `onMessage`, what the server sends on its stream reaches the call (2025 questions, progress).
   */
  request(
    method: string,
    params: JsonRpcParams,
    onMessage?: boolean,
  ): Promise<Record<string, unknown>>;
  /** Sends `tasks/cancel` without waiting (the session's close waits, bounded). */
  cancel(taskId: string): void;
  /** What to do with one 2026 `inputRequests` entry (`handleInputRequest`). */
  input(entry: unknown): InputRequestOutcome;
  /** Whether a failed poll may be tried again (`transport`, `timeout`). */
  transient(error: unknown): boolean;
  /** Whether a failed request got JSON-RPC `-32602` (the task is unknown). */
  unknown(error: unknown): boolean;
  /** A `protocol` error. */
  protocol(message: string): ToolError;
  /** A `cancelled` error. */
  cancelled(reason: string): ToolError;
  /** The `protocol` error for a failed task's JSON-RPC error, its code and data kept. */
  rpcError(error: JsonRpcErrorObject): ToolError;
  /** What the server sent, scrubbed of the client's credentials before anyone reads it. */
  scrub<T>(value: T): T;
  /** A server text fit for a message: scrubbed, cut to `max`, quoted. */
  shown(text: string, max: number): string;
  /** 2026: puts one `inputRequests` entry to the caller, to be answered through `answer`. */
  ask(request: ToolInteractionRequest, key: string): void;
  /** The tool's result (a `CallToolResult`, as the server sent it). */
  done(result: Record<string, unknown>): void;
  fail(error: unknown): void;
  log(entry: ToolLog): void;
}

/** A task being followed. */
export interface FollowedTask {
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
 * Follows a task to its end, reporting to `host`: the task of a handle the call just got
 * (`created`), or the one an earlier run recorded (`resume`). Aborting `host.signal` sends
 * `tasks/cancel` (unless the host detached the call) and stops polling.
 */
export function followTask(
  host: TaskHost,
  created: Record<string, unknown> | undefined,
  resume?: RemoteTaskRef,
): FollowedTask {
  const { signal } = host;
  // 2026 handles are flat, 2025 ones nest the task.
  const snapshot = created && (host.modern ? created : created.task);
  const found = isObject(snapshot) ? snapshot.taskId : undefined;
  const taskId = resume?.taskId ?? found;
  if (typeof taskId !== "string" || taskId === "") {
    host.fail(host.protocol(`${host.toolName}: a task handle without a \`taskId\``));
    return { answer: async () => {} };
  }
  const ref: RemoteTaskRef = resume ?? {
    origin: host.origin,
    protocol: host.modern ? "2026-07-28" : "2025-11-25",
    taskId,
  };
  // Settled tasks need no cancel: ended, lost, or cancelled already.
  let settled = false;
  const cancel = () => {
    if (settled) return;
    settled = true;
    host.cancel(taskId);
  };
  const onAbort = () => {
    if (host.hook?.detached?.() === true) settled = true;
    else cancel();
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  const first = isObject(snapshot) ? snapshot : undefined;
  const run = async () => {
    await host.hook?.record?.(ref);
    if (host.modern) await poll2026(host, taskId, first, cancel);
    else await poll2025(host, taskId, first);
  };
  void run()
    .catch((error: unknown) => {
      if (signal.aborted) return;
      // The task is gone (never existed here, expired, purged): nothing left to cancel.
      if (host.unknown(error)) {
        settled = true;
        const message = `${host.toolName}: the server no longer knows task ${host.shown(taskId, 80)} (task lost)`;
        return host.fail(host.protocol(message));
      }
      cancel();
      host.fail(error);
    })
    .finally(() => {
      settled = true;
      signal.removeEventListener("abort", onAbort);
    });
  return {
    answer: async (key, value) => {
      await host.request("tasks/update", { taskId, inputResponses: { [key]: value } });
    },
  };
}

// 2026-07-28: poll until a terminal status. Each `inputRequests` key is put to the caller once
// over the task's life; the caller's answers go out by `tasks/update` as they come.
async function poll2026(
  host: TaskHost,
  taskId: string,
  created: Record<string, unknown> | undefined,
  cancel: () => void,
): Promise<void> {
  const asked = new Set<string>();
  const poller = createPoller(host, taskId, created);
  let stuck = 0;
  for (;;) {
    const snapshot = await poller.next(() => host.request("tasks/get", { taskId }));
    switch (snapshot.status) {
      case "working":
        stuck = 0;
        continue;
      case "input_required": {
        const requests = host.scrub(snapshot.inputRequests);
        if (!isObject(requests)) {
          throw host.protocol(`${host.toolName}: an input_required task gave no \`inputRequests\``);
        }
        const fresh = Object.keys(requests).filter((key) => !asked.has(key));
        if (fresh.length === 0) {
          if (++stuck >= MAX_STUCK_POLLS) {
            cancel();
            throw host.protocol(
              `${host.toolName}: the task asked only questions already answered for ${MAX_STUCK_POLLS} polls; it was cancelled`,
            );
          }
          continue;
        }
        stuck = 0;
        // Every new question at once, as an MRTR round asks them; answers go out as they come.
        const answers: Record<string, unknown> = {};
        const questions: { key: string; request: ToolInteractionRequest }[] = [];
        for (const key of fresh) {
          asked.add(key);
          const outcome = host.input(requests[key]);
          if (outcome.type === "fail") throw outcome.error;
          if (outcome.type === "answer") answers[key] = outcome.value;
          else questions.push({ key, request: outcome.request });
        }
        if (Object.keys(answers).length > 0) {
          await host.request("tasks/update", { taskId, inputResponses: answers });
        }
        for (const { key, request } of questions) host.ask(request, key);
        continue;
      }
      case "completed": {
        const { result } = snapshot;
        if (!isObject(result)) {
          throw host.protocol(`${host.toolName}: a completed task gave no \`result\` object`);
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
  taskId: string,
  created: Record<string, unknown> | undefined,
): Promise<void> {
  const poller = createPoller(host, taskId, created);
  for (;;) {
    const snapshot = await poller.next(() => host.request("tasks/get", { taskId }, true));
    const status = snapshot.status;
    if (status === "working") continue;
    if (status === "cancelled") throw cancelledTask(host, snapshot);
    if (status !== "input_required" && status !== "completed" && status !== "failed") {
      throw unknownStatus(host, status);
    }
    let result: Record<string, unknown>;
    try {
      result = await host.request("tasks/result", { taskId }, true);
    } catch (error) {
      if (host.transient(error) && !host.signal.aborted) continue;
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
  taskId: string,
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
      const data = { task: taskId, status: snapshot.status, statusMessage: message };
      host.log({ level: "info", logger: "toolwire/mcp", data: host.scrub(data) });
    }
  };
  if (created) learn(created);
  return {
    async next(poll) {
      for (;;) {
        if (!first) await sleep(interval, host.signal);
        first = false;
        if (Date.now() > expiresAt) {
          throw host.protocol(
            `${host.toolName}: task ${host.shown(taskId, 80)} outlived its ttl without ending`,
          );
        }
        let snapshot: Record<string, unknown>;
        try {
          snapshot = await poll();
        } catch (error) {
          if (!host.transient(error) || host.signal.aborted || ++failures > POLL_RETRIES) {
            throw error;
          }
          interval = Math.min(interval * 2, MAX_POLL_MS);
          continue;
        }
        failures = 0;
        if (snapshot.taskId !== undefined && snapshot.taskId !== taskId) {
          throw host.protocol(`${host.toolName}: tasks/get answered for another task`);
        }
        learn(snapshot);
        return snapshot;
      }
    },
  };
}

// A `failed` snapshot: the JSON-RPC error the call would have raised.
function failure(host: TaskHost, snapshot: Record<string, unknown>): ToolError {
  const error = isObject(snapshot.error) ? snapshot.error : {};
  const code = Number.isInteger(error.code) ? (error.code as number) : -32603;
  const said = snapshot.statusMessage;
  const message =
    typeof error.message === "string"
      ? error.message
      : typeof said === "string"
        ? said
        : "the task failed";
  const reported: JsonRpcErrorObject = { code, message };
  if (error.data !== undefined) reported.data = error.data;
  return host.rpcError(reported);
}

function cancelledTask(host: TaskHost, snapshot: Record<string, unknown>): ToolError {
  const said = snapshot.statusMessage;
  return host.cancelled(
    typeof said === "string"
      ? `the server cancelled the task: ${host.shown(said, 200)}`
      : "the server cancelled the task",
  );
}

function unknownStatus(host: TaskHost, status: unknown): ToolError {
  return host.protocol(
    `${host.toolName}: the task has status ${host.shown(String(status), 40)}, which MCP does not define`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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
