/** Origin policy interface: which hosts and origins may reach the endpoint, and CORS. */
export interface OriginPolicy {
  /**
   * Checks the `Host` and `Origin` headers (DNS-rebinding protection).
   *
   * @returns `undefined` when allowed, else why not.
   */
  check(request: Request): string | undefined;
  /** Returns the CORS headers for an allowed request (empty without `Origin`). */
  corsHeaders(request: Request): Headers;
  /** Returns the extra headers that answer a CORS preflight. */
  preflightHeaders(): Headers;
}

const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

const ALLOWED_HEADERS = [
  "content-type",
  "accept",
  "authorization",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
];

const EXPOSED_HEADERS = ["mcp-session-id", "mcp-protocol-version", "www-authenticate"];

/**
 * Creates the origin policy. Unconfigured, only loopback hosts (`localhost`, `127.0.0.1`,
 * `[::1]`, any port) and loopback origins pass; configured lists replace those defaults, and
 * `"*"` in a list switches that check off.
 *
 * @param allowedOrigins Exact origins such as `https://app.example.com` (or `"null"`).
 * @param allowedHosts Hosts such as `mcp.example.com` (any port) or `mcp.example.com:8443`.
 * @returns The policy.
 */
export function createOriginPolicy(
  allowedOrigins: readonly string[] | undefined,
  allowedHosts: readonly string[] | undefined,
): OriginPolicy {
  const origins = allowedOrigins && new Set(allowedOrigins.map((o) => o.toLowerCase()));
  const hosts = allowedHosts && new Set(allowedHosts.map((h) => h.toLowerCase()));
  const originAllowed = (origin: string) => {
    if (origins) return origins.has("*") || origins.has(origin.toLowerCase());
    const parsed = parseUrl(origin);
    return (
      parsed !== undefined &&
      (parsed.protocol === "http:" || parsed.protocol === "https:") &&
      LOCAL_HOSTNAMES.has(parsed.hostname)
    );
  };
  const hostAllowed = (host: string) => {
    const parsed = parseUrl(`http://${host}`);
    if (!parsed || parsed.username || parsed.pathname !== "/") return false;
    if (!hosts) return LOCAL_HOSTNAMES.has(parsed.hostname);
    return hosts.has("*") || hosts.has(parsed.host) || hosts.has(parsed.hostname);
  };
  return {
    check(request) {
      const host = request.headers.get("host") ?? parseUrl(request.url)?.host ?? "";
      if (!hostAllowed(host)) return `Host \`${host}\` is not allowed`;
      const origin = request.headers.get("origin");
      if (origin !== null && !originAllowed(origin)) return `Origin \`${origin}\` is not allowed`;
      return undefined;
    },
    corsHeaders(request) {
      const headers = new Headers();
      const origin = request.headers.get("origin");
      if (origin === null) return headers;
      headers.set("access-control-allow-origin", origin);
      headers.set("access-control-expose-headers", EXPOSED_HEADERS.join(", "));
      headers.set("vary", "Origin");
      return headers;
    },
    preflightHeaders() {
      return new Headers({
        "access-control-allow-methods": "POST, GET, DELETE, OPTIONS",
        "access-control-allow-headers": ALLOWED_HEADERS.join(", "),
        "access-control-max-age": "86400",
      });
    },
  };
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
