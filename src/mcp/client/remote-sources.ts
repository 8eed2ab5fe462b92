// What `connectMcp` offers besides tools: a remote server's resources, resource templates and
// prompts, and completion of their arguments, as plain typed calls on the connection. Every
// answer is foreign data: it is bounded (`maxMessageBytes` per answer, the list caps over all
// pages), scrubbed of the client's credentials where it echoes them, and marked with its
// `source` (the server's origin, trusted only with `trustAnnotations`), so whoever shows it to a
// model treats it as it treats an untrusted tool's output. See `docs/design.md`, "Consuming
// MCP", "Resources, prompts and completion".

import { cancelledError } from "../../abort.ts";
import type { ToolSource } from "../../declaration/tool-info.ts";
import { ToolError } from "../../errors.ts";
import type { ContentAnnotations, ToolContent } from "../../execution/tool-content.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { measureJson } from "../../schema/measure-json.ts";
import { type McpSession, protocolError, rpcErrorOf } from "./mcp-session.ts";
import { contentFromMcp } from "./remote-tool.ts";

/** Options of one call of the connection's resources, prompts or completion. */
export interface McpRequestOptions {
  /** Aborts the request (`cancelled`). */
  signal?: AbortSignal;
}

/** Remote resource interface: one entry of the server's `resources/list`. */
export interface McpResourceInfo {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Size in bytes, as the server says. */
  size?: number;
  annotations?: ContentAnnotations;
  /** The entry's `_meta`. */
  metadata?: Record<string, unknown>;
}

