// The one hook an instrumentation (`toolwire/otel`) needs: the agent, the MCP client and the
// MCP server tell an `Observer` when an operation starts, and the `Observation` it returns
// when it ends. Nothing here knows OpenTelemetry. Every caller reaches the observer through
// `observer?.start(…)`, so a program that gives none builds no operation and runs nothing but
// those calls' checks; their code weighs a few hundred bytes gzip (design.md, "Observability",
// O1).

/**
 * What an operation is, discriminated by `type`:
 *
 * - `agent_run`: one `agent.run` or `agent.resume`, from start to `done` (`model` and
 *   `provider` as for a turn).
 * - `model_turn`: one model request of a run (`model` is the `Model`'s `id`, `provider` its
 *   `provider`, when it names one), its stream read to the end.
 * - `tool_call`: one call the agent runs (after its gates), `arguments` as the model gave them.
 * - `mcp_request`: one JSON-RPC request the MCP client sends (`side: "client"`) or the MCP
 *   server handles (`side: "server"`).
 */
export type Operation =
  | { type: "agent_run"; model: string; provider?: string | undefined; input: unknown }
  | {
      type: "model_turn";
      model: string;
      provider?: string | undefined;
      turn: number;
      messages: unknown;
      system?: string | undefined;
    }
  | { type: "tool_call"; toolName: string; callId: string; arguments: unknown }
  | McpRequestOperation;

/** One JSON-RPC request of MCP, as the client sends it or the server handles it. */
export interface McpRequestOperation {
  type: "mcp_request";
  side: "client" | "server";
  method: string;
  id: string | number;
  /**
   * The request's params: a client's as it sends them (before the trace context is added),
   * scrubbed of its credentials; a server's as they came, `_meta` (where a client's trace
   * context rides) included.
   */
  params: Record<string, unknown>;
  /** Client: the protocol version negotiated (a server reads its `headers`). */
  protocolVersion?: string | undefined;
  /** Client: the 2025 session's id (a server reads its `headers`). */
  sessionId?: string | undefined;
  /**
   * Client: the endpoint, without user info, query or fragment; `stdio:` for a child. Server:
   * `stdio:` for the requests `serveStdio` reads (an HTTP request's `headers` tell the rest).
   */
  endpoint?: string | undefined;
  /**
   * Server: the headers of the HTTP request it came in (over stdio, the ones stdio sets), where
   * `mcp-protocol-version` and `mcp-session-id` are read.
   */
  headers?: { get(name: string): string | null } | undefined;
}

/**
 * How an operation ended, discriminated by `type`: `done` with what it produced, or `failed`
 * with the error (a cancelled call or request fails with a `ToolError` `cancelled`) and the
 * JSON-RPC error `code` when the peer answered with one. A run always ends `done` with its
 * `RunResult` and a model turn with `{ end, text, toolCalls, usage, finish, error }`: their
 * `stop` and `end` say whether they were cancelled or failed. A tool result with `isError` is
 * `done` too.
 */
export type Outcome =
  | { type: "done"; result: unknown }
  | { type: "failed"; error: unknown; code?: number | undefined };

/** One operation in progress, as the observer returned it. */
export interface Observation {
  /**
   * Entries for the `params._meta` of the request this operation sends (W3C `traceparent`,
   * `tracestate`, `baggage`), or nothing.
   */
  readonly meta?: Readonly<Record<string, string>> | undefined;
  /** Ends the operation; called exactly once. */
  end(outcome: Outcome): void;
  /**
   * Runs `body` with this operation as the runtime's current context, where the runtime keeps
   * one (Node's `AsyncLocalStorage`), so that what `body` starts nests under it. The MCP server
   * runs a request's method through it: a tool's own spans and fetches are children of the
   * server's span. Optional; without it `body` is simply called.
   */
  run?<T>(body: () => T): T;
}

/**
 * Receives toolwire's operations (`toolwire/otel` turns them into spans and metrics). Pass one
 * as the `observer` option of `Agent`, `connectMcp`, `connectStdio`, `createMcpHandler` and
 * `serveStdio`; `parent` is the operation this one runs inside, when toolwire knows it (a
 * tool call's MCP request), else the observer decides (its runtime's active context). It must
 * not throw.
 */
export interface Observer {
  start(operation: Operation, parent?: Observation): Observation;
}
