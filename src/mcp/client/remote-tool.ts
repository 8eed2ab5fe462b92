// What a remote tool is on this side: its declaration from a `tools/list` entry (trust and
// names, design.md M1-M2), what every call of it shares (argument and output checks, the idle
// deadline), and how its answers read back (results, log lines). `remote-handler.ts` runs one
// call with these. See `docs/design.md`, "Consuming MCP".

import { capabilitiesFromAnnotations } from "../../declaration/capabilities.ts";
import { interactionCapabilities } from "../../declaration/interaction-capabilities.ts";
import type { ToolAnnotations, ToolIcon } from "../../declaration/tool-annotations.ts";
import type { ToolInfo } from "../../declaration/tool-info.ts";
import { NAMESPACE_SEPARATOR, type ToolName } from "../../declaration/tool-name.ts";
import { ToolError, type ValidationIssue } from "../../errors.ts";
import type { ToolLog } from "../../execution/handler-io.ts";
import type { ContentAnnotations, ToolContent } from "../../execution/tool-content.ts";
import type { ToolResult } from "../../execution/tool-result.ts";
import { excerpt } from "../../redaction.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { JsonSchema } from "../../schema/json-schema.ts";
import {
  foreignValidator,
  type JsonSchemaCheck,
  type JsonSchemaValidator,
} from "../../schema/schema-input.ts";
import type { JsonRpcParams } from "../json-rpc.ts";
import { LOGGING_LEVELS, TOOL_ERROR_META_KEY } from "../protocol.ts";
import { encodeHeaderValue, protocolError } from "./mcp-session.ts";

/** A remote tool's declaration and the name the server knows it by. */
export interface RemoteTool {
  /** The declaration callers see (namespaced when a namespace is set). */
  info: ToolInfo;
  /** The server's own name, sent in `tools/call`. */
  nativeName: string;
  /** The arguments mirrored into `Mcp-Param-*` headers (2026-07-28 `x-mcp-header`). */
  paramHeaders: ParamHeader[];
  /**
   * Whether a 2025-11-25 server runs it as a task only (`execution.taskSupport: "required"`): its
   * calls are then task-augmented. A 2026 tool carries no such marker; any call may become a task.
   */
  taskOnly?: boolean;
}

/** The Tasks extension's key in 2026-07-28 capabilities (`io.modelcontextprotocol/tasks`). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** One `x-mcp-header` annotation: where the argument sits, and the header's name suffix. */
export interface ParamHeader {
  path: string[];
  header: string;
}

