// The MCP client's entry: `connectMcp` checks its options, picks the protocol era (a
// 2026-07-28 `server/discover`, or the 2025 `initialize`, or the first falling back to the
// second), lists the server's tools page by page and returns a `Toolset` over them. The files of the flow, in the
// order a call meets them: this one (connect, list), `remote-tool.ts` (declarations, checks,
// results), `remote-handler.ts` (one call), `server-request.ts` (what the server asks during a
// call), `remote-task.ts` (a call that became a task), `mcp-session.ts` (the HTTP exchange). See
// `docs/design.md`, "Consuming MCP".

import { cancelledError } from "../../abort.ts";
import { toolName } from "../../declaration/tool-name.ts";
import { errorText, isToolError, ToolError } from "../../errors.ts";
import type { ToolsetBackend } from "../../execution/backend.ts";
import type { ToolLog } from "../../execution/handler-io.ts";
import type { Observer } from "../../observer.ts";
import { excerpt } from "../../redaction.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { type JsonMeasure, measureJson } from "../../schema/measure-json.ts";
import type { JsonSchemaValidator } from "../../schema/schema-input.ts";
import { Toolset } from "../../toolset/toolset.ts";
import { jsonRpcNotification } from "../json-rpc.ts";
import {
  isSupportedProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  MCP_ERROR,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "../protocol.ts";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_PENDING_REPLIES,
  type McpAuth,
  McpSession,
  type ModernEnvelope,
  protocolError,
  rpcErrorOf,
  withDeadline,
} from "./mcp-session.ts";
import { RemoteHandler } from "./remote-handler.ts";
import { createRemoteSources, type McpRemoteSources } from "./remote-sources.ts";
import {
  createRemoteCallPlan,
  type RemoteCallPlan,
  type RemoteTool,
  toolFromMcp,
} from "./remote-tool.ts";

