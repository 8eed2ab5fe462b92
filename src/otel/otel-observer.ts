// `otelObserver`: toolwire's operations as OpenTelemetry spans and metrics, named after the
// GenAI and MCP semantic conventions (semantic-conventions-genai v0.1.0, the conventions that
// moved out of OpenTelemetry semantic conventions v1.40, status Development). Each operation
// becomes one span; the spans of one agent run form one tree, and MCP requests carry their
// trace context in `params._meta` (SEP-414), so a server's span joins the client's trace. See
// docs/otel.md and design.md, "Observability".

import {
  type Attributes,
  type Context,
  context as contextApi,
  type Histogram,
  isSpanContextValid,
  type Link,
  type MeterProvider,
  metrics,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import type {
  McpRequestOperation,
  Observation,
  Observer,
  Operation,
  Outcome,
} from "../observer.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
import { inputMessages, outputMessages } from "./gen-ai-messages.ts";
import { w3cPropagator } from "./trace-context.ts";

/** How `otelObserver` reports; every option may be left out. */
export interface OtelObserverOptions {
  /** Where spans go; default the global one (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** Where the duration metrics go; default the global one (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
  /**
   * How trace context is written to and read from `params._meta` and HTTP headers. Default
   * W3C Trace Context and Baggage (`traceparent`, `tracestate`, `baggage`), whatever global
   * propagator is registered, so every runtime propagates alike.
   */
  propagator?: TextMapPropagator;
  /**
   * Records payloads: a run's input, a model turn's messages and output, a call's arguments
   * and result (`gen_ai.input.messages`, `gen_ai.output.messages`,
   * `gen_ai.system_instructions`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`),
   * the messages in the conventions' `{ role, parts }` schema. Default `false`: spans then
   * carry names, ids, sizes and outcomes, never content. Even with it, an MCP client's
   * arguments and results are scrubbed of its credentials first.
   */
  recordPayloads?: boolean;
  /** The agent's name, for `invoke_agent {gen_ai.agent.name}` and `gen_ai.agent.name`. */
  agentName?: string;
}

const SCOPE = "toolwire";
const VERSION = "0.1.0";
// The conventions' advice for MCP operation durations, in seconds.
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
// Their advice for a GenAI client's operation duration (seconds) and its token counts.
const GEN_AI_DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

/**
 * An `Observer` that turns the operations of an `Agent`, `connectMcp`/`connectStdio` and
 * `createMcpHandler`/`serveStdio` into OpenTelemetry spans (`invoke_agent`, `chat {model}`,
 * `execute_tool {name}`, `{mcp.method.name} {target}`) and the metrics
 * `mcp.client.operation.duration` and `mcp.server.operation.duration`. Give the same observer
 * (or one per side) to each as its `observer` option.
 *
 * A span's parent is the operation toolwire knows it runs in (a call's MCP request inside the
 * agent's `execute_tool`), else the runtime's active context (Node's, with a context manager
 * registered); a server's span is parented on the `_meta` trace context of the request and
 * linked to its HTTP request's.
 *
 * @example
 * ```ts
 * const observer = otelObserver({ tracerProvider });
 * const agent = new Agent({ model, toolsets: [await connectMcp({ url, observer })], observer });
 * ```
 */
export function otelObserver(options: OtelObserverOptions = {}): Observer {
  const settings: Settings = {
    propagator: options.propagator ?? w3cPropagator,
    payloads: options.recordPayloads === true,
    agentName: options.agentName,
  };
  // The providers are looked up as each operation starts, not here: a program's OpenTelemetry
  // setup often registers them after the module that made the observer was loaded, the metrics
  // API has no proxy that would pick up a meter provider registered later, and a restarted SDK
  // registers new ones (`trace.disable()` even replaces the proxy tracer provider). The
  // instruments are made again only when a provider changed.
  let current: Instruments | undefined;
  const instruments = (): Instruments => {
    const tracerProvider = options.tracerProvider ?? trace.getTracerProvider();
    const meterProvider = options.meterProvider ?? metrics.getMeterProvider();
    if (current?.tracerProvider !== tracerProvider || current.meterProvider !== meterProvider) {
      current = instrumentsOf(tracerProvider, meterProvider);
    }
    return current;
  };
  return {
    start(operation: Operation, parent?: Observation): Observation {
      const { tracer, durations, tokens } = instruments();
      const parentContext =
        parent instanceof OtelObservation ? parent.context : contextApi.active();
      const plan = planOf(operation, parentContext, settings);
      const span = tracer.startSpan(plan.name, plan.options, plan.parent);
      const spanContext = trace.setSpan(plan.parent, span);
      const histogram =
        operation.type === "mcp_request"
          ? durations[operation.side]
          : operation.type === "model_turn"
            ? durations.chat
            : undefined;
      const metric = histogram && { histogram, tokens, attributes: plan.metricAttributes };
      return new OtelObservation(span, spanContext, operation, settings, metric);
    },
  };
}

/** The tracer and the histograms of one pair of providers. */
interface Instruments {
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  tracer: Tracer;
  durations: { client: Histogram; server: Histogram; chat: Histogram };
  /** `gen_ai.client.token.usage`, recorded per model turn and token type. */
  tokens: Histogram;
}

function instrumentsOf(tracerProvider: TracerProvider, meterProvider: MeterProvider): Instruments {
  const meter = meterProvider.getMeter(SCOPE, VERSION);
  const histogram = (name: string, description: string, unit = "s", buckets = DURATION_BUCKETS) =>
    meter.createHistogram(name, {
      description,
      unit,
      advice: { explicitBucketBoundaries: buckets },
    });
  return {
    tracerProvider,
    meterProvider,
    tracer: tracerProvider.getTracer(SCOPE, VERSION),
    durations: {
      client: histogram(
        "mcp.client.operation.duration",
        "The duration of an MCP request as observed by the client, until its response.",
      ),
      server: histogram(
        "mcp.server.operation.duration",
        "The duration of an MCP request as observed by the server, until its response.",
      ),
      chat: histogram(
        "gen_ai.client.operation.duration",
        "GenAI operation duration.",
        "s",
        GEN_AI_DURATION_BUCKETS,
      ),
    },
    tokens: histogram(
      "gen_ai.client.token.usage",
      "Number of input and output tokens used.",
      "{token}",
      TOKEN_BUCKETS,
    ),
  };
}

interface Settings {
  propagator: TextMapPropagator;
  payloads: boolean;
  agentName: string | undefined;
}

interface Plan {
  name: string;
  options: { kind: SpanKind; attributes: Attributes; links?: Link[] };
  parent: Context;
  metricAttributes: Attributes;
}

// The span an operation starts: its name, kind and attributes, and the context it is a child of.
function planOf(operation: Operation, parent: Context, settings: Settings): Plan {
  const attributes: Attributes = {};
  const plan = (name: string, kind: SpanKind): Plan => ({
    name,
    options: { kind, attributes },
    parent,
    metricAttributes: {},
  });
  switch (operation.type) {
    case "agent_run": {
      attributes["gen_ai.operation.name"] = "invoke_agent";
      attributes["gen_ai.request.model"] = operation.model;
      if (operation.provider) attributes["gen_ai.provider.name"] = operation.provider;
      const name = settings.agentName;
      if (name !== undefined) attributes["gen_ai.agent.name"] = name;
      if (settings.payloads) {
        attributes["gen_ai.input.messages"] = json(inputMessages(operation.input));
      }
      return plan(name === undefined ? "invoke_agent" : `invoke_agent ${name}`, SpanKind.INTERNAL);
    }
    case "model_turn": {
      const metric: Attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": operation.model,
      };
      // Required on a chat span and its metrics; a model that names no provider leaves it
      // unset, as the conventions give no value for an unknown one.
      if (operation.provider) metric["gen_ai.provider.name"] = operation.provider;
      Object.assign(attributes, metric);
      // Every model turn is streamed (`Model.stream`); unset would say it was not.
      attributes["gen_ai.request.stream"] = true;
      if (settings.payloads) {
        attributes["gen_ai.input.messages"] = json(inputMessages(operation.messages));
        if (operation.system !== undefined) {
          // The conventions' system-instructions schema: a list of parts.
          attributes["gen_ai.system_instructions"] = json([
            { type: "text", content: operation.system },
          ]);
        }
      }
      const chat = plan(`chat ${operation.model}`, SpanKind.CLIENT);
      chat.metricAttributes = metric;
      return chat;
    }
    case "tool_call":
      attributes["gen_ai.operation.name"] = "execute_tool";
      attributes["gen_ai.tool.name"] = operation.toolName;
      attributes["gen_ai.tool.call.id"] = operation.callId;
      if (settings.payloads) attributes["gen_ai.tool.call.arguments"] = json(operation.arguments);
      return plan(`execute_tool ${operation.toolName}`, SpanKind.INTERNAL);
    case "mcp_request":
      return mcpPlan(operation, parent, settings, attributes);
  }
}

