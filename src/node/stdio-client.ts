/// <reference types="node" />

// `connectStdio`: an MCP server started as a child process, consumed as a `Toolset`. The MCP
// client itself is `connectMcp`; this file gives it a `fetch` that speaks MCP's stdio transport
// (one JSON-RPC message per line on the child's stdin and stdout) and owns the child's life:
// its environment, its stderr, the bounded reads, and the shutdown ladder. See
// `docs/design.md`, "stdio".

import type { ChildProcess, spawn as Spawn } from "node:child_process";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { errorText, ToolError, unreachable } from "../errors.ts";
import { type ConnectMcpOptions, connectMcp } from "../mcp/client/connect-mcp.ts";
import { classifyJsonRpc, type JsonRpcId, type JsonRpcRequest } from "../mcp/json-rpc.ts";
import { META } from "../mcp/protocol.ts";
import type { Observer } from "../observer.ts";
import { excerpt, scrub } from "../redaction.ts";
import { Toolset } from "../toolset/toolset.ts";
import { createLineSplitter, maxMessageBytes } from "./stdio-lines.ts";

/** How `connectStdio` starts and talks to an MCP server process. */
export interface ConnectStdioOptions {
  /** The program to run, looked up on the child's `PATH` (e.g. `"node"`, `"npx"`). */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /**
   * Variables for the child. Unless `inheritEnv` is set, the child gets only these plus a
   * minimal set from this process (`PATH`, `HOME`, `USER`, `SHELL`, `TERM`, `TMPDIR`, `LANG`,
   * and on Windows `SYSTEMROOT`, `APPDATA` and the like), so a secret in this process's
   * environment does not reach every tool server.
   */
  env?: Readonly<Record<string, string>>;
  /** Passes this process's whole environment (then `env` on top); default `false`. */
  inheritEnv?: boolean;
  /** The child's working directory; default this process's. */
  cwd?: string;
  /** Lists and calls the tools as `namespace__name`; the server still sees its own names. */
  namespace?: string;
  /**
   * Where the child's stderr goes: `"inherit"` (default, this process's stderr), `"ignore"`,
   * `"pipe"` (kept: its last lines are quoted when the child dies), or a function called with
   * each line (also kept). It never mixes with the protocol on stdout.
   */
  stderr?: "inherit" | "pipe" | "ignore" | ((line: string) => void);
  /**
   * Believes the tools' annotations (`readOnlyHint` and the others); default `false`: every
   * tool is treated as writing, and all its capabilities are assumed (`docs/design.md`, "Trust").
   */
  trustAnnotations?: boolean;
  /** Idle deadline of each request, in milliseconds (default 30 000), as for `connectMcp`. */
  requestTimeoutMs?: number;
  /** Answers the server's form elicitations as `interaction` steps (default `false`). */
  formInteractions?: boolean;
  /** Answers the server's `sampling/createMessage` as `sampling` steps (default `false`). */
  samplingInteractions?: boolean;
  /**
   * Checks arguments, `structuredContent` and form replies on this side too, as for
   * `connectMcp` (pass `jsonSchemaValidator` from `toolwire/json-schema`); absent, the server
   * validates them.
   */
  jsonSchemaValidator?: ConnectMcpOptions["jsonSchemaValidator"];
  /**
   * The longest line accepted from the child, in bytes (default 4 MiB). A longer one fails
   * every waiting call with `transport` and stops the child; memory stays bounded.
   */
  maxMessageBytes?: number;
  /**
   * How long `shutdown()` waits after closing the child's stdin, and again after SIGTERM,
   * before it escalates, in milliseconds (default 2000).
   */
  shutdownGraceMs?: number;
  /**
   * The revision spoken, as for `connectMcp`: `"auto"` (default) probes with `server/discover`
   * and falls back to `initialize` (2025-11-25) when the server answers with an error that is
   * not a 2026-07-28 one, with no answer in 5 s, or with a result that is no discover result
   * listing 2026-07-28 (the `{}` some servers answer every method with); the verdict holds
   * for this process. `"2026-07-28"` or `"2025-11-25"`
   * speak only that one.
   */
  protocol?: ConnectMcpOptions["protocol"];
  /**
   * Told of every request sent to the child, which then carries the observer's trace context
   * in `params._meta`, as for `connectMcp` (`otelObserver()` from `toolwire/otel`).
   */
  observer?: Observer;
  /** Receives the connection's own log lines, as for `connectMcp` (a skipped tool, …). */
  onLog?: ConnectMcpOptions["onLog"];
  /** Aborts connecting (the child is stopped). */
  signal?: AbortSignal;
}