/** Options of `connectMcp`. Only `url` is required. */
export interface ConnectMcpOptions {
  /** The server's MCP endpoint, an absolute `http:` or `https:` URL. */
  url: string | URL;
  /**
   * Sent verbatim with every request (authorization, for example). Their values, like the
   * URL's query values and user info, never appear in an error, log or event.
   */
  headers?: HeadersInit;
  /**
   * Authorizes every HTTP request (`oauth()` from `toolwire/oauth` signs in where the server
   * says). Its `authorization()` gives each request's `Authorization` header; on a 401, or a
   * 403 with `insufficient_scope`, `unauthorized()` gets new credentials and the request is
   * sent once more. A refusal right after that ends with a `transport` error. Not together
   * with an `Authorization` header in `headers`.
   */
  auth?: McpAuth;
  /**
   * The MCP revision to speak (default `"auto"`). `"2026-07-28"`: no session, every request
   * carries its version and capabilities; the connection opens with `server/discover`.
   * `"2025-11-25"`: the session revisions (2025-11-25, or 2025-06-18 when the server picks
   * it), opened with `initialize`. `"auto"` sends `server/discover` first and falls back to
   * `initialize` when the answer shows a legacy server (an HTTP 400, 404 or 405 without a
   * 2026 JSON-RPC error, a JSON-RPC error in a 200, or a result that is no discover result
   * listing 2026-07-28 in `supportedVersions`, such as the `{}` some servers answer every
   * method with); the legacy verdict is remembered per endpoint (origin and path) and `fetch`
   * function, so later connections skip the probe. 401, 403, 5xx, network errors and timeouts
   * fail the connection instead, as does a result that is no discover result when pinned to
   * `"2026-07-28"` (`protocol`).
   */
  protocol?: "auto" | "2026-07-28" | "2025-11-25";
  /** Lists and calls the tools as `namespace__name`; the server still sees its own names. */
  namespace?: string;
  /**
   * Believe the server's tool annotations (default `false`). Untrusted, every remote tool
   * counts as writing, destructive and open-world and goes through the approver whatever its
   * `readOnlyHint` says; trusted, the hints are read with MCP's defaults for missing ones.
   * Set it only for a server you trust to describe its tools honestly.
   */
  trustAnnotations?: boolean;
  /**
   * Cap of one response body, one SSE line and one SSE event's data, in bytes (default
   * 4 MiB = 4 194 304). A larger answer fails that one exchange with a `transport` error
   * saying which cap; the connection's other calls are unaffected.
   */
  maxMessageBytes?: number;
  /**
   * Most tools the server may list, over all `tools/list` pages together (default 10 000). A
   * server listing more (a fresh `nextCursor` with every page, say) fails the listing with a
   * `transport` error naming this cap: at connect time the connection, later the refresh,
   * which keeps the previous list.
   */
  maxTools?: number;
  /**
   * Most bytes of JSON the listed tool entries may hold together, over all pages (default
   * 32 MiB = 33 554 432). Past it the listing fails like past `maxTools`, so what a listing
   * keeps in memory stays bounded whatever each page holds.
   */
  maxListBytes?: number;
  /**
   * Deepest nesting of objects and arrays in one listed tool entry, its schemas, annotations
   * and `_meta` included (default 128 levels), and of an elicitation's `requestedSchema`. A
   * deeper tool is skipped and reported through `onLog` with its name (it would overflow the
   * stack of every later model request that carries its schema); a deeper elicitation is
   * declined.
   */
  maxSchemaDepth?: number;
  /**
   * Most bytes of JSON one listed tool entry may hold (default 256 KiB = 262 144). A larger
   * tool is skipped and reported through `onLog` with its name, since its schema would travel
   * with every model request.
   */
  maxToolBytes?: number;
  /**
   * Most replies to the server's own requests (a `ping`, a request refused) waiting to be
   * sent (default 256). Each reply is a POST of its own; four go at a time, so a server
   * flooding pings cannot open thousands of requests or starve the connection's own. Past
   * this many waiting, a request gets no answer, as from a busy client.
   */
  maxPendingReplies?: number;
  /**
   * Idle deadline of each request, in milliseconds (default 30 000). A tool call's deadline
   * restarts with every progress notification and pauses while a form or sampling
   * interaction waits for the caller. An elapsed deadline is a `timeout` error whose
   * `timeoutMs` is this value.
   */
  requestTimeoutMs?: number;
  /**
   * Answers the server's elicitations as `interaction` steps: a text question (one required
   * string field `text`) is answered with a string, any other form with an object. With
   * 2026-07-28 (the default when the server speaks it) a call that passes `onInteraction`
   * declares form questions on its own requests without this option; `true` declares them on
   * every request, and is what a 2025 session needs, whose capabilities are fixed at
   * `initialize` (default `false`: a call without an answerer is never asked).
   */
  formInteractions?: boolean;
  /**
   * Declares the `sampling` capability and turns the server's `sampling/createMessage` requests
   * into `sampling` interaction steps, which the caller answers from its own model, ideally after
   * a person approved the request (default `false`: such requests get a JSON-RPC error, and a
   * toolwire server then tells its tool that sampling was declined).
   */
  samplingInteractions?: boolean;
  /**
   * Declares the `roots` capability and turns the server's `roots/list` requests into `roots`
   * interaction steps, which the caller answers with the `Root[]` it lets the tool work in (the
   * same question a local tool asks with `ctx.requestRoots()`). Default `false`: a 2025 server's
   * `roots/list` gets "method not found" and a 2026 one is answered with no roots.
   */
  rootsInteractions?: boolean;
  /**
   * Checks remote tools on this side too: arguments against the input schema (a mismatch is
   * `invalid_arguments` and nothing is sent), `structuredContent` against the output schema
   * (`invalid_output`), and form replies against the elicitation's schema. Pass
   * `jsonSchemaValidator` from `toolwire/json-schema`. Absent (the default), the server
   * validates arguments and replies itself and `structuredContent` is not checked, so a client
   * ships no JSON Schema interpreter. A schema the validator cannot apply is left to the server.
   */
  jsonSchemaValidator?: JsonSchemaValidator;
  /**
   * Receives the connection's own log lines, such as a listed tool that was skipped because
   * its name or schema cannot be used here, or a server that declares no `tools` capability
   * (level `warning`, logger `toolwire/mcp`, `data` `{ message, tool? }`). A throwing listener
   * is ignored.
   */
  onLog?(log: ToolLog): void;
  /** The `fetch` to use; `globalThis.fetch` at call time when absent. */
  fetch?: typeof fetch;
  /** Aborts connecting. */
  signal?: AbortSignal;
  /**
   * Told of every request the connection sends, which then carries the observer's trace
   * context in `params._meta` (SEP-414): `otelObserver()` from `toolwire/otel` makes one.
   * Default: none.
   */
  observer?: Observer;
}

