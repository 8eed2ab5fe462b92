// Builds 2026-07-28 requests for the server tests: the `_meta` envelope and the standard headers
// a conforming client sends, each overridable so a test can break one thing at a time.
import { post } from "./fixture.ts";

export const VERSION = "2026-07-28";
export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

/** The envelope of a request that declares `capabilities`. */
export function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [META_VERSION]: VERSION,
    [META_CAPABILITIES]: capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "test", version: "1.0.0" },
  };
}

/**
 * A 2026 POST: `params` gains `_meta` (the envelope, or `meta` when given; `null` leaves it out),
 * and the headers carry the version, the method and, for `tools/call`, the name.
 */
export function modern(
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  options: {
    meta?: Record<string, unknown> | null;
    headers?: Record<string, string>;
    capabilities?: Record<string, unknown>;
    signal?: AbortSignal;
  } = {},
): Request {
  const meta = options.meta === undefined ? envelope(options.capabilities) : options.meta;
  const body = {
    jsonrpc: "2.0",
    id,
    method,
    params: meta === null ? params : { ...params, _meta: meta },
  };
  const headers: Record<string, string> = {
    "mcp-protocol-version": VERSION,
    "mcp-method": method,
    ...(method === "tools/call" && typeof params.name === "string"
      ? { "mcp-name": params.name }
      : {}),
    ...options.headers,
  };
  const request = post(body, headers);
  return options.signal ? new Request(request, { signal: options.signal }) : request;
}

/** A response body as the tests read it: any field, checked by the assertions. */
// biome-ignore lint/suspicious/noExplicitAny: assertions read the wire loosely.
export type Wire = Record<string, any>;

/** The JSON body of a response, typed loosely for assertions. */
export async function json(response: Response): Promise<Wire> {
  return (await response.json()) as Wire;
}