/**
 * Starts an MCP server process and returns its tools as a `Toolset` (MCP's stdio transport;
 * revision 2026-07-28, or 2025-11-25 and 2025-06-18 with a server that answers `server/discover`
 * with a non-2026 error; see `protocol`), with the semantics of `connectMcp`: progress,
 * cancellation as `notifications/cancelled` (both eras), questions (`input_required` on
 * 2026-07-28, elicitation and sampling on 2025-11-25) when enabled, the
 * idle deadline, and untrusted annotations unless `trustAnnotations` is set. Each tool's
 * `source` is `{ type: "mcp", origin: command, trusted }`.
 *
 * A child that exits, or sends a line longer than `maxMessageBytes`, fails every waiting call
 * with `transport` (quoting its last stderr lines when they were kept) and every later call too;
 * a line that is not JSON-RPC fails the calls waiting at that moment with `protocol`.
 * `shutdown()` closes the child's stdin, waits `shutdownGraceMs`, sends SIGTERM, waits again,
 * then SIGKILL, and resolves once the process is gone.
 *
 * @example
 * ```ts
 * const fs = await connectStdio({
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp/notes"],
 *   namespace: "fs",
 * });
 * const listing = await fs.call("fs__list_directory", { path: "/tmp/notes" });
 * await fs.shutdown();
 * ```
 *
 * @throws ToolError `invalid_configuration` for bad options or a command that cannot be
 * started, and what `connectMcp` throws when the handshake fails (`transport`, `protocol`,
 * `timeout`, `cancelled`, …).
 */
export async function connectStdio(options: ConnectStdioOptions): Promise<Toolset> {
  const settings = checkOptions(options);
  settings.signal?.throwIfAborted();
  // Loaded on the first call, not with toolwire/node: a program that only serves does not pay
  // for it at start (docs/design.md, "Bundles and cold start").
  const { spawn } = await import("node:child_process");
  settings.signal?.throwIfAborted();
  const child = new StdioChild(settings, spawn);
  let inner: Toolset;
  try {
    const mcp: ConnectMcpOptions = {
      // Never fetched: `child.fetch` ignores the URL. It only has to be a valid http URL.
      url: "http://localhost/stdio",
      fetch: child.fetch,
      protocol: settings.protocol,
      trustAnnotations: settings.trustAnnotations,
      // Room for the `data: ` framing around a line of the largest size this side accepts.
      maxMessageBytes: settings.maxMessageBytes + 64,
      formInteractions: settings.formInteractions,
      samplingInteractions: settings.samplingInteractions,
    };
    if (settings.namespace !== undefined) mcp.namespace = settings.namespace;
    if (settings.requestTimeoutMs !== undefined) mcp.requestTimeoutMs = settings.requestTimeoutMs;
    if (settings.signal) mcp.signal = settings.signal;
    if (options.onLog) mcp.onLog = options.onLog;
    if (options.jsonSchemaValidator) mcp.jsonSchemaValidator = options.jsonSchemaValidator;
    if (options.observer) mcp.observer = overStdio(options.observer);
    inner = await connectMcp(mcp);
  } catch (error) {
    await child.stop();
    throw error;
  }
  return withOrigin(inner, settings.command, () => child.stop());
}

// The observer sees the child's requests as what they are: no URL, a pipe (`stdio:`).
function overStdio(observer: Observer): Observer {
  return {
    start: (operation, parent) =>
      observer.start(
        operation.type === "mcp_request" ? { ...operation, endpoint: "stdio:" } : operation,
        parent,
      ),
  };
}

// `connectMcp` names the URL it was given as each tool's origin; over stdio that URL is a
// placeholder, and the command is what the user knows the server by.
function withOrigin(inner: Toolset, origin: string, after: () => Promise<void>): Toolset {
  return Toolset.fromBackend({
    listTools: async () =>
      (await inner.listTools()).map(
        (info): ToolInfo => ({
          ...info,
          source: { type: "mcp", origin, trusted: info.source?.trusted === true },
        }),
      ),
    toolHandler: (name) => inner.toolHandler(name),
    carriedState: () => inner.carriedState(),
    shutdown: async () => {
      try {
        await inner.shutdown();
      } finally {
        await after();
      }
    },
  });
}