/**
 * MCP toolset type: what `connectMcp` returns, the server's tools as a `Toolset` and beside them
 * its resources, resource templates, prompts and completion as plain calls.
 */
export type McpToolset = Toolset & McpRemoteSources;

const MAX_TIMER_MS = 2_147_483_647;
const DEFAULT_MAX_TOOLS = 10_000;
const DEFAULT_MAX_LIST_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_SCHEMA_DEPTH = 128;
const DEFAULT_MAX_TOOL_BYTES = 256 * 1024;
// A server that keeps inventing cursors must not keep the client listing forever.
const MAX_PAGES = 1000;
// The package version; the clientInfo a server logs to tell its clients apart.
const CLIENT_INFO = { name: "toolwire", version: "0.1.0" } as const;

/**
 * Creates a toolset over a remote MCP server (Streamable HTTP, revisions 2026-07-28,
 * 2025-11-25 and 2025-06-18; see `protocol`): opens the connection, lists every tool page by
 * page, and returns a `Toolset` with the semantics of a local one. Only web standards are
 * used, so it runs in browsers, workers, Deno and Node. `shutdown()` ends a 2025 session with
 * one DELETE; a 2026 connection has no session to end.
 *
 * Remote tools fail closed: unless `trustAnnotations` is set, none is read-only and each is
 * assumed to write, destroy and reach the open world, so an approver sees every call. A listed
 * tool whose name or schema cannot be used is skipped and reported through `onLog`.
 *
 * @example
 * ```ts
 * const repo = await connectMcp({ url: "https://example.com/mcp", namespace: "repo" });
 * const result = await repo.call("repo__search", { q: "toolwire" });
 * await repo.shutdown();
 * ```
 *
 * @throws ToolError `invalid_configuration` for bad options, `transport` (network, HTTP
 * status, an answer over `maxMessageBytes`, a listing over `maxTools` or `maxListBytes`), `protocol` (JSON-RPC error, malformed answer,
 * unsupported revision), `timeout`, `cancelled`, `duplicate_name` (the server lists one name
 * twice), or `build_cleanup` when closing the half-open session failed too.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */
export async function connectMcp(options: ConnectMcpOptions): Promise<McpToolset> {
  const signal = options?.signal;
  if (signal?.aborted) throw cancelledError("initialize", signal);
  const settings = checkOptions(options);
  const session = new McpSession(
    settings.url,
    settings.headers,
    settings.fetch,
    settings.maxMessageBytes,
    settings.auth,
  );
  session.maxPendingReplies = settings.maxPendingReplies;
  session.observer = options.observer;
  try {
    let listing: Listing = { tools: [], ttlMs: Number.POSITIVE_INFINITY };
    if (await open(session, settings)) listing = await listTools(session, settings);
    else log(settings, session, "the server declares no `tools` capability, so no tool is listed");
    let closed = false;
    const backend = remoteBackend(session, listing, settings);
    const shutdown = backend.shutdown;
    backend.shutdown = () => {
      closed = true;
      return shutdown?.();
    };
    const sources = createRemoteSources({
      session,
      capabilities: capabilitiesOf.get(session) ?? {},
      source: { type: "mcp", origin: session.origin, trusted: settings.trusted },
      timeoutMs: settings.timeoutMs,
      maxEntries: settings.maxTools,
      maxListBytes: settings.maxListBytes,
      closed: () => closed,
    });
    return Object.assign(Toolset.fromBackend(backend), sources);
  } catch (error) {
    // Every error it reports is scrubbed, its own ones included (a `duplicate_name` that a
    // server built from a token it echoes).
    const primary = session.scrubError(error);
    try {
      await session.close();
    } catch (cleanup) {
      throw new ToolError({
        type: "build_cleanup",
        primary,
        cleanup: session.scrubError(cleanup),
      });
    }
    throw primary;
  }
}