/** Remote resource template interface: one entry of `resources/templates/list`. */
export interface McpResourceTemplateInfo {
  /** An RFC 6570 URI template, e.g. `file:///logs/{date}`. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: ContentAnnotations;
  metadata?: Record<string, unknown>;
}

/** Resource content type: one item a read returned, text or base64 binary. */
export type McpResourceContent = (
  | { type: "text"; text: string }
  | { type: "blob" /** Base64. */; blob: string }
) & { uri: string; mimeType?: string; metadata?: Record<string, unknown> };

/** Resource read interface: what `readResource` returns. */
export interface McpResourceRead {
  contents: McpResourceContent[];
  /** Where the contents came from: untrusted data unless `trustAnnotations` was set. */
  source: ToolSource;
}

/** Remote prompt interface: one entry of `prompts/list`. */
export interface McpPromptInfo {
  name: string;
  title?: string;
  description?: string;
  arguments: { name: string; title?: string; description?: string; required: boolean }[];
  metadata?: Record<string, unknown>;
}

/** Prompt interface: what `getPrompt` returns. */
export interface McpPromptMessages {
  description?: string;
  messages: { role: "user" | "assistant"; content: ToolContent }[];
  /** Where the messages came from: untrusted data unless `trustAnnotations` was set. */
  source: ToolSource;
}

/** What a completion is for: a prompt's argument or a resource template's variable. */
export type McpCompletionRef = { type: "prompt"; name: string } | { type: "resource"; uri: string };

/** Completion interface: what `complete` returns. */
export interface McpCompletion {
  values: string[];
  /** How many suggestions there are in all, when the server says. */
  total?: number;
  /** Whether there are more than `values` holds. */
  hasMore: boolean;
}

/**
 * Remote sources interface: the calls a `connectMcp` connection offers beside its toolset.
 * A call the server declared no capability for fails `unsupported` without a request.
 */
export interface McpRemoteSources {
  /** Lists the server's resources, every page. */
  listResources(options?: McpRequestOptions): Promise<McpResourceInfo[]>;
  /** Lists the server's resource templates, every page. */
  listResourceTemplates(options?: McpRequestOptions): Promise<McpResourceTemplateInfo[]>;
  /**
   * Reads a resource.
   *
   * @throws ToolError `protocol` (with the URI) when the server has no such resource.
   */
  readResource(uri: string, options?: McpRequestOptions): Promise<McpResourceRead>;
  /** Lists the server's prompts, every page. */
  listPrompts(options?: McpRequestOptions): Promise<McpPromptInfo[]>;
  /** Gets a prompt filled in with `args`. */
  getPrompt(
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: McpRequestOptions,
  ): Promise<McpPromptMessages>;
  /**
   * Asks the server to complete an argument of a prompt or a variable of a resource template,
   * given what was typed so far (`argument.value`) and the other arguments filled in.
   */
  complete(
    ref: McpCompletionRef,
    argument: { name: string; value: string },
    options?: McpRequestOptions & { arguments?: Readonly<Record<string, string>> },
  ): Promise<McpCompletion>;
}

/** What the calls need of the connection. */
export interface RemoteSourcesContext {
  readonly session: McpSession;
  /** The server's declared capabilities. */
  readonly capabilities: Record<string, unknown>;
  readonly source: ToolSource;
  readonly timeoutMs: number;
  readonly maxEntries: number;
  readonly maxListBytes: number;
  /** Whether the connection was shut down. */
  closed(): boolean;
}

// A server that keeps inventing cursors must not keep the client listing forever.
const MAX_PAGES = 1000;

/** Creates the calls of one connection. */
export function createRemoteSources(context: RemoteSourcesContext): McpRemoteSources {
  const { session, capabilities } = context;
  const request = async (
    method: string,
    capability: "resources" | "prompts" | "completions",
    params: Record<string, unknown>,
    options: McpRequestOptions | undefined,
  ): Promise<Record<string, unknown>> => {
    const signal = options?.signal;
    if (signal?.aborted) throw cancelledError(method, signal);
    if (context.closed()) throw new ToolError({ type: "closed", operation: method });
    if (!isJsonObject(capabilities[capability])) {
      throw new ToolError({
        type: "unsupported",
        operation: `${method}: the server declares no \`${capability}\` capability`,
      });
    }
    try {
      const result = await session.requestWithin(method, params, {
        timeoutMs: context.timeoutMs,
        signal,
      });
      return session.scrubEchoes(result);
    } catch (error) {
      throw session.scrubError(error);
    }
  };
  // Every entry of every page, within the list caps (`maxTools` entries, `maxListBytes`).
  const listAll = async <T>(
    method: string,
    capability: "resources" | "prompts",
    field: string,
    read: (entry: Record<string, unknown>) => T | undefined,
    options: McpRequestOptions | undefined,
  ): Promise<T[]> => {
    const out: T[] = [];
    const seen = new Set<string>();
    let listed = 0;
    let bytes = 0;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await request(
        method,
        capability,
        cursor === undefined ? {} : { cursor },
        options,
      );
      const entries = result[field];
      if (!Array.isArray(entries)) throw protocolError(`${method} returned no \`${field}\` array`);
      listed += entries.length;
      if (listed > context.maxEntries) {
        throw new ToolError({
          type: "transport",
          message: `${method} listed more than ${context.maxEntries} entries (maxTools); the listing was abandoned`,
        });
      }
      for (const entry of entries) {
        bytes += measureJson(entry).bytes;
        if (bytes > context.maxListBytes) {
          throw new ToolError({
            type: "transport",
            message: `${method} listed more than ${context.maxListBytes} bytes of entries (maxListBytes); the listing was abandoned`,
          });
        }
        // An entry this client cannot read is left out, as a malformed tool is.
        const item = isJsonObject(entry) ? read(entry) : undefined;
        if (item !== undefined) out.push(item);
      }
      const next = result.nextCursor;
      if (next === undefined || next === null) return out;
      if (typeof next !== "string") throw protocolError(`${method} returned a non-string cursor`);
      if (seen.has(next)) throw protocolError(`${method} repeated the cursor it sent before`);
      seen.add(next);
      cursor = next;
    }
    throw protocolError(`${method} returned more than ${MAX_PAGES} pages`);
  };
  return {
    listResources: (options) =>
      listAll("resources/list", "resources", "resources", resourceInfoOf, options),
    listResourceTemplates: (options) =>
      listAll(
        "resources/templates/list",
        "resources",
        "resourceTemplates",
        templateInfoOf,
        options,
      ),
    async readResource(uri, options) {
      if (typeof uri !== "string") {
        throw new ToolError({ type: "invalid_configuration", message: "uri must be a string" });
      }
      let result: Record<string, unknown>;
      try {
        result = await request("resources/read", "resources", { uri }, options);
      } catch (error) {
        const detail = rpcErrorOf(error);
        // -32002 (2025) and -32602 with data.uri (2026) both say there is no such resource.
        const data = isJsonObject(detail?.data) ? detail.data : {};
        if (detail?.code === -32002 || (detail?.code === -32602 && data.uri === uri)) {
          throw session.scrubError(
            protocolError(`resources/read: the server has no resource ${JSON.stringify(uri)}`),
          );
        }
        throw error;
      }
      const contents = result.contents;
      if (!Array.isArray(contents)) throw protocolError("resources/read returned no `contents`");
      return { contents: contents.map(resourceContentOf), source: context.source };
    },
    listPrompts: (options) => listAll("prompts/list", "prompts", "prompts", promptInfoOf, options),
    async getPrompt(name, args = {}, options) {
      const result = await request("prompts/get", "prompts", { name, arguments: args }, options);
      const messages = result.messages;
      if (!Array.isArray(messages)) throw protocolError("prompts/get returned no `messages`");
      const read: McpPromptMessages = {
        messages: messages.map((message, index) => {
          const where = `prompt ${name} messages[${index}]`;
          if (!isJsonObject(message) || (message.role !== "user" && message.role !== "assistant")) {
            throw protocolError(`${where} needs a role of user or assistant`);
          }
          return { role: message.role, content: contentFromMcp(message.content, where) };
        }),
        source: context.source,
      };
      if (typeof result.description === "string") read.description = result.description;
      return read;
    },
    async complete(ref, argument, options) {
      const wireRef =
        ref.type === "prompt"
          ? { type: "ref/prompt", name: ref.name }
          : { type: "ref/resource", uri: ref.uri };
      const params: Record<string, unknown> = { ref: wireRef, argument };
      if (options?.arguments) params.context = { arguments: options.arguments };
      const result = await request("completion/complete", "completions", params, options);
      const completion = result.completion;
      if (!isJsonObject(completion) || !Array.isArray(completion.values)) {
        throw protocolError("completion/complete returned no `completion.values`");
      }
      const out: McpCompletion = {
        values: completion.values.filter((v): v is string => typeof v === "string").slice(0, 100),
        hasMore: completion.hasMore === true,
      };
      if (typeof completion.total === "number") out.total = completion.total;
      return out;
    },
  };
}

