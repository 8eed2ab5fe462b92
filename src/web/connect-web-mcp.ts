// Direction two of WebMCP (see `docs/design.md`, "WebMCP", W7-W13): the tools registered in
// the page (and in cross-origin frames that expose theirs to it) as a toolwire `Toolset`.

import { capabilitiesFromAnnotations } from "../declaration/capabilities.ts";
import { interactionCapabilities } from "../declaration/interaction-capabilities.ts";
import type { ToolAnnotations } from "../declaration/tool-annotations.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { namespacedName, type ToolName, toolName } from "../declaration/tool-name.ts";
import { errorText, ToolError, type ValidationIssue } from "../errors.ts";
import type { ToolHandlerBackend } from "../execution/backend.ts";
import { ToolResult } from "../execution/tool-result.ts";
import { resultFromMcp } from "../mcp/client/remote-tool.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
import { JsonSchema } from "../schema/json-schema.ts";
import { measureJson } from "../schema/measure-json.ts";
import type { JsonSchemaCheck, JsonSchemaValidator } from "../schema/schema-input.ts";
import { Toolset } from "../toolset/toolset.ts";
import {
  findModelContext,
  type WebMcpModelContext,
  type WebMcpRegisteredTool,
} from "./model-context.ts";

/** Options of `connectWebMcp`. */
export interface ConnectWebMcpOptions {
  /** The model context to read; default `document.modelContext`, else `navigator.modelContext`. */
  modelContext?: WebMcpModelContext;
  /** Lists the tools as `namespace__name`. */
  namespace?: string;
  /**
   * Origins of cross-origin frames whose tools to include, e.g. `["https://maps.example"]`.
   * A frame's tools appear only when its iframe has `allow="tools"` and the frame registered
   * them with `exposedTo` naming this page's origin.
   */
  fromOrigins?: readonly string[];
  /**
   * Whether to believe the tools' hints (see `docs/design.md`, "Trust"). Default: tools of this
   * page's own origin are believed, tools of any other origin are not (they need approval and
   * count as writing, destructive and open-world). `true` believes every tool, `false` none.
   */
  trustAnnotations?: boolean;
  /** Longest result accepted, in UTF-16 code units; default 4 MiB. A longer one fails the call. */
  maxResultLength?: number;
  /**
   * Deepest nesting of objects and arrays in a listed tool (its schema and annotations
   * included) and in a result (its `structuredContent` included); default 128 levels, as
   * `connectMcp`'s. A deeper tool is left out; a deeper result fails the call with
   * `invalid_output`. Either would overflow the stack of `JSON.stringify` in every later model
   * request that carried it.
   */
  maxSchemaDepth?: number;
  /**
   * Most bytes of JSON one listed tool may hold (default 256 KiB, as `connectMcp`'s); a larger
   * tool is left out, since its schema would travel with every model request.
   */
  maxToolBytes?: number;
  /**
   * Checks arguments against each tool's input schema before anything reaches the page (a
   * mismatch is `invalid_arguments`): pass `jsonSchemaValidator` from `toolwire/json-schema`.
   * Absent (the default), the page's tool sees the arguments unchecked, as it does from any
   * other caller. A schema the validator cannot apply is left to the page's tool.
   */
  jsonSchemaValidator?: JsonSchemaValidator;
}

const DEFAULT_MAX_RESULT_LENGTH = 4 * 1024 * 1024;
const DEFAULT_MAX_SCHEMA_DEPTH = 128;
const DEFAULT_MAX_TOOL_BYTES = 256 * 1024;

/** How deep and how large what a page hands over may be. */
interface Limits {
  maxLength: number;
  maxSchemaDepth: number;
  maxToolBytes: number;
}

interface PageTool {
  info: ToolInfo;
  native: WebMcpRegisteredTool;
  /** The compiled input schema, made on the first call. */
  check?: JsonSchemaCheck;
}

/**
 * Returns a `Toolset` of the WebMCP tools registered in the page, refreshed when the page
 * fires `toolchange`. A call goes through `executeTool` with the call's signal (aborting it
 * cancels the page's tool); the page's answer becomes a `ToolResult`: an MCP `CallToolResult`
 * keeps its content and `isError`, other JSON becomes `ToolResult.json`, other text
 * `ToolResult.text`, and a tool that throws gives an `isError: true` result. Each tool's
 * `source` is `{ type: "webmcp", origin, trusted }`. Tools whose names toolwire cannot
 * represent (WebMCP also allows `.`) are left out. With `jsonSchemaValidator`, arguments are
 * checked against the tool's input schema before anything is sent.
 *
 * @param options Where to read, which frames to include, and whether to trust the hints.
 * @returns The toolset; shutting it down stops listening and cancels live calls.
 * @throws ToolError `unsupported` when the page has no model context with `getTools` and
 * `executeTool` (the message says how to turn WebMCP on); `invalid_configuration` for a bad
 * namespace, origin list or `jsonSchemaValidator`.
 *
 * @example
 * ```ts
 * const page = await connectWebMcp({ namespace: "page", fromOrigins: ["https://maps.example"] });
 * const agent = new Agent({ model, toolsets: [page], approver });
 * ```
 */