function mcpPlan(
  operation: McpRequestOperation,
  active: Context,
  settings: Settings,
  attributes: Attributes,
): Plan {
  const metric: Attributes = { "mcp.method.name": operation.method };
  attributes["mcp.method.name"] = operation.method;
  attributes["jsonrpc.request.id"] = String(operation.id);
  const target = targetOf(operation);
  if (target !== undefined && operation.method === "tools/call") {
    metric["gen_ai.tool.name"] = attributes["gen_ai.tool.name"] = target;
    metric["gen_ai.operation.name"] = attributes["gen_ai.operation.name"] = "execute_tool";
    if (settings.payloads && operation.params.arguments !== undefined) {
      attributes["gen_ai.tool.call.arguments"] = json(operation.params.arguments);
    }
  } else if (target !== undefined) {
    metric["gen_ai.prompt.name"] = attributes["gen_ai.prompt.name"] = target;
  }
  // The resource of a read or (un)subscription, on the span only: a URI is too varied for a
  // metric's attributes or the span's name.
  const uri = operation.params.uri;
  if (
    typeof uri === "string" &&
    /^resources\/(read|subscribe|unsubscribe)$/.test(operation.method)
  ) {
    attributes["mcp.resource.uri"] = uri;
  }
  // A server reads them from the request's headers (over stdio, the ones stdio sets).
  const headers = operation.headers;
  const protocolVersion =
    operation.protocolVersion ?? headers?.get("mcp-protocol-version") ?? undefined;
  if (protocolVersion !== undefined) {
    metric["mcp.protocol.version"] = attributes["mcp.protocol.version"] = protocolVersion;
  }
  const sessionId = operation.sessionId ?? headers?.get("mcp-session-id") ?? undefined;
  if (sessionId !== undefined) attributes["mcp.session.id"] = sessionId;
  const endpoint = operation.endpoint;
  if (endpoint === "stdio:") {
    metric["network.transport"] = attributes["network.transport"] = "pipe";
  } else if (endpoint !== undefined) {
    metric["network.transport"] = attributes["network.transport"] = "tcp";
    attributes["network.protocol.name"] = "http";
    const url = URL.canParse(endpoint) ? new URL(endpoint) : undefined;
    if (url) {
      // An IPv6 address without the brackets a URL writes it in (`[::1]` is `::1`).
      const address = url.hostname.replace(/^\[(.*)\]$/, "$1");
      metric["server.address"] = attributes["server.address"] = address;
      const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
      metric["server.port"] = attributes["server.port"] = port;
    }
  } else if (headers?.get("host") != null) {
    // A server's request that came over HTTP names its host (HTTP/1.1 requires the header). A
    // request handed to the handler in process has none and names no transport; `serveStdio`
    // tells its own as `stdio:` above. The HTTP version is not in the headers: left unset.
    metric["network.transport"] = attributes["network.transport"] = "tcp";
    attributes["network.protocol.name"] = "http";
  }
  const name = target === undefined ? operation.method : `${operation.method} ${target}`;
  if (operation.side === "client") {
    return {
      name,
      options: { kind: SpanKind.CLIENT, attributes },
      parent: active,
      metricAttributes: metric,
    };
  }
  // A server's span is a child of the context the request carried in `_meta`, linked to the
  // HTTP request's own (its `traceparent` header, or the active HTTP server span), which is
  // its parent when `_meta` carried none.
  const getter = {
    keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
    get: (carrier: Record<string, unknown>, key: string) => {
      const value = carrier[key];
      return typeof value === "string" ? value : undefined;
    },
  };
  const meta = operation.params._meta;
  const fromMeta = isJsonObject(meta) ? settings.propagator.extract(active, meta, getter) : active;
  const fromHttp = headers
    ? settings.propagator.extract(active, headers, {
        keys: () => [],
        get: (carrier: typeof headers, key: string) => carrier.get(key) ?? undefined,
      })
    : active;
  const activeSpan = trace.getSpanContext(active);
  const metaSpan = trace.getSpanContext(fromMeta);
  const carried = metaSpan !== undefined && metaSpan !== activeSpan;
  const options: Plan["options"] = { kind: SpanKind.SERVER, attributes };
  if (carried) {
    // The HTTP request's own context: what its headers carried, and the HTTP server span an
    // HTTP instrumentation may have made active around this handler.
    const links = [trace.getSpanContext(fromHttp), activeSpan]
      .filter((span) => span !== undefined && isSpanContextValid(span))
      .filter((span, i, all) => span?.spanId !== metaSpan.spanId && all.indexOf(span) === i)
      .map((span) => ({ context: span as SpanContext }));
    if (links.length > 0) options.links = links;
  }
  return { name, options, parent: carried ? fromMeta : fromHttp, metricAttributes: metric };
}