/** How `tools/list` entries become declarations: where they come from and what is enabled. */
export interface RemoteToolOptions {
  /** Lists the tools as `namespace__name`. */
  namespace?: string;
  /** The server's URL as shown (`redactUrl`), for `ToolInfo.source.origin`. */
  origin: string;
  /** Believe the server's annotations (`trustAnnotations`). */
  trusted: boolean;
  /** Whether `elicitation/create` becomes a form (or text) interaction. */
  formInteractions: boolean;
  /** Whether `sampling/createMessage` becomes a sampling interaction. */
  samplingInteractions?: boolean;
  /** Whether `roots/list` becomes a roots interaction. */
  rootsInteractions?: boolean;
  /** 2026-07-28: `x-mcp-header` annotations are read, and a tool with an invalid one skipped. */
  modern?: boolean;
  /** The client's credentials, scrubbed from a name or header before it is cut for a reason. */
  secrets?: readonly string[];
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
// What MCP 2025-11-25 allows in a tool name.
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Returns the declaration of one `tools/list` entry, or a phrase saying why the entry cannot be
 * a tool here (the caller skips it and logs the reason; one odd tool never fails the
 * connection). The name is namespaced as `ns__name`; schemas are wrapped as
 * `JsonSchema.unspecified`; `source` names the server and whether its annotations are trusted:
 * untrusted, every capability is assumed and the tool is not read-only whatever it says
 * (design.md M1).
 */
export function toolFromMcp(value: unknown, options: RemoteToolOptions): RemoteTool | string {
  if (!isJsonObject(value) || typeof value.name !== "string") {
    return "a tools/list entry has no string `name`";
  }
  const nativeName = value.name;
  const secrets = options.secrets ?? [];
  const shown = JSON.stringify(excerpt(nativeName, secrets, 140));
  if (!isJsonObject(value.inputSchema)) return `tool ${shown} has no object \`inputSchema\``;
  if (value.outputSchema !== undefined && !isJsonObject(value.outputSchema)) {
    return `tool ${shown} has an \`outputSchema\` that is not an object`;
  }
  const rendered =
    options.namespace === undefined
      ? nativeName
      : `${options.namespace}${NAMESPACE_SEPARATOR}${nativeName}`;
  if (!MCP_TOOL_NAME.test(nativeName) || !MCP_TOOL_NAME.test(rendered)) {
    return `tool ${shown} cannot be named here: a name (with its namespace) must be 1-128 characters of A-Z, a-z, 0-9, _, - or .`;
  }
  const paramHeaders = options.modern ? paramHeadersOf(value.inputSchema, secrets) : [];
  if (typeof paramHeaders === "string") return `tool ${shown} ${paramHeaders}`;
  const annotations = annotationsOf(value.annotations);
  // A 2026-07-28 call declares form questions itself when its caller answers them.
  const form = options.formInteractions || options.modern === true;
  const trusted = options.trusted;
  const info: ToolInfo = {
    name: rendered as ToolName,
    inputSchema: JsonSchema.unspecified(value.inputSchema),
    annotations,
    capabilities: capabilitiesFromAnnotations(annotations, { trusted }),
    interactions: interactionCapabilities({
      form,
      formSchemaValidation: form,
      text: form,
      sampling: options.samplingInteractions === true,
      roots: options.rootsInteractions === true,
    }),
    source: { type: "mcp", origin: options.origin, trusted },
  };
  if (typeof value.title === "string") info.title = value.title;
  if (typeof value.description === "string") info.description = value.description;
  if (isJsonObject(value.outputSchema))
    info.outputSchema = JsonSchema.unspecified(value.outputSchema);
  const icons = iconsOf(value.icons);
  if (icons.length > 0) info.icons = icons;
  if (isJsonObject(value._meta)) info.metadata = value._meta;
  const execution = isJsonObject(value.execution) ? value.execution : {};
  const tool: RemoteTool = { info, nativeName, paramHeaders };
  // A task-only tool is called as a task and answers like any other (`remote-task.ts`).
  if (execution.taskSupport === "required") tool.taskOnly = true;
  return tool;
}

// An RFC 9110 token: what a header name may be made of.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_TYPES: unknown[] = ["string", "integer", "boolean"];
const MAX_SCHEMA_DEPTH = 64;

// The `x-mcp-header` annotations of an input schema, or why one is invalid: each must be a
// token, unique without regard to case, on a string, integer or boolean property reached from
// the root through `properties` only (not `items`, a composition or a `$ref`).
function paramHeadersOf(
  schema: Record<string, unknown>,
  secrets: readonly string[],
): ParamHeader[] | string {
  const found: ParamHeader[] = [];
  const names = new Set<string>();
  let problem: string | undefined;
  const walk = (node: unknown, path: string[] | undefined, depth: number): void => {
    if (problem !== undefined || depth > MAX_SCHEMA_DEPTH) return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, undefined, depth + 1);
      return;
    }
    if (!isJsonObject(node)) return;
    const header = node["x-mcp-header"];
    if (header !== undefined) {
      const shown = JSON.stringify(excerpt(String(header), secrets, 60));
      if (path === undefined || path.length === 0) {
        problem = `has an \`x-mcp-header\` ${shown} outside a plain property`;
      } else if (typeof header !== "string" || !TOKEN.test(header)) {
        problem = `has an \`x-mcp-header\` ${shown} that is not a header name`;
      } else if (!HEADER_TYPES.includes(node.type)) {
        problem = `has an \`x-mcp-header\` ${shown} on a property that is not a string, integer or boolean`;
      } else if (names.has(header.toLowerCase())) {
        problem = `has the \`x-mcp-header\` ${shown} twice`;
      } else {
        names.add(header.toLowerCase());
        found.push({ path, header });
      }
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === "properties" && path !== undefined && isJsonObject(child)) {
        for (const [name, property] of Object.entries(child)) {
          walk(property, [...path, name], depth + 1);
        }
      } else if (key !== "x-mcp-header") {
        walk(child, undefined, depth + 1);
      }
    }
  };
  walk(schema, [], 0);
  return problem ?? found;
}
function annotationsOf(value: unknown): ToolAnnotations {
  const annotations: ToolAnnotations = {};
  if (!isJsonObject(value)) return annotations;
  if (typeof value.title === "string") annotations.title = value.title;
  for (const hint of HINTS) {
    const flag = value[hint];
    if (typeof flag === "boolean") annotations[hint] = flag;
  }
  return annotations;
}