export async function connectWebMcp(options: ConnectWebMcpOptions = {}): Promise<Toolset> {
  const context = findModelContext(options.modelContext, ["getTools", "executeTool"]);
  const { namespace, trustAnnotations } = options;
  if (namespace !== undefined) toolName(namespace);
  const fromOrigins = originsOf(options.fromOrigins);
  const limits: Limits = {
    maxLength: positive("maxResultLength", options.maxResultLength, DEFAULT_MAX_RESULT_LENGTH, 1),
    maxSchemaDepth: positive("maxSchemaDepth", options.maxSchemaDepth, DEFAULT_MAX_SCHEMA_DEPTH, 4),
    maxToolBytes: positive("maxToolBytes", options.maxToolBytes, DEFAULT_MAX_TOOL_BYTES, 1024),
  };
  const validator = options.jsonSchemaValidator;
  if (validator !== undefined && typeof validator !== "function") {
    throw new ToolError({
      type: "invalid_configuration",
      message: "jsonSchemaValidator must be a function",
    });
  }
  const here = (globalThis as { location?: { origin?: string } }).location?.origin;

  let cache: Promise<Map<string, PageTool>> | undefined;
  const load = (): Promise<Map<string, PageTool>> => {
    cache ??= (async () => {
      let listed: unknown;
      try {
        listed = await context.getTools?.(fromOrigins ? { fromOrigins } : undefined);
      } catch (error) {
        throw new ToolError(
          { type: "transport", message: `WebMCP getTools failed: ${errorText(error)}` },
          { cause: error },
        );
      }
      const tools = new Map<string, PageTool>();
      for (const native of Array.isArray(listed) ? (listed as WebMcpRegisteredTool[]) : []) {
        const info = infoOf(native, { namespace, trustAnnotations, here }, limits);
        if (info && !tools.has(info.name)) tools.set(info.name, { info, native });
      }
      return tools;
    })();
    const current = cache;
    // A failed listing is not kept; a newer one started meanwhile is.
    current.catch(() => {
      if (cache === current) cache = undefined;
    });
    return current;
  };
  const onChange = () => {
    cache = undefined;
  };
  context.addEventListener?.("toolchange", onChange);

  return Toolset.fromBackend({
    async listTools() {
      return [...(await load()).values()].map(({ info }) => info);
    },
    async toolHandler(name) {
      let tool = (await load()).get(name);
      if (!tool) {
        cache = undefined;
        tool = (await load()).get(name);
      }
      if (!tool) throw new ToolError({ type: "unknown_tool", name });
      return pageHandler(context, tool, limits, validator);
    },
    async shutdown() {
      context.removeEventListener?.("toolchange", onChange);
    },
  });
}

function positive(name: string, value: unknown, fallback: number, least: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || (chosen as number) < least) {
    throw new ToolError({
      type: "invalid_configuration",
      message: `${name} must be a whole number, at least ${least}`,
    });
  }
  return chosen as number;
}

function originsOf(value: readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const origins = Array.isArray(value) ? value.map(originOf) : [];
  if (!Array.isArray(value) || origins.includes(undefined)) {
    throw new ToolError({
      type: "invalid_configuration",
      message: 'fromOrigins must be an array of origins such as "https://maps.example"',
    });
  }
  return origins as string[];
}

function originOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const { origin } = new URL(value);
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

function infoOf(
  native: WebMcpRegisteredTool,
  options: {
    namespace: string | undefined;
    trustAnnotations: boolean | undefined;
    here: string | undefined;
  },
  limits: Limits,
): ToolInfo | undefined {
  if (!isJsonObject(native) || typeof native.name !== "string") return undefined;
  // Measured as kept; `execute` and the page's other members are not.
  const { name: listed, title, description, inputSchema, annotations: given } = native;
  const size = measureJson({ listed, title, description, inputSchema, given });
  if (size.depth > limits.maxSchemaDepth || size.bytes > limits.maxToolBytes) return undefined;
  let name: ToolName;
  try {
    name =
      options.namespace === undefined
        ? toolName(native.name)
        : namespacedName(options.namespace, native.name);
  } catch {
    return undefined;
  }
  const origin = typeof native.origin === "string" ? native.origin : (options.here ?? "");
  const trusted =
    options.trustAnnotations ?? (options.here !== undefined && origin === options.here);
  const hints = isJsonObject(native.annotations) ? native.annotations : {};
  const annotations: ToolAnnotations = {};
  if (typeof native.title === "string" && native.title !== "") annotations.title = native.title;
  if (typeof hints.readOnlyHint === "boolean") annotations.readOnlyHint = hints.readOnlyHint;
  // WebMCP has no destructive or open-world hint. Its untrustedContentHint says whether the
  // output carries content from outside the page, which is what MCP's openWorldHint means to
  // the interlock; a consequential tool is destructive. Without hints MCP's defaults apply.
  if (typeof hints.untrustedContentHint === "boolean") {
    annotations.openWorldHint = hints.untrustedContentHint;
  }
  if (hints.consequentialHint === true) annotations.destructiveHint = true;
  const info: ToolInfo = {
    name,
    inputSchema: JsonSchema.unspecified(
      isJsonObject(native.inputSchema) ? native.inputSchema : { type: "object" },
    ),
    annotations,
    capabilities: capabilitiesFromAnnotations(annotations, { trusted }),
    interactions: interactionCapabilities(),
    metadata: { webmcp: { name: native.name, origin, annotations: { ...hints } } },
    source: { type: "webmcp", origin, trusted },
  };
  if (annotations.title !== undefined) info.title = annotations.title;
  if (typeof native.description === "string") info.description = native.description;
  return info;
}

