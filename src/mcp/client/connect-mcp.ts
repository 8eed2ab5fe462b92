import { cancelledError } from "../../abort.ts";
import { toolName } from "../../declaration/tool-name.ts";
import { isToolError, ToolError } from "../../errors.ts";
import { Toolset } from "../../toolset/toolset.ts";
import { initializeSession } from "./initialize-session.ts";
import { listRemoteTools } from "./list-remote-tools.ts";
import { McpSession } from "./mcp-session.ts";
import { createRemoteBackend } from "./remote-backend.ts";
import { describeError } from "./session-error.ts";

/** Connect MCP options interface. */
export interface ConnectMcpOptions {
  /** The server's MCP endpoint, an absolute `http:` or `https:` URL. */
  url: string | URL;
  /** Sent verbatim with every request (authorization, for example). */
  headers?: HeadersInit;
  /** Lists and calls the tools as `namespace__name`; the server still sees its own names. */
  namespace?: string;
  /**
   * Idle deadline of each request, in milliseconds (default 30 000). A tool call's deadline
   * restarts with every progress notification and pauses while a form or sampling
   * interaction waits for the caller.
   */
  requestTimeoutMs?: number;
  /** Answers the server's form elicitations as `interaction` steps (default `false`). */
  formInteractions?: boolean;
  /**
   * Declares the `sampling` capability and turns the server's `sampling/createMessage` requests
   * into `sampling` interaction steps, which the caller answers from its own model, ideally after
   * a person approved the request (default `false`: such requests get a JSON-RPC error, and a
   * toolwire server then tells its tool that sampling was declined).
   */
  samplingInteractions?: boolean;
  /** The `fetch` to use; `globalThis.fetch` at call time when absent. */
  fetch?: typeof fetch;
  /** Aborts connecting. */
  signal?: AbortSignal;
}

const MAX_TIMER_MS = 2_147_483_647;

/**
 * Creates a toolset over a remote MCP server (Streamable HTTP, revisions 2025-06-18 and
 * 2025-11-25): initializes a session, lists every tool page by page, and returns a `Toolset`
 * with the semantics of a local one. Only web standards are used, so it runs in browsers,
 * workers, Deno and Node. `shutdown()` ends the session with one DELETE.
 *
 * @example
 * ```ts
 * const repo = await connectMcp({ url: "https://example.com/mcp", namespace: "repo" });
 * const result = await repo.call("repo__search", { q: "toolwire" });
 * await repo.shutdown();
 * ```
 *
 * @param options The endpoint, headers, namespace, deadline, interactions, `fetch` and signal.
 * @returns The toolset.
 * @throws ToolError `invalid_configuration` for bad options or a remote name that cannot be a
 * tool name, `transport` (network, HTTP status), `protocol` (JSON-RPC error, malformed answer,
 * unsupported revision), `timeout`, `cancelled`, `duplicate_name`, or `build_cleanup` when
 * closing the half-open session failed too.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */
export async function connectMcp(options: ConnectMcpOptions): Promise<Toolset> {
  const signal = options?.signal;
  if (signal?.aborted) throw cancelledError("initialize", signal);
  const settings = checkOptions(options);
  const session = new McpSession(settings.url, settings.headers, settings.fetch);
  const common = {
    timeoutMs: settings.timeoutMs,
    formInteractions: settings.formInteractions,
    samplingInteractions: settings.samplingInteractions,
    ...(signal ? { signal } : {}),
  };
  try {
    const server = await initializeSession(session, common);
    const tools = server.tools
      ? await listRemoteTools(session, {
          ...common,
          ...(settings.namespace === undefined ? {} : { namespace: settings.namespace }),
        })
      : [];
    return Toolset.fromBackend(createRemoteBackend(session, tools, common));
  } catch (error) {
    const primary = asToolError(error);
    try {
      await session.close();
    } catch (cleanup) {
      throw new ToolError({ type: "build_cleanup", primary, cleanup: asToolError(cleanup) });
    }
    throw primary;
  }
}

interface Settings {
  url: string;
  headers: Headers;
  namespace: string | undefined;
  timeoutMs: number;
  formInteractions: boolean;
  samplingInteractions: boolean;
  fetch: typeof fetch | undefined;
}

function checkOptions(options: ConnectMcpOptions): Settings {
  const invalid = (message: string) => new ToolError({ type: "invalid_configuration", message });
  if (typeof options !== "object" || options === null) throw invalid("options must be an object");
  let url: URL;
  try {
    url = new URL(String(options.url));
  } catch {
    // Hint: only the part before `?` is echoed; a query may carry an access token.
    const shown = JSON.stringify(String(options.url).split(/[?#]/)[0]);
    throw invalid(`url ${shown} is not an absolute URL; pass one such as https://host/mcp`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalid(`url must use http: or https:, not ${url.protocol}`);
  }
  let headers: Headers;
  try {
    headers = new Headers(options.headers);
  } catch {
    // Hint: the runtime's own message quotes the bad value, which may be an API key, so the
    // error names the header instead and keeps no `cause`.
    const name = invalidHeaderName(options.headers);
    const which = name === undefined ? "a header" : `header ${JSON.stringify(name)}`;
    throw invalid(
      `${which} has a name or value HTTP forbids (such as a line break); fix it in \`headers\``,
    );
  }
  const namespace = options.namespace;
  if (namespace !== undefined) toolName(namespace);
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || timeoutMs > MAX_TIMER_MS) {
    throw invalid(
      `requestTimeoutMs must be a positive number of milliseconds up to ${MAX_TIMER_MS}`,
    );
  }
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw invalid("fetch must be a function");
  }
  return {
    url: url.href,
    headers,
    namespace,
    timeoutMs,
    formInteractions: options.formInteractions === true,
    samplingInteractions: options.samplingInteractions === true,
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

function asToolError(error: unknown): ToolError {
  if (isToolError(error)) return error;
  return new ToolError({ type: "transport", message: describeError(error) }, { cause: error });
}
