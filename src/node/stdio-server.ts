/// <reference types="node" />

// `serveStdio`: a Toolset served to a desktop or editor client that starts this process. Each
// line from stdin is POSTed to the `createMcpHandler` fetch handler: 2025-11-25 lines in session
// mode, 2026-07-28 lines (a `_meta` protocol-version claim) with the headers that revision puts
// on HTTP, derived from the line. What the handler answers (a JSON body, or an SSE stream carrying
// progress, logs and questions before the result) goes to stdout one message per line. See
// `docs/design.md`, "stdio".

import type { Readable, Writable } from "node:stream";
import { errorText, ToolError } from "../errors.ts";
import type { ToolsetBackend } from "../execution/backend.ts";
import { META } from "../mcp/protocol.ts";
import { createMcpHandler } from "../mcp/server/handler.ts";
import type { McpHandlerOptions } from "../mcp/server/options.ts";
import type { Observer } from "../observer.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
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
    | "observer"
    | "maxInFlightCalls"
    | "interactionTimeoutMs"
    | "pageSize"
    | "maxJsonDepth"
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
 * 2026-07-28, 2025-11-25 and 2025-06-18, told apart per line as `createMcpHandler` does): the
 * process a desktop client lists under `mcpServers` and starts
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
    ...(options.observer === undefined ? {} : { observer: overStdio(options.observer) }),
    ...(options.maxInFlightCalls === undefined
      ? {}
      : { maxInFlightCalls: options.maxInFlightCalls }),
    ...(options.interactionTimeoutMs === undefined
      ? {}
      : { interactionTimeoutMs: options.interactionTimeoutMs }),
    ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    ...(options.maxJsonDepth === undefined ? {} : { maxJsonDepth: options.maxJsonDepth }),
    interactionPolicy: options.interactionPolicy ?? "elicit",
    // One client per process: its session lives as long as the pipe does.
    sessions: "memory",
    sessionIdleTimeoutMs: 2_147_483_647,
    maxBodyBytes: limit,
  });

  let sessionId: string | undefined;
  // Until the client shows its era (an `initialize` answered, or a first 2026-07-28 request),
  // messages are handled one after another, so the `initialize` answer (and its session id)
  // comes before anything that needs it.
  let gate: Promise<void> = Promise.resolve();
  let open = false;
  // The 2026-07-28 requests being answered, by id: `notifications/cancelled` aborts one, as
  // closing its response stream would on HTTP.
  const modern = new Map<string | number, AbortController>();
  const write = (line: string) => {
    if (!output.writableEnded) output.write(`${line}\n`);
  };

  // The `Mcp-Param-*` headers a 2026-07-28 client mirrors from a call's arguments: for each
  // top-level property the tool's schema marks with `x-mcp-header`, its string, number or
  // boolean value. Another kind of value has no header form, and the handler refuses the call.
  const paramHeaders = async (message: LineMessage): Promise<Record<string, string>> => {
    const name = message.params?.name;
    const args = message.params?.arguments;
    if (typeof name !== "string" || typeof args !== "object" || args === null) return {};
    const tool = (await owned.listTools()).find((info) => info.name === name);
    const schema = tool?.inputSchema.schema as { properties?: unknown } | undefined;
    const properties = schema?.properties;
    if (typeof properties !== "object" || properties === null) return {};
    const headers: Record<string, string> = {};
    for (const [property, definition] of Object.entries(properties)) {
      const header = (definition as Record<string, unknown> | null)?.["x-mcp-header"];
      const value = (args as Record<string, unknown>)[property];
      if (typeof header !== "string" || !HEADER_NAME.test(header)) continue;
      if (typeof value === "string") headers[`mcp-param-${header}`] = headerSafe(value);
      else if (typeof value === "number" || typeof value === "boolean") {
        headers[`mcp-param-${header}`] = String(value);
      }
    }
    return headers;
  };

  const dispatch = async (line: string, message: LineMessage): Promise<void> => {
    const { id, method } = message;
    const claimed = modernHeaders(message);
    if (method === "notifications/cancelled" && message.id === undefined) {
      const target = modern.get(message.params?.requestId as string | number);
      if (target) {
        target.abort();
        return;
      }
    }
    if (!claimed && sessionId === undefined && id !== undefined && method !== "initialize") {
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
      ...claimed,
      ...(claimed && method === "tools/call" ? await paramHeaders(message) : {}),
    });
    if (sessionId !== undefined && !claimed) headers.set("mcp-session-id", sessionId);
    const controller = new AbortController();
    if (claimed && id !== undefined) modern.set(id, controller);
    try {
      const response = await handler.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers,
          body: line,
          signal: controller.signal,
        }),
      );
      if (!claimed) sessionId ??= response.headers.get("mcp-session-id") ?? undefined;
      if (sessionId !== undefined) open = true;
      const type = response.headers.get("content-type") ?? "";
      if (type.startsWith("text/event-stream") && response.body) {
        const parser = createSseParser({ onEvent: (event) => event.data && write(event.data) });
        const decoder = new TextDecoder();
        const reader = response.body.getReader();
        const stop = () => void reader.cancel().catch(() => {});
        controller.signal.addEventListener("abort", stop, { once: true });
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(decoder.decode(value, { stream: true }));
        }
        return;
      }
      const text = await response.text();
      if (text === "") return;
      write(text);
    } finally {
      if (claimed && id !== undefined && modern.get(id) === controller) modern.delete(id);
    }
  };

  return await new Promise<void>((resolve, reject) => {
    let ended = false;
    const restoreConsole = output === process.stdout ? redirectConsole() : () => {};
    const lines = createLineSplitter(
      limit,
      (line) => {
        const message = messageOf(line);
        const run = () =>
          dispatch(line, message).catch((error: unknown) => {
            process.stderr.write(`serveStdio: ${errorText(error)}\n`);
          });
        // A 2026-07-28 request needs no session, so it opens the gate and runs at once; so does
        // a cancellation, which must not wait behind the call it cancels.
        const modernRequest = message.id !== undefined && modernHeaders(message) !== undefined;
        if (modernRequest) open = true;
        if (modernRequest || message.method === "notifications/cancelled") void run();
        else if (open) void gate.then(run);
        else gate = gate.then(run);
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

interface LineMessage {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
}

// The id, method and params of a request or notification line; all undefined for anything else.
function messageOf(line: string): LineMessage {
  try {
    const value = JSON.parse(line) as { id?: unknown; method?: unknown; params?: unknown } | null;
    const { id, method, params } = value ?? {};
    if (typeof method !== "string") return {};
    return {
      ...(typeof id === "string" || typeof id === "number" ? { id } : {}),
      method,
      ...(isJsonObject(params) ? { params } : {}),
    };
  } catch {
    return {};
  }
}

// Tool and resource names a header carries as they are; others go base64-encoded (UTF-8) in
// the `=?base64?…?=` form the 2026-07-28 handler decodes.
const PLAIN_HEADER = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NAMED_PARAM: Record<string, string> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/**
 * The HTTP headers a 2026-07-28 line would have travelled with: `MCP-Protocol-Version` from its
 * `_meta` claim, `Mcp-Method` from its method, `Mcp-Name` from the param that names its target.
 * Derived from the line itself, so they always agree with it; the handler still checks the
 * envelope and the revision. `undefined` for a line without a claim (2025-11-25 traffic).
 */
function modernHeaders(message: LineMessage): Record<string, string> | undefined {
  const meta = message.params?._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const version = (meta as Record<string, unknown>)[META.protocolVersion];
  if (version === undefined || message.method === undefined) return undefined;
  const headers: Record<string, string> = {
    "mcp-protocol-version": typeof version === "string" ? headerSafe(version) : "",
    "mcp-method": headerSafe(message.method),
  };
  const named = NAMED_PARAM[message.method];
  const name = named === undefined ? undefined : message.params?.[named];
  if (typeof name === "string") headers["mcp-name"] = headerSafe(name);
  return headers;
}

// The handler's observer, told that each request came over stdio: the Request each line becomes
// looks like an HTTP one handed over in process, which names no transport.
function overStdio(observer: Observer): Observer {
  if (typeof observer?.start !== "function") return observer; // the handler refuses it
  return {
    start: (operation, parent) =>
      observer.start(
        operation.type === "mcp_request" ? { ...operation, endpoint: "stdio:" } : operation,
        parent,
      ),
  };
}

function headerSafe(value: string): string {
  if (PLAIN_HEADER.test(value)) return value;
  const bytes = new TextEncoder().encode(value);
  return `=?base64?${btoa(String.fromCharCode(...bytes))}?=`;
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