function iconsOf(value: unknown): ToolIcon[] {
  if (!Array.isArray(value)) return [];
  const icons: ToolIcon[] = [];
  for (const entry of value) {
    if (!isJsonObject(entry) || typeof entry.src !== "string") continue;
    const icon: ToolIcon = { src: entry.src };
    if (typeof entry.mimeType === "string") icon.mimeType = entry.mimeType;
    if (Array.isArray(entry.sizes) && entry.sizes.every((size) => typeof size === "string")) {
      icon.sizes = entry.sizes as string[];
    }
    icons.push(icon);
  }
  return icons;
}

/**
 * What every call of one remote tool shares: its declaration, the input and output checks
 * (compiled once, on first use, when the client has a validator), and the client's settings.
 */
export interface RemoteCallPlan {
  /** The tool. */
  tool: RemoteTool;
  /**
   * The client's validator in its variant for foreign schemas (`foreignValidator`: toolwire's
   * guards their patterns); without one the
   * server alone checks arguments and replies.
   */
  jsonSchemaValidator: JsonSchemaValidator | undefined;
  /** The idle deadline of one call, in milliseconds. */
  timeoutMs: number;
  /** Whether `elicitation/create` becomes a form interaction. */
  formInteractions: boolean;
  /** Whether `sampling/createMessage` becomes a sampling interaction. */
  samplingInteractions: boolean;
  /** Whether `roots/list` becomes a roots interaction. */
  rootsInteractions: boolean;
  /** Deepest nesting of an elicitation's `requestedSchema` taken as a question (`maxSchemaDepth`). */
  maxSchemaDepth?: number | undefined;
  /**
   * Whether the 2025-11-25 server takes task-augmented calls (its `initialize` capabilities
   * declare `tasks.requests.tools.call`); only then is a task-only tool's call augmented.
   */
  taskCalls: boolean;
  /**
   * Returns the arguments when they are a JSON object that satisfies the remote input schema
   * (checked only with a validator).
   *
   * @throws ToolError `invalid_arguments` with the issues.
   */
  checkArguments(args: unknown): Record<string, unknown>;
  /** Returns the `Mcp-Param-*` headers of checked arguments (none for a null or absent value). */
  paramHeaders(args: unknown): Record<string, string>;
  /**
   * Returns the result unchanged when it satisfies the declared output schema (a result
   * without `structuredContent` always fails; its shape is checked only with a validator).
   *
   * @throws ToolError `invalid_output`.
   */
  checkResult(result: ToolResult): ToolResult;
}