interface Settings {
  url: string;
  protocol: "auto" | "2026-07-28" | "2025-11-25";
  headers: Headers;
  auth: McpAuth | undefined;
  namespace: string | undefined;
  trusted: boolean;
  maxMessageBytes: number;
  maxTools: number;
  maxListBytes: number;
  maxSchemaDepth: number;
  maxToolBytes: number;
  maxPendingReplies: number;
  timeoutMs: number;
  formInteractions: boolean;
  samplingInteractions: boolean;
  rootsInteractions: boolean;
  jsonSchemaValidator: JsonSchemaValidator | undefined;
  onLog: ((log: ToolLog) => void) | undefined;
  fetch: typeof fetch | undefined;
  signal: AbortSignal | undefined;
}

type Verdict = "modern" | "legacy";

// The era each endpoint answered `auto` with, per `fetch` function (a different `fetch` may
// reach a different server under the same URL).
const verdicts = new WeakMap<typeof fetch, Map<string, Verdict>>();

function verdictsOf(settings: Settings): Map<string, Verdict> {
  const key = settings.fetch ?? globalThis.fetch;
  const known = verdicts.get(key) ?? new Map<string, Verdict>();
  verdicts.set(key, known);
  return known;
}

// Opens the connection in the era `protocol` names, probing for `auto` (design.md, "Consuming
// MCP", "2026-07-28"). Returns whether the server offers tools at all.
async function open(session: McpSession, settings: Settings): Promise<boolean> {
  if (settings.protocol === "2025-11-25") return initialize(session, settings);
  const endpoint = new URL(settings.url);
  const key = endpoint.origin + endpoint.pathname;
  const known = verdictsOf(settings);
  if (settings.protocol === "auto" && known.get(key) === "legacy") {
    try {
      return await initialize(session, settings);
    } catch (error) {
      // The server may have moved on; the next connection probes again.
      known.delete(key);
      throw error;
    }
  }
  session.useModernProtocol(envelopeOf(settings));
  try {
    const offersTools = await discoverOrRetry(session, settings);
    if (settings.protocol === "auto") known.set(key, "modern");
    return offersTools;
  } catch (error) {
    if (settings.protocol !== "auto") throw error;
    if (!isLegacyAnswer(error) && !(isToolError(error) && notDiscovered.has(error))) throw error;
  }
  session.useModernProtocol(undefined);
  const offersTools = await initialize(session, settings);
  known.set(key, "legacy");
  return offersTools;
}

// What every 2026-07-28 request declares: form elicitation and sampling only when the caller
// answers them, so a server never asks what it cannot get (URL mode is never declared). A call
// whose caller passes `onInteraction` adds form elicitation to its own requests
// (`RemoteHandler`).
function envelopeOf(settings: Settings): ModernEnvelope {
  return {
    version: MODERN_PROTOCOL_VERSIONS[0],
    capabilities: {
      ...(settings.formInteractions ? { elicitation: { form: {} } } : {}),
      ...(settings.samplingInteractions ? { sampling: {} } : {}),
      ...(settings.rootsInteractions ? { roots: {} } : {}),
    },
    clientInfo: { ...CLIENT_INFO },
  };
}

// The capabilities each connection's server declared (`server/discover` or `initialize`).
const capabilitiesOf = new WeakMap<McpSession, Record<string, unknown>>();

// Failures of a `server/discover` answer that is no discover result: with `auto` that is a
// server of the session era answering every method (a common shape answers `{}`).
const notDiscovered = new WeakSet<ToolError>();

// `server/discover`, which every 2026-07-28 server implements. Returns whether it offers tools.
// The answer must be a discover result that lists 2026-07-28 among `supportedVersions` and has
// `capabilities`; anything else is a `protocol` error, never a 2026 server without tools.
async function discover(session: McpSession, settings: Settings): Promise<boolean> {
  const { timeoutMs, signal } = settings;
  const result = await session.requestWithin("server/discover", {}, { timeoutMs, signal });
  const problem = discoverProblem(result);
  if (problem !== undefined) {
    const error = protocolError(excerpt(`server/discover ${problem}`, session.secrets, 300));
    notDiscovered.add(error);
    throw error;
  }
  const capabilities = result.capabilities as Record<string, unknown>;
  capabilitiesOf.set(session, capabilities);
  const tools = capabilities.tools;
  if (isJsonObject(tools) && tools.listChanged === true) session.announcesToolChanges = true;
  return isJsonObject(tools);
}

