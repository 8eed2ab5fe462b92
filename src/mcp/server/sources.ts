// What an MCP server offers besides tools: resources (fixed URIs and URI templates) and prompts,
// with completion of their arguments. A small contract of plain objects passed to
// `createMcpHandler` beside the toolset; the `Toolset` knows nothing of it. The methods that
// serve it are written once for both protocol eras (`resource-methods.ts`, `prompt-methods.ts`,
// `completion.ts`); see `docs/design.md`, "Serving MCP", "Resources, prompts and completion".

import type { ToolIcon } from "../../declaration/tool-annotations.ts";
import { ToolError } from "../../errors.ts";
import type { ContentAnnotations, ToolContent } from "../../execution/tool-content.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { parseUriTemplate, type UriTemplate } from "./uri-template.ts";

/**
 * Request context interface: what a resource read or a prompt may use while it serves one
 * request. Its functions work detached.
 */
export interface McpRequestContext {
  /** Aborted when the client goes away (or cancels) and the answer is no longer wanted. */
  signal: AbortSignal;
  /** What `authorize` returned for this request (`undefined` without an authorizer). */
  auth?: unknown;
  /**
   * Asks the client's user for a line of text: on 2025-11-25 an `elicitation/create` on the
   * request's stream (a session whose client declared elicitation, `interactionPolicy:
   * "elicit"`), on 2026-07-28 an `input_required` answer after which the client sends the
   * request again and the read or prompt runs again from the start, this question answered.
   *
   * @throws ToolError `interaction_declined` when the user declines, `unsupported` when the
   * client cannot be asked.
   */
  requestText(prompt: string): Promise<string>;
  /**
   * Asks the client's user for a JSON object described by `schema` (a flat object schema of
   * primitive fields, as MCP elicitation allows); asked and answered as `requestText`.
   *
   * @throws ToolError `interaction_declined` or `unsupported`.
   */
  requestForm(prompt: string, schema: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** Completion context interface: what a completer is told besides the value typed so far. */
export interface McpCompletionContext {
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** What `authorize` returned for this request. */
  auth?: unknown;
  /** The other arguments already filled in (`context.arguments` of the request). */
  arguments: Readonly<Record<string, string>>;
}

/**
 * Completer type: suggestions for one argument given what the user typed so far. At most 100
 * are sent (MCP's limit); `hasMore` tells the client there were more.
 */
export type McpCompleter = (
  value: string,
  context: McpCompletionContext,
) => readonly string[] | Promise<readonly string[]>;

/**
 * Resource contents type: one item a read returns. Text travels as is, binary data as base64
 * (`blob`; a `Uint8Array` is encoded for you). `uri` defaults to the URI read and `mimeType` to
 * the resource's.
 */
export type McpResourceContents = (
  | { text: string; blob?: never }
  | { blob: string | Uint8Array; text?: never }
) & { uri?: string; mimeType?: string; metadata?: Record<string, unknown> };

/**
 * What a read returns: a text, a `Uint8Array` (binary), one contents item or several;
 * `undefined` (from a template) means no resource has that URI, answered as "resource not
 * found".
 */
export type McpReadResult =
  | string
  | Uint8Array
  | McpResourceContents
  | readonly McpResourceContents[]
  | undefined;

/** Resource description interface: what a resource or template says about itself in a listing. */
export interface McpResourceDescription {
  /** The programmatic name. */
  name: string;
  /** A display name. */
  title?: string;
  /** What it holds, for the model or the user. */
  description?: string;
  /** The media type of its contents. */
  mimeType?: string;
  /** Who it is for and how much it matters. */
  annotations?: ContentAnnotations;
  /** Icons a client may show. */
  icons?: readonly ToolIcon[];
  /** Sent as the entry's `_meta`. */
  metadata?: Record<string, unknown>;
}

/**
 * Resource interface: one resource at a fixed URI, listed by `resources/list`.
 *
 * @example
 * ```ts
 * const readme: McpResource = {
 *   uri: "docs://readme",
 *   name: "readme",
 *   mimeType: "text/markdown",
 *   read: () => "# Hello",
 * };
 * ```
 */
export interface McpResource extends McpResourceDescription {
  /** The resource's URI (any scheme: `file:`, `https:`, your own). */
  uri: string;
  /** Its size in bytes, if known. */
  size?: number;
  /** Reads it (at every `resources/read`). */
  read(context: McpRequestContext): McpReadResult | Promise<McpReadResult>;
}

/**
 * Resource template interface: a family of resources named by an RFC 6570 URI template of
 * level 1 (`file:///logs/{date}`: each `{name}` matches one path segment, no `/`), listed by
 * `resources/templates/list` and read through any URI it matches.
 */
export interface McpResourceTemplate extends McpResourceDescription {
  /** The URI template, e.g. `test://template/{id}/data`. */
  uriTemplate: string;
  /**
   * Reads the resource the URI names, given the template's variables (percent-decoded);
   * `undefined` when there is none.
   */
  read(
    uri: string,
    variables: Readonly<Record<string, string>>,
    context: McpRequestContext,
  ): McpReadResult | Promise<McpReadResult>;
  /** Completers of the template's variables, by variable name (`completion/complete`). */
  complete?: Readonly<Record<string, McpCompleter>>;
}

/** Prompt argument interface: one argument a prompt takes (always a string). */
export interface McpPromptArgument {
  name: string;
  title?: string;
  description?: string;
  /** Whether `prompts/get` must name it (a missing one is `-32602`). */
  required?: boolean;
}

/** Prompt message interface: one message of a prompt; the content is a tool content item. */
export interface McpPromptMessage {
  role: "user" | "assistant";
  /** Text, an image, audio, a resource link or an embedded resource (`json` becomes text). */
  content: ToolContent;
}

/**
 * What a prompt returns: one user message of text, messages, or messages with a description.
 */
export type McpPromptResult =
  | string
  | readonly McpPromptMessage[]
  | { description?: string; messages: readonly McpPromptMessage[] };

/**
 * Prompt interface: a named message template listed by `prompts/list` and filled in by
 * `prompts/get`.
 *
 * @example
 * ```ts
 * const review: McpPrompt = {
 *   name: "review",
 *   arguments: [{ name: "code", required: true }],
 *   get: ({ code }) => `Review this code:\n${code}`,
 * };
 * ```
 */
export interface McpPrompt {
  /** The prompt's name, unique among the server's prompts. */
  name: string;
  title?: string;
  description?: string;
  arguments?: readonly McpPromptArgument[];
  icons?: readonly ToolIcon[];
  /** Sent as the entry's `_meta`. */
  metadata?: Record<string, unknown>;
  /** Fills the prompt in; every required argument is present. */
  get(
    args: Readonly<Record<string, string>>,
    context: McpRequestContext,
  ): McpPromptResult | Promise<McpPromptResult>;
  /** Completers of the prompt's arguments, by argument name (`completion/complete`). */
  complete?: Readonly<Record<string, McpCompleter>>;
}

/**
 * Source list type: the entries themselves, or a function that lists them for a caller (it
 * receives what `authorize` returned), called for every request that needs the list.
 */
export type McpSourceList<T> =
  | readonly T[]
  | ((context: { auth?: unknown }) => readonly T[] | Promise<readonly T[]>);

/** What `createMcpHandler` serves besides the toolset. */
export interface McpSources {
  /** Resources at fixed URIs. */
  resources?: McpSourceList<McpResource>;
  /** Resources named by URI templates. */
  resourceTemplates?: McpSourceList<McpResourceTemplate>;
  /** Prompts. */
  prompts?: McpSourceList<McpPrompt>;
}

/** A template with its parsed form, kept beside the entry it came from. */
export interface ParsedTemplate {
  readonly entry: McpResourceTemplate;
  readonly template: UriTemplate;
}

/** The sources of one handler, checked once and listed per request. */
export interface ServedSources {
  /** Whether resources (fixed or templated) are served: the `resources` capability. */
  readonly resources: boolean;
  /** Whether prompts are served: the `prompts` capability. */
  readonly prompts: boolean;
  /** Whether anything can be completed: the `completions` capability. */
  readonly completions: boolean;
  listResources(auth: unknown): Promise<readonly McpResource[]>;
  listTemplates(auth: unknown): Promise<readonly ParsedTemplate[]>;
  listPrompts(auth: unknown): Promise<readonly McpPrompt[]>;
}

/**
 * Checks the sources given to `createMcpHandler` and returns how they are listed. A template
 * is parsed once per entry (entries listed by a function are parsed as they come).
 *
 * @throws ToolError `invalid_configuration` for a source that is neither a list nor a function,
 * or a fixed list holding an entry without its name, URI (template) or function.
 */
export function serveSources(sources: McpSources): ServedSources {
  const resources = listOf("resources", sources.resources, checkResource);
  const templates = listOf("resourceTemplates", sources.resourceTemplates, checkTemplate);
  const prompts = listOf("prompts", sources.prompts, checkPrompt);
  const parsed = new WeakMap<McpResourceTemplate, ParsedTemplate>();
  const parse = (entry: McpResourceTemplate): ParsedTemplate => {
    let found = parsed.get(entry);
    if (!found) {
      found = { entry, template: parseUriTemplate(entry.uriTemplate) };
      parsed.set(entry, found);
    }
    return found;
  };
  return {
    resources: resources !== undefined || templates !== undefined,
    prompts: prompts !== undefined,
    completions: templates !== undefined || prompts !== undefined,
    listResources: async (auth) => (resources ? await resources(auth) : []),
    listTemplates: async (auth) => (templates ? (await templates(auth)).map(parse) : []),
    listPrompts: async (auth) => (prompts ? await prompts(auth) : []),
  };
}

function listOf<T>(
  option: string,
  given: McpSourceList<T> | undefined,
  check: (entry: unknown, where: string) => void,
): ((auth: unknown) => Promise<readonly T[]>) | undefined {
  if (given === undefined) return undefined;
  if (typeof given === "function") {
    return async (auth) => {
      const listed = await given({ auth });
      if (!Array.isArray(listed)) throw invalid(`\`${option}\` must list an array of entries`);
      for (const [i, entry] of listed.entries()) check(entry, `\`${option}\`[${i}]`);
      return listed;
    };
  }
  if (!Array.isArray(given)) throw invalid(`\`${option}\` must be an array or a function`);
  for (const [i, entry] of given.entries()) check(entry, `\`${option}\`[${i}]`);
  const fixed = given as readonly T[];
  return async () => fixed;
}

function checkResource(entry: unknown, where: string): void {
  if (!isJsonObject(entry) || typeof entry.uri !== "string" || entry.uri === "") {
    throw invalid(`${where} needs a string \`uri\``);
  }
  checkCommon(entry, where, "read");
}

function checkTemplate(entry: unknown, where: string): void {
  if (!isJsonObject(entry) || typeof entry.uriTemplate !== "string") {
    throw invalid(`${where} needs a string \`uriTemplate\``);
  }
  parseUriTemplate(entry.uriTemplate);
  checkCommon(entry, where, "read");
  checkCompleters(entry, where);
}

function checkPrompt(entry: unknown, where: string): void {
  if (!isJsonObject(entry)) throw invalid(`${where} must be an object`);
  checkCommon(entry, where, "get");
  if (entry.arguments !== undefined) {
    const args = entry.arguments;
    if (!Array.isArray(args) || !args.every((a) => isJsonObject(a) && typeof a.name === "string")) {
      throw invalid(`${where}.arguments must be an array of \`{ name }\` objects`);
    }
  }
  checkCompleters(entry, where);
}

function checkCommon(entry: Record<string, unknown>, where: string, run: "read" | "get"): void {
  if (typeof entry.name !== "string" || entry.name === "") {
    throw invalid(`${where} needs a string \`name\``);
  }
  if (typeof entry[run] !== "function") throw invalid(`${where} needs a \`${run}\` function`);
}

function checkCompleters(entry: Record<string, unknown>, where: string): void {
  const complete = entry.complete;
  if (complete === undefined) return;
  if (!isJsonObject(complete) || !Object.values(complete).every((f) => typeof f === "function")) {
    throw invalid(`${where}.complete must map names to functions`);
  }
}

function invalid(message: string): ToolError {
  return new ToolError({ type: "invalid_configuration", message });
}
