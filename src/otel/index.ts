/**
 * OpenTelemetry for toolwire: `otelObserver()` turns what an `Agent`, `connectMcp` /
 * `connectStdio` and `createMcpHandler` / `serveStdio` do into spans and metrics named after
 * the GenAI and MCP semantic conventions, and carries trace context in MCP's `params._meta`
 * (SEP-414), so one trace runs from the agent through the MCP server's tool. `@opentelemetry/api`
 * is an optional peer, imported by this entry only: a program that does not import this entry
 * loads none of it (the hooks it plugs into are optional calls, a few hundred bytes gzip).
 *
 * @module
 */

export type {
  McpRequestOperation,
  Observation,
  Observer,
  Operation,
  Outcome,
} from "../observer.ts";
export { type OtelObserverOptions, otelObserver } from "./otel-observer.ts";
export { w3cPropagator } from "./trace-context.ts";