// What makes an answer no `DiscoverResult` this client can use, or undefined for a good one.
function discoverProblem(result: Record<string, unknown>): string | undefined {
  const versions = result.supportedVersions;
  if (!Array.isArray(versions) || !versions.every((version) => typeof version === "string")) {
    return "returned no `supportedVersions` list, so the server is no 2026-07-28 one";
  }
  if (!versions.includes(MODERN_PROTOCOL_VERSIONS[0])) {
    const shown = JSON.stringify(versions.slice(0, 5));
    return `lists the versions ${shown}, not ${MODERN_PROTOCOL_VERSIONS[0]}`;
  }
  if (!isJsonObject(result.capabilities)) return "returned no `capabilities` object";
  return undefined;
}

// `server/discover`, sent once more when the server refused the version (`-32022`) yet lists
// 2026-07-28 among those it serves: a server may turn a first choice away.
async function discoverOrRetry(session: McpSession, settings: Settings): Promise<boolean> {
  try {
    return await discover(session, settings);
  } catch (error) {
    const detail = rpcErrorOf(error);
    const data = isJsonObject(detail?.data) ? detail.data : {};
    const supported = Array.isArray(data.supported) ? data.supported : [];
    const refused = detail?.code === MCP_ERROR.unsupportedProtocolVersion;
    if (!refused || !supported.includes(MODERN_PROTOCOL_VERSIONS[0])) throw error;
    return await discover(session, settings);
  }
}

// Whether the probe's failure shows a server of the session era: an HTTP 400, 404 or 405
// without a 2026 JSON-RPC error (header `-32020`, capability `-32021`, envelope `-32602`), a
// version error that does not list 2026-07-28, or a JSON-RPC error in a 200 (a 2026 server
// never refuses `server/discover`). 401/403, 5xx, network errors and timeouts are no evidence.
function isLegacyAnswer(error: unknown): boolean {
  const detail = rpcErrorOf(error);
  if (!detail) return false;
  if (detail.status === 200) return true;
  if (detail.status !== 400 && detail.status !== 404 && detail.status !== 405) return false;
  if (detail.code === MCP_ERROR.unsupportedProtocolVersion) {
    const data = isJsonObject(detail.data) ? detail.data : {};
    const supported = Array.isArray(data.supported) ? data.supported : [];
    return !supported.includes(MODERN_PROTOCOL_VERSIONS[0]);
  }
  const modern: unknown[] = [MCP_ERROR.headerMismatch, MCP_ERROR.missingClientCapability, -32602];
  return !modern.includes(detail.code);
}

// The MCP lifecycle's initialization: `initialize` (advertising elicitation only with form
// interactions, as `elicitation: {}`, the shape both 2025-06-18 and 2025-11-25 read as form
// support, and `sampling: {}` only with sampling interactions), a check that the server
// answered with a revision toolwire speaks, then `notifications/initialized`. Each exchange
// has its own deadline. Returns whether the server offers tools at all.
async function initialize(session: McpSession, settings: Settings): Promise<boolean> {
  const { timeoutMs, signal } = settings;
  const params = {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {
      ...(settings.formInteractions ? { elicitation: {} } : {}),
      ...(settings.samplingInteractions ? { sampling: {} } : {}),
      ...(settings.rootsInteractions ? { roots: {} } : {}),
    },
    clientInfo: { ...CLIENT_INFO },
  };
  const result = await session.requestWithin("initialize", params, { timeoutMs, signal });
  const version = result.protocolVersion;
  if (!isSupportedProtocolVersion(version)) {
    const shown = JSON.stringify(excerpt(String(version), session.secrets, 40));
    throw protocolError(
      `the server speaks MCP ${shown}; toolwire speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`,
    );
  }
  session.useProtocolVersion(version);
  const label = "notifications/initialized";
  await withDeadline(
    label,
    timeoutMs,
    (inner) => session.send(jsonRpcNotification(label), { signal: inner, label }),
    signal,
  );
  session.openStandaloneStream();
  const capabilities = isJsonObject(result.capabilities) ? result.capabilities : {};
  capabilitiesOf.set(session, capabilities);
  return isJsonObject(capabilities.tools);
}

