import { ToolError } from "../../errors.ts";

/** Auth info interface: who the `authorize` hook let in. */
export interface AuthInfo {
  /** The verified credential. */
  token?: string;
  /** The client it was issued to. */
  clientId?: string;
  /** The scopes it grants. */
  scopes?: string[];
  /** Anything else the hook wants to record. */
  extra?: Record<string, unknown>;
}

/** MCP handler options interface: how `createMcpHandler` serves a toolset. */
export interface McpHandlerOptions {
  /** `serverInfo.name`. */
  name: string;
  /** `serverInfo.version`. */
  version: string;
  /** `serverInfo.title`, a display name. */
  title?: string;
  /** `instructions` returned by `initialize`. */
  instructions?: string;
  /** The path served; default `/mcp`. Other paths get 404. */
  endpoint?: string;
  /**
   * Origins a browser page may call from (exact, e.g. `https://app.example.com`; `"*"` for
   * any). Default: loopback origins only. A request without `Origin` (not a browser) passes.
   */
  allowedOrigins?: readonly string[];
  /**
   * Hosts the endpoint answers as (`mcp.example.com` for any port, `mcp.example.com:8443`, or
   * `"*"`). Default: `localhost`, `127.0.0.1` and `[::1]` only, so DNS rebinding cannot reach a
   * local server. A deployed server must list its public host.
   */
  allowedHosts?: readonly string[];
  /**
   * Admits or refuses a request (`false` → 401 with `WWW-Authenticate: Bearer`); a throw refuses.
   * It runs for every request but CORS preflights, after the Host and Origin checks. Returning
   * `AuthInfo` admits the request too; the tools do not see it (one toolset serves every caller),
   * so per-caller rules belong here: refuse what the caller may not do, or serve each tenant
   * from its own handler.
   */
  authorize?(request: Request): boolean | AuthInfo | Promise<boolean | AuthInfo>;
  /** The largest request body accepted; default 1 MiB. Larger ones get 413. */
  maxBodyBytes?: number;
  /** `stateless` (default: any instance answers any request) or in-memory `Mcp-Session-Id` sessions. */
  sessions?: "stateless" | "memory";
  /** The most live sessions in `memory` mode; default 1024. */
  maxSessions?: number;
  /**
   * How long a `memory` session lives without a request and with no call running; default 30
   * minutes. Its next request then gets 404, and the client must initialize again.
   */
  sessionIdleTimeoutMs?: number;
  /**
   * What a tool's question becomes: a tool error (`reject`, default), or a request to the client
   * (`elicit`): text and form questions as `elicitation/create`, sampling requests as
   * `sampling/createMessage`, each only when the client declared that capability (in stateless
   * mode the server never saw `initialize`, so `elicit` assumes it did).
   */
  interactionPolicy?: "reject" | "elicit";
  /** How long an elicitation or sampling request may wait for its answer; default 5 minutes. */
  interactionTimeoutMs?: number;
  /** Tools per `tools/list` page; default 64. */
  pageSize?: number;
}

/** Resolved options type: every default filled in. */
export type ResolvedOptions = Required<
  Omit<
    McpHandlerOptions,
    "title" | "instructions" | "allowedOrigins" | "allowedHosts" | "authorize"
  >
> &
  Pick<
    McpHandlerOptions,
    "title" | "instructions" | "allowedOrigins" | "allowedHosts" | "authorize"
  >;

/**
 * Returns the options with defaults filled in.
 *
 * @param options The caller's options.
 * @returns The resolved options.
 * @throws ToolError `invalid_configuration` for a bad name, version, endpoint or limit.
 */
export function resolveOptions(options: McpHandlerOptions): ResolvedOptions {
  const bad = (message: string) => new ToolError({ type: "invalid_configuration", message });
  if (typeof options?.name !== "string" || options.name === "") throw bad("`name` is required");
  if (typeof options.version !== "string" || options.version === "") {
    throw bad("`version` is required");
  }
  const endpoint = options.endpoint ?? "/mcp";
  if (!endpoint.startsWith("/") || /[?#]/.test(endpoint)) {
    throw bad("`endpoint` must be a path starting with `/`, without query or fragment");
  }
  const resolved: ResolvedOptions = {
    ...options,
    endpoint,
    maxBodyBytes: positive(options.maxBodyBytes, 1024 * 1024, "maxBodyBytes", bad),
    sessions: options.sessions ?? "stateless",
    maxSessions: positive(options.maxSessions, 1024, "maxSessions", bad),
    sessionIdleTimeoutMs: positive(
      options.sessionIdleTimeoutMs,
      1_800_000,
      "sessionIdleTimeoutMs",
      bad,
    ),
    interactionPolicy: options.interactionPolicy ?? "reject",
    interactionTimeoutMs: positive(
      options.interactionTimeoutMs,
      300_000,
      "interactionTimeoutMs",
      bad,
    ),
    pageSize: positive(options.pageSize, 64, "pageSize", bad),
  };
  if (resolved.sessions !== "stateless" && resolved.sessions !== "memory") {
    throw bad("`sessions` must be `stateless` or `memory`");
  }
  if (resolved.interactionPolicy !== "reject" && resolved.interactionPolicy !== "elicit") {
    throw bad("`interactionPolicy` must be `reject` or `elicit`");
  }
  return resolved;
}

function positive(
  value: number | undefined,
  fallback: number,
  name: string,
  bad: (message: string) => ToolError,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw bad(`\`${name}\` must be a positive integer`);
  return value;
}