/** Creates the call plan of one remote tool. */
export function createRemoteCallPlan(
  tool: RemoteTool,
  options: {
    timeoutMs: number;
    formInteractions: boolean;
    samplingInteractions?: boolean;
    rootsInteractions?: boolean;
    jsonSchemaValidator?: JsonSchemaValidator | undefined;
    maxSchemaDepth?: number | undefined;
    taskCalls?: boolean;
  },
): RemoteCallPlan {
  // Foreign schemas: a pattern that can backtrack, or a value too long for the patterns it
  // meets, is left to the server; forms are checked the same way.
  const validator = options.jsonSchemaValidator && foreignValidator(options.jsonSchemaValidator);
  let input: JsonSchemaCheck | undefined;
  let output: JsonSchemaCheck | undefined;
  const name = tool.info.name;
  return {
    tool,
    jsonSchemaValidator: validator,
    timeoutMs: options.timeoutMs,
    formInteractions: options.formInteractions,
    samplingInteractions: options.samplingInteractions === true,
    rootsInteractions: options.rootsInteractions === true,
    maxSchemaDepth: options.maxSchemaDepth,
    taskCalls: options.taskCalls === true,
    paramHeaders(args) {
      const headers: Record<string, string> = {};
      for (const { path, header } of tool.paramHeaders) {
        let value: unknown = args;
        for (const key of path) value = isJsonObject(value) ? value[key] : undefined;
        const plain =
          typeof value === "string" ||
          typeof value === "boolean" ||
          (typeof value === "number" && Number.isSafeInteger(value));
        if (plain)
          headers[`mcp-param-${header}`] = encodeHeaderValue(value as string | number | boolean);
      }
      return headers;
    },
    checkArguments(args) {
      if (!isJsonObject(args)) {
        throw invalidArguments(name, [
          { path: "", message: "MCP tool arguments must be a JSON object" },
        ]);
      }
      input ??= lenient(validator, tool.info.inputSchema.schema);
      const issues = input(args);
      if (issues.length > 0) throw invalidArguments(name, issues);
      return args;
    },
    checkResult(result) {
      const schema = tool.info.outputSchema;
      if (result.isError || !schema) return result;
      if (result.structuredContent === undefined) {
        throw new ToolError({
          type: "invalid_output",
          message: `${name} declares an output schema but returned no structuredContent`,
          issues: [],
        });
      }
      output ??= lenient(validator, schema.schema);
      const issues = output(result.structuredContent);
      if (issues.length === 0) return result;
      throw new ToolError({
        type: "invalid_output",
        message: `${name} returned structuredContent that does not match its output schema`,
        issues,
      });
    },
  };
}

// Without a validator, or for a remote schema it cannot interpret (an unresolvable `$ref`,
// say), the checks are left to the server, which validates anyway; refusing every call would
// make the tool unusable.
function lenient(
  validator: JsonSchemaValidator | undefined,
  schema: Record<string, unknown> | boolean,
): JsonSchemaCheck {
  if (validator === undefined) return () => [];
  let check: JsonSchemaCheck;
  try {
    check = validator(schema);
  } catch {
    return () => [];
  }
  return (value) => {
    try {
      return check(value);
    } catch {
      return [];
    }
  };
}

// The issues of a remote `invalid_arguments`, read as any tool error's JSON is
// (`ToolError.fromJSON`); a report of another shape leaves the answer a result.
function reportedIssues(reported: unknown): ValidationIssue[] | undefined {
  try {
    const { issues } = ToolError.fromJSON(reported);
    return issues !== undefined && issues.length > 0 ? issues : undefined;
  } catch {
    return undefined;
  }
}

function invalidArguments(tool: string, issues: ValidationIssue[]): ToolError {
  const first = issues[0] as ValidationIssue;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new ToolError({
    type: "invalid_arguments",
    tool,
    message: `${first.path || "/"}: ${first.message}${more}`,
    issues,
  });
}

/**
 * Returns the tool result for a `tools/call` result: content blocks become tool content
 * (`resource` → `embedded_resource`, `_meta` → `metadata`), `structuredContent`, `isError` and
 * `_meta` are kept. A remote `isError: true` stays a result. An empty `content` list, which MCP
 * allows and toolwire does not, gets one item: the structured content as JSON, else empty text.
 *
 * @param value The JSON-RPC result.
 * @param tool The tool, for error messages.
 * @returns The result.
 * @throws ToolError `protocol` when the result or one of its blocks is malformed.
 */
export function resultFromMcp(value: Record<string, unknown>, tool: string): ToolResult {
  const { content, structuredContent, isError, _meta } = value;
  // A toolwire server reports arguments its tool refused with the error's data beside the
  // result; they fail the call as they would in-process (`invalid_arguments`), rather than
  // reading as a result the tool produced.
  const reported = isError === true && isJsonObject(_meta) ? _meta[TOOL_ERROR_META_KEY] : undefined;
  if (isJsonObject(reported) && reported.type === "invalid_arguments") {
    const issues = reportedIssues(reported);
    if (issues) throw invalidArguments(tool, issues);
  }
  if (!Array.isArray(content)) throw protocolError(`\`${tool}\` returned no \`content\` array`);
  if (isError !== undefined && typeof isError !== "boolean") {
    throw protocolError(`\`${tool}\` returned a non-boolean \`isError\``);
  }
  const items = content.map((block, index) => contentFromMcp(block, `${tool} content[${index}]`));
  if (items.length === 0) {
    items.push(
      structuredContent === undefined
        ? { type: "text", text: "" }
        : { type: "json", value: structuredContent },
    );
  }
  const result: ToolResult = { content: items, isError: isError === true };
  if (structuredContent !== undefined) result.structuredContent = structuredContent;
  if (isJsonObject(_meta)) result.metadata = _meta;
  return result;
}

