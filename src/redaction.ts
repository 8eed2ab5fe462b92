// What toolwire shows of a request that failed: enough to act on, never a credential. One module
// for the model adapters and the MCP client, so every error, event and log line is scrubbed the
// same way (see `docs/design.md`, "Secrets").

const REDACTED = "[redacted]";

/**
 * Returns a URL fit to show: scheme, host, port and path, without user info, query or
 * fragment (each may carry a token). Text that is not a URL is returned as `[invalid URL]`.
 */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return "[invalid URL]";
  }
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

/**
 * Collects the values a request sent as credentials: every header value (and, for `Bearer`
 * style values, the token after the scheme), the URL's user info and every query value (each
 * as written and decoded).
 * Empty and very short values (under 4 characters) are skipped: scrubbing them would mangle
 * ordinary text without hiding anything worth hiding.
 */
export function credentialsOf(request: {
  url?: string | URL;
  headers?: HeadersInit | Record<string, string>;
  secrets?: readonly string[];
}): string[] {
  const found: string[] = [...(request.secrets ?? [])];
  if (request.headers !== undefined) {
    for (const [, value] of new Headers(request.headers as HeadersInit)) {
      found.push(value);
      const space = value.indexOf(" ");
      if (space > 0) found.push(value.slice(space + 1));
    }
  }
  if (request.url !== undefined && URL.canParse(String(request.url))) {
    const url = new URL(String(request.url));
    found.push(url.username, url.password, decoded(url.username), decoded(url.password));
    for (const [, value] of url.searchParams) found.push(value);
    // As written too: a server echoes the text it got, where a raw `+` is not the space
    // `searchParams` reads.
    for (const pair of url.search.slice(1).split("&")) {
      const equals = pair.indexOf("=");
      if (equals >= 0) found.push(pair.slice(equals + 1));
    }
  }
  return [...new Set(found.filter((value) => value.length >= 4))].sort(
    // Longest first, so a token inside a longer header value is not left half-scrubbed.
    (a, b) => b.length - a.length,
  );
}

// A percent-decoded text; as it is when it does not decode (`%zz`).
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Returns `text` with every secret (as sent, and URL-encoded) replaced by `[redacted]`, and
 * every URL in it stripped of user info, query and fragment.
 */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (url) => redactUrl(url));
  for (const secret of secrets) {
    if (secret === "") continue;
    out = out.split(secret).join(REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join(REDACTED);
  }
  return out;
}

/**
 * Returns a JSON value with `scrub` applied to every string in it, object keys included (a
 * server may echo a credential as a key as well as a value). The value is rebuilt, never
 * changed in place; two keys that scrub to the same text keep the later one's value.
 */
export function scrubValue<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === "string") return scrub(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, secrets)) as T;
  if (typeof value !== "object" || value === null) return value;
  // `fromEntries` defines each key as an own property, so a `__proto__` key stays data.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [scrub(key, secrets), scrubValue(item, secrets)]),
  ) as T;
}

/**
 * Returns a JSON value as it is when none of its strings or keys contains a secret (as sent or
 * URL-encoded), else `scrubValue` of it: for data a server sends that reaches the model and the
 * run's events (a tool's name, description, schema or result), which must not lose a URL's
 * query unless the server echoed a credential.
 */
export function scrubEchoes<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const needles = secrets.flatMap((secret) => {
    const encoded = encodeURIComponent(secret);
    return encoded === secret ? [secret] : [secret, encoded];
  });
  const mentions = (item: unknown): boolean => {
    if (typeof item === "string") return needles.some((needle) => item.includes(needle));
    if (typeof item !== "object" || item === null) return false;
    if (Array.isArray(item)) return item.some(mentions);
    return Object.entries(item).some(([key, inner]) => mentions(key) || mentions(inner));
  };
  return mentions(value) ? scrubValue(value, secrets) : value;
}

/**
 * The `redirect` mode of every request toolwire sends (model adapters, MCP client, OAuth): a
 * redirect is never followed, since it would resend the body and the headers (API keys, tokens,
 * the conversation) to a host the user did not name. "manual" rather than "error", which Workers
 * do not support; `refusedRedirect` then says what happened.
 */
export const NO_REDIRECT = "manual" as const;

/**
 * Returns why a response to a request sent with `NO_REDIRECT` is a refused redirect ("the server
 * redirected to https://host/path (HTTP 307); redirects are not followed"), with the target
 * shown as `redactUrl` and `scrub` show it, or `undefined` when it is no redirect. A redirect's
 * body is cancelled. A browser hides a manual redirect as an opaque answer with status 0, hence
 * `3xx` then.
 */
export function refusedRedirect(
  response: Response,
  base: string,
  secrets: readonly string[],
): string | undefined {
  const { status } = response;
  if ((response.type as string) !== "opaqueredirect" && (status < 300 || status > 399)) {
    return undefined;
  }
  response.body?.cancel().catch(() => {});
  const location = response.headers.get("location");
  let to = "";
  if (location) {
    const target = URL.canParse(location, base) ? new URL(location, base).href : location;
    to = ` to ${scrub(redactUrl(target), secrets)}`;
  }
  return `the server redirected${to} (HTTP ${status || "3xx"}); redirects are not followed`;
}

/**
 * Returns at most `max` characters of `text` (default 200), scrubbed of `secrets`, with `…`
 * when cut: the most of a foreign body that toolwire ever shows.
 */
export function excerpt(text: string, secrets: readonly string[] = [], max = 200): string {
  const clean = scrub(text, secrets);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