// The listed tools, and how long the list stays fresh in milliseconds (2026-07-28 `ttlMs`, the
// least of its pages', at most a day; a 2025 list never goes stale).
interface Listing {
  tools: RemoteTool[];
  ttlMs: number;
}

const MAX_TTL_MS = 24 * 60 * 60 * 1000;

// Every tool of the server, following `nextCursor` page by page; a repeated cursor is a
// protocol error rather than an endless loop. Each page has its own deadline. An entry that
// cannot be a tool here is skipped and logged (design.md M2).
async function listTools(session: McpSession, settings: Settings): Promise<Listing> {
  const { timeoutMs, signal } = settings;
  const mapping = {
    origin: session.origin,
    trusted: settings.trusted,
    formInteractions: settings.formInteractions,
    samplingInteractions: settings.samplingInteractions,
    rootsInteractions: settings.rootsInteractions,
    modern: session.modern,
    secrets: session.secrets,
    ...(settings.namespace === undefined ? {} : { namespace: settings.namespace }),
  };
  const tools: RemoteTool[] = [];
  const seen = new Set<string>();
  // Every entry counts, skipped ones too: the caps bound the work as well as what is kept.
  let listed = 0;
  let bytes = 0;
  const overCap = (what: string) =>
    new ToolError({
      type: "transport",
      message: `tools/list listed more than ${what}; the listing was abandoned`,
    });
  // A missing or odd `ttlMs` counts as 0: stale at once.
  let ttlMs = session.modern ? MAX_TTL_MS : Number.POSITIVE_INFINITY;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const result = await session.requestWithin("tools/list", params, { timeoutMs, signal });
    if (!Array.isArray(result.tools)) throw protocolError("tools/list returned no `tools` array");
    listed += result.tools.length;
    if (listed > settings.maxTools) throw overCap(`${settings.maxTools} tools (maxTools)`);
    for (const raw of result.tools) {
      // Measured before anything walks it recursively: a 100,000-level schema must not reach
      // the scrubber, the converter or a model request.
      const size = measureJson(raw);
      bytes += size.bytes;
      if (bytes > settings.maxListBytes) {
        throw overCap(`${settings.maxListBytes} bytes of tool entries (maxListBytes)`);
      }
      const oversize = oversized(raw, size, settings, session.secrets);
      if (oversize !== undefined) {
        skipped(settings, session, oversize, raw);
        continue;
      }
      // A tool named after a credential becomes `[redacted]`, a name MCP does not allow: skipped.
      const entry = session.scrubEchoes(raw);
      const tool = toolFromMcp(entry, mapping);
      if (typeof tool !== "string") tools.push(tool);
      else skipped(settings, session, tool, entry);
    }
    if (session.modern) {
      const given = result.ttlMs;
      const page = typeof given === "number" && Number.isFinite(given) && given > 0 ? given : 0;
      ttlMs = Math.min(ttlMs, page);
    }
    const next = result.nextCursor;
    if (next === undefined || next === null) return { tools, ttlMs };
    if (typeof next !== "string") throw protocolError("tools/list returned a non-string cursor");
    if (seen.has(next)) throw protocolError("tools/list repeated the cursor it sent before");
    seen.add(next);
    cursor = next;
  }
  throw protocolError(`tools/list returned more than ${MAX_PAGES} pages`);
}

// Why a tool entry is too deep or too large to keep, or nothing. Too deep, its schema would
// overflow the stack of `JSON.stringify` in every later model request.
function oversized(
  entry: unknown,
  size: JsonMeasure,
  limits: Pick<Settings, "maxSchemaDepth" | "maxToolBytes">,
  secrets: readonly string[],
): string | undefined {
  const { maxSchemaDepth, maxToolBytes } = limits;
  const name = isJsonObject(entry) && typeof entry.name === "string" ? entry.name : "";
  // Scrubbed, then cut, like every text from the server: a cut first would leave most of a
  // credential unrecognised by the scrub of the whole log line.
  const shown = JSON.stringify(excerpt(name, secrets, 140));
  if (size.depth > maxSchemaDepth) {
    return `tool ${shown} is nested ${size.depth} levels deep, more than maxSchemaDepth (${maxSchemaDepth})`;
  }
  if (size.bytes > maxToolBytes) {
    return `tool ${shown} takes about ${size.bytes} bytes of JSON, more than maxToolBytes (${maxToolBytes})`;
  }
  return undefined;
}