// The low-cardinality target the conventions put in a span's name: the tool of `tools/call`,
// the prompt of `prompts/get` (never a resource URI, which is high-cardinality).
function targetOf(operation: McpRequestOperation): string | undefined {
  const { method, params } = operation;
  const name = params.name;
  return (method === "tools/call" || method === "prompts/get") && typeof name === "string"
    ? name
    : undefined;
}

/** One span in progress, with the context its children (and `_meta`) carry. */
class OtelObservation implements Observation {
  readonly context: Context;
  readonly meta: Readonly<Record<string, string>> | undefined;
  readonly #span: Span;
  readonly #operation: Operation;
  readonly #settings: Settings;
  readonly #metric: { histogram: Histogram; tokens: Histogram; attributes: Attributes } | undefined;
  readonly #started = performance.now();
  #ended = false;

  constructor(
    span: Span,
    context: Context,
    operation: Operation,
    settings: Settings,
    metric: { histogram: Histogram; tokens: Histogram; attributes: Attributes } | undefined,
  ) {
    this.#span = span;
    this.context = context;
    this.#operation = operation;
    this.#settings = settings;
    this.#metric = metric;
    if (operation.type === "mcp_request" && operation.side === "client") {
      const carrier: Record<string, string> = {};
      settings.propagator.inject(context, carrier, {
        set: (target: Record<string, string>, key: string, value: string) => {
          target[key] = value;
        },
      });
      this.meta = Object.keys(carrier).length > 0 ? carrier : undefined;
    } else {
      this.meta = undefined;
    }
  }