/**
 * Returns the tool content of an MCP content block (a tool result's, a prompt message's).
 *
 * @throws ToolError `protocol` for a block that is not one.
 */
export function contentFromMcp(block: unknown, where: string): ToolContent {
  if (!isJsonObject(block) || typeof block.type !== "string") {
    throw protocolError(`${where} is not a content block`);
  }
  const item = itemOf(block, where);
  const annotations = contentAnnotationsOf(block.annotations);
  if (annotations) item.annotations = annotations;
  if (isJsonObject(block._meta)) item.metadata = block._meta;
  return item;
}

// A content block's annotations, keeping only well-typed fields: they are hints a host may
// show or sort by, so an ill-typed one is dropped rather than failing the whole result.
function contentAnnotationsOf(value: unknown): ContentAnnotations | undefined {
  if (!isJsonObject(value)) return undefined;
  const out: ContentAnnotations = {};
  const { audience, priority, lastModified } = value;
  if (Array.isArray(audience) && audience.every((a) => a === "user" || a === "assistant")) {
    out.audience = [...audience];
  }
  if (typeof priority === "number" && priority >= 0 && priority <= 1) out.priority = priority;
  if (typeof lastModified === "string") out.lastModified = lastModified;
  return Object.keys(out).length > 0 ? out : undefined;
}

function itemOf(block: Record<string, unknown>, where: string): ToolContent {
  const text = (key: string): string => {
    const field = block[key];
    if (typeof field !== "string") throw protocolError(`${where} needs a string \`${key}\``);
    return field;
  };
  const kind: unknown = block.type;
  switch (kind) {
    case "text":
      return { type: "text", text: text("text") };
    case "image":
    case "audio":
      return { type: kind, mimeType: text("mimeType"), data: text("data") };
    case "resource_link": {
      const link: ToolContent = { type: "resource_link", uri: text("uri") };
      // MCP's required `name` is the link's label when it has no `title`.
      const title = typeof block.title === "string" ? block.title : block.name;
      if (typeof title === "string") link.title = title;
      if (typeof block.mimeType === "string") link.mimeType = block.mimeType;
      return link;
    }
    case "resource": {
      const source = block.resource;
      if (!isJsonObject(source) || typeof source.uri !== "string") {
        throw protocolError(`${where} needs a \`resource\` with a string \`uri\``);
      }
      const resource: { uri: string; mimeType?: string; text?: string; blob?: string } = {
        uri: source.uri,
      };
      if (typeof source.mimeType === "string") resource.mimeType = source.mimeType;
      if (typeof source.text === "string") resource.text = source.text;
      if (typeof source.blob === "string") resource.blob = source.blob;
      return { type: "embedded_resource", resource };
    }
    default:
      // a block type from a newer revision is kept, as data, rather than failing the call.
      return { type: "json", value: block };
  }
}

/**
 * Returns the tool log a `notifications/message` carries, or `undefined` when its level is not
 * one of the MCP logging levels.
 */
export function logFromMcp(params: JsonRpcParams): ToolLog | undefined {
  const { level, data, logger } = params;
  if (!(LOGGING_LEVELS as readonly unknown[]).includes(level)) return undefined;
  const log: ToolLog = { level: level as ToolLog["level"], data };
  if (typeof logger === "string") log.logger = logger;
  return log;
}

/** A restartable one-shot deadline. */
export interface IdleTimer {
  /** Starts the deadline over from now. */
  arm(): void;
  /** Stops the deadline until the next `arm`. */
  disarm(): void;
}

/**
 * Creates an idle timer, initially disarmed: `onExpire` runs once `ms` milliseconds pass
 * without an `arm` or `disarm`.
 */
export function createIdleTimer(ms: number, onExpire: () => void): IdleTimer {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const disarm = () => {
    if (handle !== undefined) clearTimeout(handle);
    handle = undefined;
  };
  return {
    arm() {
      disarm();
      handle = setTimeout(() => {
        handle = undefined;
        onExpire();
      }, ms);
    },
    disarm,
  };
}