function skipped(settings: Settings, session: McpSession, reason: string, entry: unknown): void {
  const name = isJsonObject(entry) && typeof entry.name === "string" ? entry.name : undefined;
  log(settings, session, `skipped a remote tool: ${reason}`, name);
}

// One `warning` line of the connection's own through `onLog`, scrubbed.
function log(settings: Settings, session: McpSession, message: string, tool?: string): void {
  const data: Record<string, unknown> = { message: session.scrub(message) };
  // Scrubbed, then cut: a cut first would leave most of a credential unrecognised.
  if (tool !== undefined) data.tool = excerpt(tool, session.secrets, 140);
  try {
    settings.onLog?.({ level: "warning", logger: "toolwire/mcp", data });
  } catch {
    // A faulty listener must not fail the connection it listens to.
  }
}

// The backend of a remote toolset: the inventory listed at connect time (listed again when a
// 2026 list's `ttlMs` has passed, on the next `listTools`; the old one is kept when that
// fails), one fresh `RemoteHandler` per call, and a shutdown that ends the MCP session.
function remoteBackend(
  session: McpSession,
  listing: Listing,
  settings: Settings,
): ToolsetBackend<RemoteHandler> {
  // A 2025 server that takes task-augmented calls says so at `initialize`.
  const tasks = capabilitiesOf.get(session)?.tasks;
  const requests = isJsonObject(tasks) && isJsonObject(tasks.requests) ? tasks.requests : {};
  const taskCalls =
    !session.modern && isJsonObject(requests.tools) && isJsonObject(requests.tools.call);
  const plans = { ...settings, taskCalls };
  let inventory = inventoryOf(listing.tools, plans);
  let staleAt = Date.now() + listing.ttlMs;
  // A list that stays fresh a while is worth a listen stream that says when it changed.
  const listen = (ttlMs: number) => {
    if (ttlMs > 0 && Number.isFinite(ttlMs) && session.announcesToolChanges) {
      session.listenForToolChanges(() => {
        staleAt = 0;
      });
    }
  };
  listen(listing.ttlMs);
  const refresh = async () => {
    try {
      const fresh = await listTools(session, { ...settings, signal: undefined });
      inventory = inventoryOf(fresh.tools, plans);
      staleAt = Date.now() + fresh.ttlMs;
      listen(fresh.ttlMs);
    } catch (error) {
      log(
        settings,
        session,
        `listing the tools again failed; kept the previous list: ${errorText(error)}`,
      );
    }
  };
  let refreshing: Promise<void> | undefined;
  return {
    listTools: async () => {
      if (Date.now() >= staleAt) {
        refreshing ??= refresh().finally(() => {
          refreshing = undefined;
        });
        await refreshing;
      }
      return inventory.infos.slice();
    },
    toolHandler: async (name) => {
      const plan = inventory.plans.get(name);
      if (!plan)
        throw session.scrubError(new ToolError({ type: "unknown_tool", name: String(name) }));
      return new RemoteHandler(session, plan);
    },
    shutdown: () => session.close(),
  };
}

function inventoryOf(tools: readonly RemoteTool[], settings: Settings & { taskCalls: boolean }) {
  const plans = new Map<string, RemoteCallPlan>();
  for (const tool of tools) {
    const name = tool.info.name;
    if (plans.has(name)) throw new ToolError({ type: "duplicate_name", name });
    plans.set(name, createRemoteCallPlan(tool, settings));
  }
  return { plans, infos: tools.map((tool) => tool.info) };
}