interface Settings {
  command: string;
  args: string[];
  env: Record<string, string>;
  callerEnv: Readonly<Record<string, string>>;
  cwd: string | undefined;
  namespace: string | undefined;
  stderr: "inherit" | "pipe" | "ignore" | ((line: string) => void);
  trustAnnotations: boolean;
  requestTimeoutMs: number | undefined;
  formInteractions: boolean;
  samplingInteractions: boolean;
  maxMessageBytes: number;
  shutdownGraceMs: number;
  protocol: NonNullable<ConnectMcpOptions["protocol"]>;
  signal: AbortSignal | undefined;
}

const POSIX_ENV = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TZ", "LANG"];
const WINDOWS_ENV = [
  "PATH",
  "PATHEXT",
  "APPDATA",
  "LOCALAPPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "USERPROFILE",
  "USERNAME",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "COMSPEC",
  "TEMP",
  "TMP",
  "PROGRAMFILES",
  "PROCESSOR_ARCHITECTURE",
];

function checkOptions(options: ConnectStdioOptions): Settings {
  const invalid = (message: string) => new ToolError({ type: "invalid_configuration", message });
  if (typeof options !== "object" || options === null) throw invalid("options must be an object");
  const { command, args = [], env = {}, cwd, stderr = "inherit" } = options;
  if (typeof command !== "string" || command.trim() === "") {
    throw invalid('command must be a non-empty string, such as "node" or "npx"');
  }
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    throw invalid("args must be an array of strings");
  }
  if (typeof env !== "object" || env === null || Array.isArray(env)) {
    throw invalid("env must be an object of strings");
  }
  for (const [key, value] of Object.entries(env)) {
    // The value is not quoted: it may be an API key.
    if (typeof value !== "string") throw invalid(`env.${key} must be a string`);
  }
  if (cwd !== undefined && typeof cwd !== "string") throw invalid("cwd must be a string");
  if (
    typeof stderr !== "function" &&
    stderr !== "inherit" &&
    stderr !== "pipe" &&
    stderr !== "ignore"
  ) {
    throw invalid('stderr must be "inherit", "pipe", "ignore" or a function');
  }
  const grace = options.shutdownGraceMs ?? 2000;
  if (typeof grace !== "number" || !(grace > 0) || grace > 2_147_483_647) {
    throw invalid("shutdownGraceMs must be a positive number of milliseconds");
  }
  const base: Record<string, string> = {};
  const names = options.inheritEnv === true ? Object.keys(process.env) : safeEnvNames();
  for (const name of names) {
    const value = process.env[name];
    if (value !== undefined) base[name] = value;
  }
  return {
    command,
    args: [...args],
    env: { ...base, ...env },
    callerEnv: env,
    cwd,
    namespace: options.namespace,
    stderr,
    trustAnnotations: options.trustAnnotations === true,
    requestTimeoutMs: options.requestTimeoutMs,
    formInteractions: options.formInteractions === true,
    samplingInteractions: options.samplingInteractions === true,
    maxMessageBytes: maxMessageBytes(options.maxMessageBytes, invalid),
    shutdownGraceMs: grace,
    protocol: options.protocol ?? "auto",
    signal: options.signal,
  };
}

function safeEnvNames(): string[] {
  return process.platform === "win32" ? WINDOWS_ENV : POSIX_ENV;
}

// One request `connectMcp` is waiting on: its SSE body, and what routes messages to it.
interface Waiting {
  method: string;
  progressToken: unknown;
  stream: ReadableStreamDefaultController<Uint8Array>;
}

const STDERR_TAIL_CHARS = 2000;
// How long `protocol: "auto"` waits for an answer to `server/discover` before it takes the
// server for a 2025-11-25 one, in ms.
const PROBE_TIMEOUT_MS = 5000;
const encoder = new TextEncoder();

/**
 * The child process and the `fetch` `connectMcp` talks through. Every POSTed request becomes a
 * line on stdin and is answered with an SSE body that carries, in order, what the child sends
 * for it: progress by `progressToken`, log messages and server requests for the oldest waiting
 * `tools/call` (2025-11-25 over stdio does not say which request they belong to), and finally
 * the response with its id. Notifications and replies are answered 202 once written.
 */
class StdioChild {
  readonly #settings: Settings;
  readonly #process: ChildProcess;
  readonly #waiting = new Map<JsonRpcId, Waiting>();
  readonly #gone: Promise<void>;
  #failure: ToolError | undefined;
  // Scrubbed line by line as it comes, then cut: a cut first could keep part of a secret.
  #stderrTail = "";
  #stopping: Promise<void> | undefined;
  // Values the caller passed in `env` are likely keys; a server may print them.
  readonly #secrets: readonly string[];