function optional<T extends object>(target: T, entry: Record<string, unknown>, keys: string[]): T {
  for (const key of keys) {
    if (typeof entry[key] === "string") (target as Record<string, unknown>)[key] = entry[key];
  }
  if (isJsonObject(entry._meta)) (target as Record<string, unknown>).metadata = entry._meta;
  return target;
}

function resourceInfoOf(entry: Record<string, unknown>): McpResourceInfo | undefined {
  if (typeof entry.uri !== "string" || typeof entry.name !== "string") return undefined;
  const info = optional({ uri: entry.uri, name: entry.name } as McpResourceInfo, entry, [
    "title",
    "description",
    "mimeType",
  ]);
  if (typeof entry.size === "number") info.size = entry.size;
  if (isJsonObject(entry.annotations)) info.annotations = entry.annotations as ContentAnnotations;
  return info;
}

function templateInfoOf(entry: Record<string, unknown>): McpResourceTemplateInfo | undefined {
  if (typeof entry.uriTemplate !== "string" || typeof entry.name !== "string") return undefined;
  const info = optional(
    { uriTemplate: entry.uriTemplate, name: entry.name } as McpResourceTemplateInfo,
    entry,
    ["title", "description", "mimeType"],
  );
  if (isJsonObject(entry.annotations)) info.annotations = entry.annotations as ContentAnnotations;
  return info;
}

function promptInfoOf(entry: Record<string, unknown>): McpPromptInfo | undefined {
  if (typeof entry.name !== "string") return undefined;
  const args = Array.isArray(entry.arguments) ? entry.arguments : [];
  return optional(
    {
      name: entry.name,
      arguments: args
        .filter((a): a is Record<string, unknown> => isJsonObject(a) && typeof a.name === "string")
        .map((a) =>
          optional({ name: a.name as string, required: a.required === true }, a, [
            "title",
            "description",
          ]),
        ),
    } as McpPromptInfo,
    entry,
    ["title", "description"],
  );
}

function resourceContentOf(item: unknown, index: number): McpResourceContent {
  if (!isJsonObject(item) || typeof item.uri !== "string") {
    throw protocolError(`resources/read contents[${index}] needs a string \`uri\``);
  }
  let content: McpResourceContent;
  if (typeof item.text === "string") content = { type: "text", uri: item.uri, text: item.text };
  else if (typeof item.blob === "string") {
    content = { type: "blob", uri: item.uri, blob: item.blob };
  } else throw protocolError(`resources/read contents[${index}] has neither \`text\` nor \`blob\``);
  if (typeof item.mimeType === "string") content.mimeType = item.mimeType;
  if (isJsonObject(item._meta)) content.metadata = item._meta;
  return content;
}
