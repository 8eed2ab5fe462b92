import type { IncomingRequest } from "./incoming-request.ts";

/** The request parts the origin policy reads. */
export type PolicyRequest = Pick<IncomingRequest, "headers" | "url">;

/** Origin policy interface: which hosts and origins may reach the endpoint, and CORS. */
export interface OriginPolicy {
  /**
   * Checks the `Host` and `Origin` headers (DNS-rebinding protection).
   *
   * @returns `undefined` when allowed, else why not.
   */
  check(request: PolicyRequest): string | undefined;
  /**
   * Returns the headers every answer to an allowed request carries: `Vary: Origin` always, and
   * for a browser request the CORS headers that let the page read the answer (errors included).
   * The result is shared: copy it before adding to it.
   */
  corsHeaders(request: PolicyRequest): Headers;
  /**
   * Returns the headers that answer a CORS preflight: the methods, the request headers the page
   * asked for (the MCP ones when it named none), and a one-day cache.
   */
  preflightHeaders(request: PolicyRequest): Headers;
}

const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

const ALLOWED_HEADERS = [
  "content-type",
  "accept",
  "authorization",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
].join(", ");

const EXPOSED_HEADERS = ["mcp-session-id", "mcp-protocol-version", "www-authenticate"].join(", ");

// Hint: answers never add to these, so one instance serves every request without `Origin`.
const NO_ORIGIN = new Headers({ vary: "Origin" });

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
  const originAllowed = memoLast((origin: string) => {
    if (origins) return origins.has("*") || origins.has(origin.toLowerCase());
    const parsed = parseUrl(origin);
    return (
      parsed !== undefined &&
      (parsed.protocol === "http:" || parsed.protocol === "https:") &&
      LOCAL_HOSTNAMES.has(parsed.hostname)
    );
  });
  const hostAllowed = memoLast((host: string) => {
    const parsed = parseUrl(`http://${host}`);
    if (!parsed || parsed.username || parsed.pathname !== "/") return false;
    if (!hosts) return LOCAL_HOSTNAMES.has(parsed.hostname);
    return hosts.has("*") || hosts.has(parsed.host) || hosts.has(parsed.hostname);
  });
  return {
    check(request) {
      const host = request.headers.get("host") ?? hostOf(request.url);
      if (!hostAllowed(host)) return `Host \`${host}\` is not allowed`;
      const origin = request.headers.get("origin");
      if (origin !== null && !originAllowed(origin)) return `Origin \`${origin}\` is not allowed`;
      return undefined;
    },
    corsHeaders(request) {
      const origin = request.headers.get("origin");
      if (origin === null) return NO_ORIGIN;
      return new Headers({
        "access-control-allow-origin": origin,
        "access-control-expose-headers": EXPOSED_HEADERS,
        vary: "Origin",
      });
    },
    preflightHeaders(request) {
      // Hint: the origin passed the check, so the headers its page asks for may be sent.
      const asked = request.headers.get("access-control-request-headers");
      return new Headers({
        "access-control-allow-methods": "POST, GET, DELETE, OPTIONS",
        "access-control-allow-headers": asked?.trim() ? asked : ALLOWED_HEADERS,
        "access-control-max-age": "86400",
      });
    },
  };
}

// Hint: a server sees the same Host and Origin over and over; parsing them once saves a URL each.
function memoLast(decide: (value: string) => boolean): (value: string) => boolean {
  let last: string | undefined;
  let verdict = false;
  return (value) => {
    if (value !== last) {
      verdict = decide(value);
      last = value;
    }
    return verdict;
  };
}

function hostOf(url: string): string {
  // Hint: `scheme://host/...`; an in-process request without a Host header names it in the URL.
  const start = url.indexOf("//");
  if (start === -1) return parseUrl(url)?.host ?? "";
  const end = url.indexOf("/", start + 2);
  const authority = url.slice(start + 2, end === -1 ? undefined : end);
  return /[@?#\\]/.test(authority) ? (parseUrl(url)?.host ?? "") : authority.toLowerCase();
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