  // Where the runtime keeps a current context (Node's AsyncLocalStorage, once a context
  // manager is registered), `body` runs with this span current, so what it starts nests under
  // it; elsewhere `context.with` just calls it.
  run<T>(body: () => T): T {
    return contextApi.with(this.context, body);
  }

  end(outcome: Outcome): void {
    if (this.#ended) return;
    this.#ended = true;
    const span = this.#span;
    const attributes: Attributes = {};
    const failure =
      outcome.type === "done" ? this.#done(outcome.result, attributes) : failureOf(outcome);
    if (failure) {
      if (failure.code !== undefined) attributes["rpc.response.status_code"] = failure.code;
      attributes["error.type"] = failure.type;
      span.setStatus(
        failure.message === undefined
          ? { code: SpanStatusCode.ERROR }
          : { code: SpanStatusCode.ERROR, message: failure.message },
      );
    }
    span.setAttributes(attributes);
    span.end();
    const metric = this.#metric;
    if (metric) {
      const recorded = { ...metric.attributes };
      if (failure) recorded["error.type"] = failure.type;
      if (failure?.code !== undefined) recorded["rpc.response.status_code"] = failure.code;
      metric.histogram.record((performance.now() - this.#started) / 1000, recorded);
    }
    const operation = this.#operation;
    if (metric && operation.type === "model_turn" && outcome.type === "done") {
      // Token counts as the model reported them, one point per type.
      const usage = isJsonObject(outcome.result) ? outcome.result.usage : undefined;
      for (const [type, count] of [
        ["input", isJsonObject(usage) ? usage.inputTokens : undefined],
        ["output", isJsonObject(usage) ? usage.outputTokens : undefined],
      ] as const) {
        if (typeof count === "number") {
          metric.tokens.record(count, { ...metric.attributes, "gen_ai.token.type": type });
        }
      }
    }
  }

  // What a finished operation produced, as attributes, and how it failed if it did: a run
  // stopped by `cancelled` or `error`, a model turn that did not complete, a tool result with
  // `isError` (`tool_error`: the tool answered with a failure, no protocol error).
  #done(result: unknown, attributes: Attributes): Failure | undefined {
    const operation = this.#operation;
    const payloads = this.#settings.payloads;
    const record = isJsonObject(result) ? result : {};
    switch (operation.type) {
      case "agent_run":
      case "model_turn": {
        const usage = isJsonObject(record.usage) ? record.usage : {};
        for (const [name, field] of [
          ["input_tokens", "inputTokens"],
          ["output_tokens", "outputTokens"],
          ["cache_read.input_tokens", "cacheReadTokens"],
          ["cache_creation.input_tokens", "cacheWriteTokens"],
        ] as const) {
          const count = usage[field];
          if (typeof count === "number") attributes[`gen_ai.usage.${name}`] = count;
        }
        const run = operation.type === "agent_run";
        const finish = run ? record.finishReason : record.finish;
        if (typeof finish === "string") attributes["gen_ai.response.finish_reasons"] = [finish];
        if (run && typeof record.stop === "string") attributes["toolwire.agent.stop"] = record.stop;
        const ended = run ? record.stop : record.end;
        if (payloads && typeof record.text === "string") {
          // A run's answer is its text; a turn's also its reasoning and tool calls.
          const answer = run ? { text: record.text } : { ...record, text: record.text };
          attributes["gen_ai.output.messages"] = json(outputMessages(answer, finish, ended));
        }
        if (ended === "cancelled") return { type: "cancelled", message: "cancelled" };
        if (ended === "error" || ended === "failed") return failureOf({ error: record.error });
        return undefined;
      }
      case "tool_call":
      case "mcp_request":
        if (payloads && (operation.type === "tool_call" || targetOf(operation) !== undefined)) {
          attributes["gen_ai.tool.call.result"] = json(result);
        }
        return record.isError === true
          ? { type: "tool_error", message: "the tool answered with an error (isError)" }
          : undefined;
    }
  }
}

/** How an operation failed: `error.type`, the status description, the JSON-RPC error code. */
interface Failure {
  type: string;
  message?: string | undefined;
  code?: string | undefined;
}

// A failed operation's `error.type`: the JSON-RPC error code when the peer answered with one
// (also `rpc.response.status_code`), else the kind of the error (`cancelled`, `timeout`,
// `transport`, `protocol`, a `ModelError`'s `rate_limit`, …).
function failureOf(outcome: { error: unknown; code?: number | undefined }): Failure {
  const message = messageOf(outcome.error);
  if (outcome.code !== undefined) {
    const code = String(outcome.code);
    return { type: code, message, code };
  }
  return { type: kindOf(outcome.error), message };
}

// The kind of a failure: a toolwire `ToolError`'s or `ModelError`'s `type` (`transport`,
// `protocol`, `timeout`, `rate_limit`, …), else the error's class name.
function kindOf(error: unknown): string {
  if (isJsonObject(error)) {
    const data = error.data;
    if (isJsonObject(data) && typeof data.type === "string") return data.type;
    if (typeof error.type === "string") return error.type;
    if (typeof error.name === "string" && error.name !== "") return error.name;
  }
  return "_OTHER";
}

// The status description: a toolwire error's message (already free of the client's
// credentials), never an arbitrary error's, which may hold anything.
function messageOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const name = error.name;
  return name === "ToolError" || name === "ModelError" ? error.message : name;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return '"[unserializable]"';
  }
}