function pageHandler(
  context: WebMcpModelContext,
  tool: PageTool,
  limits: Limits,
  validator: JsonSchemaValidator | undefined,
): ToolHandlerBackend {
  const stop = new AbortController();
  const name = tool.info.name;
  let started = false;
  return {
    async step(input) {
      if (input?.type === "cancel") {
        stop.abort(input.reason);
        throw new ToolError(
          input.reason === undefined
            ? { type: "cancelled", tool: name }
            : { type: "cancelled", tool: name, reason: input.reason },
        );
      }
      if (input?.type !== "invoke" || started) {
        throw new ToolError({
          type: "unsupported",
          operation: `step ${JSON.stringify(input?.type)} on a WebMCP tool call`,
        });
      }
      started = true;
      const args = input.arguments ?? {};
      if (!isJsonObject(args)) {
        throw new ToolError({
          type: "invalid_arguments",
          tool: name,
          message: "WebMCP tools take an object",
          issues: [{ path: "", message: "must be an object", keyword: "type" }],
        });
      }
      tool.check ??= inputCheck(validator, tool.info.inputSchema.schema);
      let issues: ValidationIssue[];
      try {
        issues = tool.check(args);
      } catch {
        issues = [];
      }
      if (issues.length > 0) {
        throw new ToolError({
          type: "invalid_arguments",
          tool: name,
          message: "the arguments do not match the tool's input schema",
          issues,
        });
      }
      let answer: unknown;
      try {
        answer = await context.executeTool?.(tool.native, args, { signal: stop.signal });
      } catch (error) {
        if (stop.signal.aborted) throw new ToolError({ type: "cancelled", tool: name });
        if ((error as { name?: unknown })?.name === "TypeError") {
          throw new ToolError({ type: "unknown_tool", name }, { cause: error });
        }
        // The page's tool threw; Chromium reports that as UnknownError without the cause.
        return {
          type: "completed",
          result: ToolResult.error(`${name} failed: ${errorText(error)}`),
        };
      }
      return { type: "completed", result: resultOf(answer, name, limits) };
    },
  };
}

// Without a validator, or for a schema it cannot interpret (an unresolvable `$ref`, say), the
// arguments are left to the page's tool, which sees them anyway.
function inputCheck(
  validator: JsonSchemaValidator | undefined,
  schema: Record<string, unknown> | boolean,
): JsonSchemaCheck {
  if (validator === undefined) return () => [];
  try {
    return validator(schema);
  } catch {
    return () => [];
  }
}

function resultOf(answer: unknown, name: string, limits: Limits): ToolResult {
  const { maxLength, maxSchemaDepth } = limits;
  if (answer === undefined || answer === null) return ToolResult.text("");
  // Measured before `JSON.stringify`, which a deep enough value overflows.
  if (typeof answer === "object") tooDeep(answer, name, maxSchemaDepth);
  const text = typeof answer === "string" ? answer : JSON.stringify(answer);
  if (typeof text !== "string") return ToolResult.text(String(answer));
  if (text.length > maxLength) {
    throw new ToolError({
      type: "invalid_output",
      message: `${name} returned ${text.length} characters, over maxResultLength (${maxLength})`,
      issues: [],
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return ToolResult.text(text);
  }
  if (typeof answer === "string") tooDeep(value, name, maxSchemaDepth);
  if (isJsonObject(value) && Array.isArray(value.content)) {
    try {
      return resultFromMcp(value, name);
    } catch {
      // Not a well-formed CallToolResult after all: keep it as data.
    }
  }
  return ToolResult.json(value);
}

// A result nested past the limit fails the call: a model request carrying it would overflow.
function tooDeep(value: unknown, name: string, maxSchemaDepth: number): void {
  const { depth } = measureJson(value);
  if (depth <= maxSchemaDepth) return;
  throw new ToolError({
    type: "invalid_output",
    message: `${name} returned a result nested ${depth} levels deep, more than maxSchemaDepth (${maxSchemaDepth})`,
    issues: [],
  });
}
