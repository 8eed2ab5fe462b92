/// <reference types="node" />

// `serveStdio`: a Toolset served to a desktop or editor client that starts this process. Each
// line from stdin is POSTed to the `createMcpHandler` fetch handler in session mode; what the
// handler answers (a JSON body, or an SSE stream carrying progress, logs and questions before
// the result) goes to stdout one message per line. See `docs/design.md`, "stdio".

import type { Readable, Writable } from "node:stream";
import { errorText, ToolError } from "../errors.ts";
import type { ToolsetBackend } from "../execution/backend.ts";
import { createMcpHandler, type McpHandlerOptions } from "../mcp/server/handler.ts";
import { createSseParser } from "../sse/sse-parser.ts";
import { Toolset } from "../toolset/toolset.ts";
import { createLineSplitter, maxMessageBytes } from "./stdio-lines.ts";

/** How `serveStdio` serves a toolset. */
export interface ServeStdioOptions
  extends Pick<
    McpHandlerOptions,
    | "name"
    | "version"
    | "title"
    | "instructions"
    | "onError"
    | "maxInFlightCalls"
    | "interactionTimeoutMs"
    | "pageSize"
  > {
  /**
   * What a tool's question becomes: `elicit` (default here) sends it to the client as
   * `elicitation/create` or `sampling/createMessage` when the client declared that capability;
   * `reject` makes it a tool error.
   */
  interactionPolicy?: McpHandlerOptions["interactionPolicy"];
  /** The longest line accepted from the client, in bytes (default 4 MiB); a longer one ends serving. */
  maxMessageBytes?: number;
  /** Where messages come from; default `process.stdin`. */
  input?: Readable;
  /** Where messages go; default `process.stdout`. */
  output?: Writable;
  /**
   * Ends serving on SIGINT and SIGTERM; default `true` when serving on `process.stdin`. While
   * serving on `process.stdout`, `console.log`, `console.info` and `console.debug` write to
   * stderr, so a stray log line cannot corrupt the protocol.
   */
  handleSignals?: boolean;
  /** Aborting it ends serving. */
  signal?: AbortSignal;
}

/**
 * Serves a toolset over MCP's stdio transport on this process's stdin and stdout (revisions
 * 2025-11-25 and 2025-06-18): the process a desktop client lists under `mcpServers` and starts
 * itself. Nothing but protocol messages reaches stdout. Serving ends when stdin closes, on
 * SIGINT or SIGTERM, on `signal`, or when the client sends a line longer than
 * `maxMessageBytes`; then the toolset is shut down once and the promise settles.
 *
 * @example
 * ```ts
 * // tools.ts, run by the client as `node --import tsx tools.ts`
 * await serveStdio(Toolset.local([add]), { name: "calc", version: "1.0.0" });
 * ```
 *
 * @throws ToolError `invalid_configuration` for a bad name, version or limit (nothing is served);
 * the toolset's shutdown failure, once serving has ended.
 */
export async function serveStdio(
  toolset: ToolsetBackend,
  options: ServeStdioOptions,
): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const onStdio = input === process.stdin;
  const limit = maxMessageBytes(
    options.maxMessageBytes,
    (message) => new ToolError({ type: "invalid_configuration", message }),
  );
  const owned = Toolset.fromBackend(toolset);
  const handler = createMcpHandler(owned, {
    name: options.name,
    version: options.version,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
    ...(options.maxInFlightCalls === undefined
      ? {}
      : { maxInFlightCalls: options.maxInFlightCalls }),
    ...(options.interactionTimeoutMs === undefined
      ? {}
      : { interactionTimeoutMs: options.interactionTimeoutMs }),
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    interactionPolicy: options.interactionPolicy ?? "elicit",
    // One client per process: its session lives as long as the pipe does.
    sessions: "memory",
    sessionIdleTimeoutMs: 2_147_483_647,
    maxBodyBytes: limit,
  });

  let sessionId: string | undefined;
  // Until the session exists, messages are handled one after another, so the `initialize`
  // answer (and its session id) comes before anything that needs it.
  let gate: Promise<void> = Promise.resolve();
  const write = (line: string) => {
    if (!output.writableEnded) output.write(`${line}\n`);
  };

  const dispatch = async (line: string): Promise<void> => {
    const { id, method } = requestOf(line);
    if (sessionId === undefined && id !== undefined && method !== "initialize") {
      // Before `initialize` only `ping` may come; the handler would refuse it as HTTP would.
      const reply =
        method === "ping"
          ? { jsonrpc: "2.0", id, result: {} }
          : {
              jsonrpc: "2.0",
              id,
              error: { code: -32600, message: `${method}: send initialize first` },
            };
      write(JSON.stringify(reply));
      return;
    }
    const headers = new Headers({
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    });
    if (sessionId !== undefined) headers.set("mcp-session-id", sessionId);
    const response = await handler.fetch(
      new Request("http://localhost/mcp", { method: "POST", headers, body: line }),
    );
    sessionId ??= response.headers.get("mcp-session-id") ?? undefined;
    const type = response.headers.get("content-type") ?? "";
    if (type.startsWith("text/event-stream") && response.body) {
      const parser = createSseParser({ onEvent: (event) => event.data && write(event.data) });
      const decoder = new TextDecoder();
      for await (const chunk of response.body) parser.feed(decoder.decode(chunk, { stream: true }));
      return;
    }
    const text = await response.text();
    if (text === "") return;
    write(text);
  };

  return await new Promise<void>((resolve, reject) => {
    let ended = false;
    const restoreConsole = output === process.stdout ? redirectConsole() : () => {};
    const lines = createLineSplitter(
      limit,
      (line) => {
        const run = () =>
          dispatch(line).catch((error: unknown) => {
            process.stderr.write(`serveStdio: ${errorText(error)}\n`);
          });
        if (sessionId === undefined) gate = gate.then(run);
        else void gate.then(run);
      },
      () => {
        process.stderr.write(`serveStdio: a message longer than ${limit} bytes; stopping\n`);
        end();
      },
    );
    const onData = (chunk: Buffer | string) =>
      lines.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    const signals = options.handleSignals ?? onStdio;
    const end = () => {
      if (ended) return;
      ended = true;
      input.off("data", onData);
      input.off("end", end);
      input.off("close", end);
      output.off("error", end);
      options.signal?.removeEventListener("abort", end);
      if (signals) {
        process.off("SIGINT", end);
        process.off("SIGTERM", end);
      }
      // Let the process exit: nothing more is read.
      if (onStdio) input.destroy();
      restoreConsole();
      owned.shutdown().then(resolve, reject);
    };
    input.on("data", onData);
    input.once("end", end);
    input.once("close", end);
    output.once("error", end);
    options.signal?.addEventListener("abort", end, { once: true });
    if (signals) {
      process.once("SIGINT", end);
      process.once("SIGTERM", end);
    }
    if (options.signal?.aborted) end();
  });
}

// The id and method of a request line; both undefined for anything else.
function requestOf(line: string): { id?: string | number; method?: string } {
  try {
    const value = JSON.parse(line) as { id?: unknown; method?: unknown } | null;
    const { id, method } = value ?? {};
    if (typeof method !== "string" || (typeof id !== "string" && typeof id !== "number")) {
      return {};
    }
    return { id, method };
  } catch {
    return {};
  }
}

function redirectConsole(): () => void {
  const { log, info, debug } = console;
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  return () => {
    console.log = log;
    console.info = info;
    console.debug = debug;
  };
}