  constructor(settings: Settings, spawn: typeof Spawn) {
    this.#settings = settings;
    this.#secrets = Object.values(settings.callerEnv)
      .filter((value) => value.length >= 8)
      .sort((a, b) => b.length - a.length);
    const keep = settings.stderr === "pipe" || typeof settings.stderr === "function";
    const child = spawn(settings.command, settings.args, {
      cwd: settings.cwd,
      env: settings.env,
      stdio: ["pipe", "pipe", keep ? "pipe" : settings.stderr === "ignore" ? "ignore" : "inherit"],
      windowsHide: true,
    });
    this.#process = child;
    this.#gone = new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => {
        if (child.pid === undefined) resolve();
      });
    });
    child.once("error", (error) => {
      if (child.pid !== undefined) return;
      this.#fatal(
        new ToolError({
          type: "invalid_configuration",
          message: `command ${JSON.stringify(settings.command)} could not be started: ${errorText(error)}`,
        }),
      );
    });
    child.once("exit", (code, signal) => {
      // The last lines may still be in the pipe; give stdout a moment to drain.
      const report = () =>
        this.#fatal(
          this.#transport(
            `the server process exited (${signal ? `signal ${signal}` : `code ${code}`})`,
          ),
        );
      if (child.stdout?.readableEnded) report();
      else {
        const timer = setTimeout(report, 100);
        child.stdout?.once("end", () => {
          clearTimeout(timer);
          report();
        });
      }
    });
    // Writes after the child died fail with EPIPE; the exit handler reports that.
    child.stdin?.on("error", () => {});
    const lines = createLineSplitter(
      settings.maxMessageBytes,
      (line) => this.#onLine(line),
      () => {
        this.#fatal(
          this.#transport(
            `the server sent a message longer than ${settings.maxMessageBytes} bytes`,
          ),
        );
        void this.stop();
      },
    );
    child.stdout?.on("data", (chunk: Buffer) => lines.push(chunk));
    if (keep && child.stderr) {
      const listener = typeof settings.stderr === "function" ? settings.stderr : undefined;
      const onLine = (line: string) => {
        const shown = scrub(line, this.#secrets);
        this.#stderrTail = `${this.#stderrTail}\n${shown}`.slice(-STDERR_TAIL_CHARS);
        try {
          listener?.(line);
        } catch {
          // A faulty listener must not break the connection.
        }
      };
      // A stderr line over 64 KiB is dropped; the lines after it still arrive.
      const stderrLines = createLineSplitter(64 * 1024, onLine, () => {}, { resync: true });
      child.stderr.on("data", (chunk: Buffer) => stderrLines.push(chunk));
    }
  }

  /** The `fetch` handed to `connectMcp`; the URL is ignored. */
  readonly fetch = async (_input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    if ((init?.method ?? "GET").toUpperCase() !== "POST") {
      return new Response(null, { status: 405 });
    }
    if (this.#failure) throw this.#failure;
    const body = String(init?.body);
    const classified = classifyJsonRpc(JSON.parse(body));
    if (classified.type !== "request") {
      this.#write(body);
      return new Response(null, { status: 202 });
    }
    const request = classified.message;
    const signal = init?.signal ?? undefined;
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: () => {
        this.#waiting.delete(request.id);
      },
    });
    const meta = request.params?._meta as Record<string, unknown> | undefined;
    if (controller) {
      this.#waiting.set(request.id, {
        method: request.method,
        progressToken: meta?.progressToken,
        stream: controller,
      });
    }
    // A 2026-07-28 request is cancelled over stdio with `notifications/cancelled`, where HTTP
    // closes the stream; 2025-11-25 sends that notification itself.
    const modern = typeof meta === "object" && meta !== null && META.protocolVersion in meta;
    if (request.method === "server/discover" && this.#settings.protocol === "auto") {
      this.#probeDeadline(request.id);
    }
    signal?.addEventListener(
      "abort",
      () => {
        const waiting = this.#waiting.delete(request.id);
        if (!modern || !waiting || this.#failure) return;
        const params = { requestId: request.id, reason: "cancelled by the caller" };
        this.#write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params }));
      },
      { once: true },
    );
    this.#write(body);
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
  };

  // The stdio probe rule: a server that leaves `server/discover` unanswered is a 2025-11-25 one.
  // Answering the probe with an error of our own makes `connectMcp` fall back to `initialize`.
  #probeDeadline(id: JsonRpcId): void {
    const timer = setTimeout(() => {
      const waiting = this.#waiting.get(id);
      if (!waiting) return;
      this.#waiting.delete(id);
      const message = `server/discover: no answer within ${PROBE_TIMEOUT_MS} ms`;
      this.#send(waiting, JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message } }));
      waiting.stream.close();
    }, PROBE_TIMEOUT_MS);
    timer.unref?.();
  }

  /** Closes stdin, waits, SIGTERM, waits, SIGKILL; resolves once the process is gone. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      const child = this.#process;
      const grace = this.#settings.shutdownGraceMs;
      if (await this.#goneWithin(0)) return;
      child.stdin?.end();
      if (await this.#goneWithin(grace)) return;
      child.kill("SIGTERM");
      if (await this.#goneWithin(grace)) return;
      child.kill("SIGKILL");
      await this.#gone;
    })();
    return this.#stopping;
  }

  async #goneWithin(ms: number): Promise<boolean> {
    const child = this.#process;
    if (child.exitCode !== null || child.signalCode !== null) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([this.#gone.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #write(line: string): void {
    // `JSON.stringify` never emits a raw newline, so one message is one line.
    this.#process.stdin?.write(`${line}\n`);
  }

  #onLine(line: string): void {
    const failure = this.#route(line);
    if (failure) this.#failWaiting(new ToolError({ type: "protocol", message: failure }));
  }

  // Delivers one line from the child; returns why the waiting requests fail, if they do.
  #route(line: string): string | undefined {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return `the server wrote a line that is not JSON: ${excerpt(line, this.#secrets)}`;
    }
    const classified = classifyJsonRpc(value);
    // A raw CR between JSON tokens would end an SSE line early; re-serialize only then.
    const data = line.includes("\r") ? JSON.stringify(value) : line;
    switch (classified.type) {
      case "response": {
        const { message } = classified;
        if (message.id === null) {
          const why = "error" in message ? message.error.message : "";
          return `the server could not read a request: ${excerpt(why, this.#secrets)}`;
        }
        const waiting = this.#waiting.get(message.id);
        if (!waiting) return undefined; // late: the request was cancelled or timed out
        this.#waiting.delete(message.id);
        this.#send(waiting, data);
        waiting.stream.close();
        return undefined;
      }
      case "notification": {
        const { method, params } = classified.message;
        // A 2025 task's progress keeps the token of the call that started it, which has ended:
        // it goes to the oldest request following a task.
        const target =
          method === "notifications/progress"
            ? ([...this.#waiting.values()].find((w) => w.progressToken === params?.progressToken) ??
              this.#oldestCall(true))
            : method === "notifications/message"
              ? this.#oldestCall()
              : undefined;
        if (target) this.#send(target, data);
        return undefined;
      }
      case "request":
        this.#onRequest(classified.message, data);
        return undefined;
      case "invalid":
        return `the server sent ${classified.error.error.message}`;
      default:
        return unreachable(classified);
    }
  }

  #onRequest(request: JsonRpcRequest, data: string): void {
    const call = request.method === "ping" ? undefined : this.#oldestCall();
    if (call) {
      this.#send(call, data);
      return;
    }
    const reply =
      request.method === "ping"
        ? { jsonrpc: "2.0", id: request.id, result: {} }
        : {
            jsonrpc: "2.0",
            id: request.id,
            error: {
              code: -32601,
              message: `${request.method} is not available outside a tool call`,
            },
          };
    this.#write(JSON.stringify(reply));
  }

  // The oldest request a server's message may belong to: a call, or a request following a 2025
  // task (`tasks/get`, `tasks/result`), whose questions and logs come while no call is in flight.
  #oldestCall(tasksOnly = false): Waiting | undefined {
    for (const waiting of this.#waiting.values()) {
      const task = waiting.method === "tasks/get" || waiting.method === "tasks/result";
      if (task || (!tasksOnly && waiting.method === "tools/call")) return waiting;
    }
    return undefined;
  }

  #send(waiting: Waiting, data: string): void {
    try {
      waiting.stream.enqueue(encoder.encode(`data: ${data}\n\n`));
    } catch {
      // The reader already left (cancelled, timed out).
    }
  }

  #transport(what: string): ToolError {
    const tail = this.#stderrTail.trim();
    const quoted = tail === "" ? "" : `; its stderr ended with: ${tail}`;
    return new ToolError({
      type: "transport",
      message: `${JSON.stringify(this.#settings.command)}: ${what}${quoted}`,
    });
  }

  #fatal(error: ToolError): void {
    this.#failure ??= error;
    this.#failWaiting(this.#failure);
  }

  #failWaiting(error: ToolError): void {
    for (const waiting of this.#waiting.values()) {
      try {
        waiting.stream.error(error);
      } catch {
        // Already closed.
      }
    }
    this.#waiting.clear();
  }
}
