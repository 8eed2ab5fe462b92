/// <reference types="node" />

// `connectMcpServers`: the `mcpServers` config desktop and editor clients keep, turned into one
// Toolset: each entry is a process (`connectStdio`) or a URL (`connectMcp`), namespaced by its
// name and shut down together. See `docs/design.md`, "stdio".

import { toolName } from "../declaration/tool-name.ts";
import { isToolError, ToolError } from "../errors.ts";
import { connectMcp } from "../mcp/client/connect-mcp.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
import { Toolset } from "../toolset/toolset.ts";
import { type ConnectStdioOptions, connectStdio } from "./stdio-client.ts";

/** The config shape desktop clients use: one entry per server, keyed by its name. */
export interface McpServersConfig {
  /** The servers; each name becomes its tools' namespace (`name__tool`). */
  mcpServers: Record<string, McpServerEntry>;
}

/** A server to start (`command`) or to reach (`url`); `disabled: true` skips it. */
export type McpServerEntry =
  | {
      type?: "stdio";
      command: string;
      args?: string[];
      env?: Record<string, string>;
      cwd?: string;
      disabled?: boolean;
    }
  | {
      type?: "http" | "streamable-http";
      url: string;
      headers?: Record<string, string>;
      disabled?: boolean;
    };

/** Settings shared by every entry of the config. */
export interface ConnectMcpServersOptions
  extends Pick<
    ConnectStdioOptions,
    | "trustAnnotations"
    | "inheritEnv"
    | "stderr"
    | "requestTimeoutMs"
    | "formInteractions"
    | "samplingInteractions"
    | "jsonSchemaValidator"
    | "shutdownGraceMs"
    | "onLog"
    | "signal"
    | "protocol"
  > {
  /** The `fetch` for `url` entries; `globalThis.fetch` at call time when absent. */
  fetch?: typeof fetch;
}

/**
 * Connects every server of a desktop client's `mcpServers` config at once and returns one
 * Toolset with each server's tools as `name__tool`; `shutdown()` stops them all. When one server
 * fails to connect, the others are shut down and that failure is thrown, its message naming
 * the entry. Tools of `url` servers carry `source.origin` as the URL without query or
 * credentials, those of `command` servers the command; hints are believed only with
 * `trustAnnotations`.
 *
 * @example
 * ```ts
 * const tools = await connectMcpServers({
 *   mcpServers: {
 *     fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
 *     docs: { url: "https://docs.example.com/mcp", headers: { authorization: "Bearer …" } },
 *   },
 * });
 * ```
 *
 * @throws ToolError `invalid_configuration` naming the entry (`mcpServers["fs"]: …`) for a bad
 * config, an entry that is neither `command` nor `url`, a `type` of `"sse"` (the legacy
 * HTTP+SSE transport is not supported) or a name that cannot be a namespace; otherwise the
 * first failing entry's error from `connectStdio` or `connectMcp`.
 */
export async function connectMcpServers(
  config: McpServersConfig,
  options: ConnectMcpServersOptions = {},
): Promise<Toolset> {
  const entries = checkConfig(config);
  const settled = await Promise.allSettled(
    entries.map(([name, entry]) => connectEntry(name, entry, options)),
  );
  const failed = settled.find((outcome) => outcome.status === "rejected");
  const connected = settled.flatMap((outcome) =>
    outcome.status === "fulfilled" ? [outcome.value] : [],
  );
  if (failed) {
    await Promise.allSettled(connected.map((toolset) => toolset.shutdown()));
    throw failed.reason;
  }
  return Toolset.merge(connected);
}

type Entry = [name: string, entry: McpServerEntry];

function checkConfig(config: McpServersConfig): Entry[] {
  const invalid = (message: string) => new ToolError({ type: "invalid_configuration", message });
  const servers = (config as { mcpServers?: unknown } | null)?.mcpServers;
  if (!isJsonObject(servers)) throw invalid("the config needs an `mcpServers` object");
  const entries: Entry[] = [];
  for (const [name, value] of Object.entries(servers)) {
    const where = `mcpServers[${JSON.stringify(name)}]`;
    const bad = (message: string) => invalid(`${where}: ${message}`);
    try {
      toolName(name);
    } catch {
      throw bad("the name becomes the tools' namespace, so it must be 1-128 of A-Z a-z 0-9 _ -");
    }
    if (!isJsonObject(value)) throw bad("must be an object with `command` or `url`");
    if (value.disabled === true) continue;
    const type = value.type;
    if (type === "sse") {
      throw bad('type "sse" (the legacy HTTP+SSE transport) is not supported; use "http"');
    }
    if (typeof value.command === "string" && value.url === undefined) {
      if (type !== undefined && type !== "stdio") throw bad('a `command` entry has type "stdio"');
      if (value.args !== undefined && !isStrings(value.args)) {
        throw bad("`args` must be an array of strings");
      }
      if (value.env !== undefined && !isStringRecord(value.env)) {
        throw bad("`env` must be an object of strings");
      }
      if (value.cwd !== undefined && typeof value.cwd !== "string") {
        throw bad("`cwd` must be a string");
      }
    } else if (typeof value.url === "string" && value.command === undefined) {
      if (type !== undefined && type !== "http" && type !== "streamable-http") {
        throw bad('a `url` entry has type "http"');
      }
      if (value.headers !== undefined && !isStringRecord(value.headers)) {
        throw bad("`headers` must be an object of strings");
      }
    } else {
      throw bad("needs either a string `command` or a string `url`");
    }
    entries.push([name, value as McpServerEntry]);
  }
  return entries;
}

async function connectEntry(
  name: string,
  entry: McpServerEntry,
  options: ConnectMcpServersOptions,
): Promise<Toolset> {
  try {
    if ("command" in entry) {
      const { fetch: _fetch, ...shared } = options;
      return await connectStdio({
        ...shared,
        command: entry.command,
        ...(entry.args ? { args: entry.args } : {}),
        ...(entry.env ? { env: entry.env } : {}),
        ...(entry.cwd ? { cwd: entry.cwd } : {}),
        namespace: name,
      });
    }
    return await connectMcp({
      url: entry.url,
      namespace: name,
      trustAnnotations: options.trustAnnotations === true,
      ...(entry.headers ? { headers: entry.headers } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.requestTimeoutMs === undefined
        ? {}
        : { requestTimeoutMs: options.requestTimeoutMs }),
      formInteractions: options.formInteractions === true,
      samplingInteractions: options.samplingInteractions === true,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onLog ? { onLog: options.onLog } : {}),
      ...(options.protocol ? { protocol: options.protocol } : {}),
      ...(options.jsonSchemaValidator ? { jsonSchemaValidator: options.jsonSchemaValidator } : {}),
    });
  } catch (error) {
    throw naming(name, error);
  }
}

// The same error with the entry's name in front of its message, when it has one.
function naming(name: string, error: unknown): unknown {
  if (!isToolError(error) || !("message" in error.data)) return error;
  const data = {
    ...error.data,
    message: `mcpServers[${JSON.stringify(name)}]: ${error.data.message}`,
  };
  return new ToolError(data as ConstructorParameters<typeof ToolError>[0], { cause: error });
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isJsonObject(value) && Object.values(value).every((item) => typeof item === "string");
}