function checkOptions(options: ConnectMcpOptions): Settings {
  const invalid = (message: string) => new ToolError({ type: "invalid_configuration", message });
  if (typeof options !== "object" || options === null) throw invalid("options must be an object");
  let url: URL;
  try {
    url = new URL(String(options.url));
  } catch {
    // Neither a query nor user info is echoed: either may carry an access token.
    const raw = String(options.url).split(/[?#]/)[0] ?? "";
    const shown = JSON.stringify(raw.slice(raw.lastIndexOf("@") + 1));
    throw invalid(`url ${shown} is not an absolute URL; pass one such as https://host/mcp`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalid(`url must use http: or https:, not ${url.protocol}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw invalid(
      "url must not carry user info, which fetch refuses; send credentials in `headers`",
    );
  }
  let headers: Headers;
  try {
    headers = new Headers(options.headers);
  } catch {
    // The runtime's own message quotes the bad value, which may be an API key, so the
    // error names the header instead and keeps no `cause`.
    const name = invalidHeaderName(options.headers);
    const which = name === undefined ? "a header" : `header ${JSON.stringify(name)}`;
    throw invalid(
      `${which} has a name or value HTTP forbids (such as a line break); fix it in \`headers\``,
    );
  }
  const auth = options.auth;
  if (auth !== undefined) {
    if (typeof auth?.authorization !== "function" || typeof auth.unauthorized !== "function") {
      throw invalid("auth must have authorization() and unauthorized()");
    }
    if (headers.has("authorization")) {
      throw invalid("pass `auth` or an Authorization header in `headers`, not both");
    }
  }
  const namespace = options.namespace;
  if (namespace !== undefined) toolName(namespace);
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || timeoutMs > MAX_TIMER_MS) {
    throw invalid(
      `requestTimeoutMs must be a positive number of milliseconds up to ${MAX_TIMER_MS}`,
    );
  }
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(maxMessageBytes) || maxMessageBytes < 1024) {
    throw invalid("maxMessageBytes must be a whole number of bytes, at least 1024");
  }
  const cap = (name: string, value: unknown, fallback: number, least: number): number => {
    const chosen = value ?? fallback;
    if (!Number.isSafeInteger(chosen) || (chosen as number) < least) {
      throw invalid(`${name} must be a whole number, at least ${least}`);
    }
    return chosen as number;
  };
  const maxTools = cap("maxTools", options.maxTools, DEFAULT_MAX_TOOLS, 1);
  const maxListBytes = cap("maxListBytes", options.maxListBytes, DEFAULT_MAX_LIST_BYTES, 1024);
  const maxSchemaDepth = cap("maxSchemaDepth", options.maxSchemaDepth, DEFAULT_MAX_SCHEMA_DEPTH, 4);
  const maxToolBytes = cap("maxToolBytes", options.maxToolBytes, DEFAULT_MAX_TOOL_BYTES, 1024);
  const maxPendingReplies = cap(
    "maxPendingReplies",
    options.maxPendingReplies,
    DEFAULT_MAX_PENDING_REPLIES,
    1,
  );
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw invalid("fetch must be a function");
  }
  if (options.onLog !== undefined && typeof options.onLog !== "function") {
    throw invalid("onLog must be a function");
  }
  if (options.observer && typeof options.observer.start !== "function") {
    throw invalid("observer must be an Observer");
  }
  const jsonSchemaValidator = options.jsonSchemaValidator;
  if (jsonSchemaValidator !== undefined && typeof jsonSchemaValidator !== "function") {
    throw invalid("jsonSchemaValidator must be a function");
  }
  const protocol = options.protocol ?? "auto";
  if (protocol !== "auto" && protocol !== "2026-07-28" && protocol !== "2025-11-25") {
    throw invalid('protocol must be "auto", "2026-07-28" or "2025-11-25"');
  }
  return {
    url: url.href,
    protocol,
    headers,
    auth,
    namespace,
    trusted: options.trustAnnotations === true,
    maxMessageBytes,
    maxTools,
    maxListBytes,
    maxSchemaDepth,
    maxToolBytes,
    maxPendingReplies,
    timeoutMs,
    onLog: options.onLog,
    signal: options.signal,
    formInteractions: options.formInteractions === true,
    samplingInteractions: options.samplingInteractions === true,
    rootsInteractions: options.rootsInteractions === true,
    jsonSchemaValidator,
    fetch: options.fetch,
  };
}

function invalidHeaderName(init: HeadersInit | undefined): string | undefined {
  const entries: unknown[] = Array.isArray(init)
    ? init
    : typeof init === "object" && init !== null && !(init instanceof Headers)
      ? Object.entries(init)
      : [];
  for (const entry of entries) {
    try {
      new Headers([entry as [string, string]]);
    } catch {
      return Array.isArray(entry) && typeof entry[0] === "string" ? entry[0] : undefined;
    }
  }
  return undefined;
}
