import { type Capabilities, capabilities as toCapabilities } from "../declaration/capabilities.ts";
import type { CarriedState } from "../declaration/carried-state.ts";
import {
  type InteractionCapabilities,
  interactionCapabilities,
} from "../declaration/interaction-capabilities.ts";
import type { ToolAnnotations, ToolIcon } from "../declaration/tool-annotations.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import { type ToolName, toolName } from "../declaration/tool-name.ts";
import { ToolError } from "../errors.ts";
import type { ToolResult } from "../execution/tool-result.ts";
import { JsonSchema } from "../schema/json-schema.ts";
import {
  type PreparedSchema,
  prepareSchema,
  type SchemaInput,
  type SchemaOutput,
} from "../schema/schema-input.ts";
import type { ToolContext } from "./tool-context.ts";

/**
 * Tool interface: a local tool made by `defineTool`, ready for `Toolset.local`.
 */
export interface Tool<Input = unknown> {
  /** The tool's name. */
  readonly name: ToolName;
  /** The complete declaration, as `listTools` reports it. */
  readonly info: ToolInfo;
  /** Whether the tool skips approval (it changes nothing). */
  readonly readOnly: boolean;
  /** Declared risk surface. */
  readonly capabilities: Capabilities;
  /** Returns state to carry verbatim across compaction, or `undefined` for none. */
  carriedState?(): CarriedState | undefined;
  /** The tool's function, called with validated arguments. */
  call(input: Input, ctx: ToolContext): Promise<unknown>;
  /** Input validation, prepared once. */
  readonly "~input": PreparedSchema;
  /** Output validation, when an output schema is declared. */
  readonly "~output"?: PreparedSchema;
}

/** Define tool options interface. */
export interface DefineToolOptions<S extends SchemaInput> {
  /** Name the model calls; `^[A-Za-z0-9_-]{1,128}$`. */
  name: string;
  /** Model-visible description. */
  description: string;
  /** Display label. */
  title?: string;
  /** Argument schema: a valibot schema, or `{ jsonSchema }` for a raw JSON Schema. */
  input: S;
  /** Output schema; when set, every successful result must carry matching `structuredContent`. */
  output?: SchemaInput;
  /** The tool changes nothing, so it skips approval. Default `false`. */
  readOnly?: boolean;
  /** Declared risk surface; unset flags are `false`. */
  capabilities?: Partial<Capabilities>;
  /** MCP hints; by default derived from `readOnly` and `capabilities`. */
  annotations?: ToolAnnotations;
  /** Caller interactions the tool may request. */
  interactions?: Partial<InteractionCapabilities>;
  /** Visual metadata. */
  icons?: ToolIcon[];
  /** Uninterpreted extra metadata. */
  metadata?: Record<string, unknown>;
  /** Returns state to carry verbatim across compaction. */
  carriedState?(): CarriedState | undefined;
  /**
   * The tool. A string becomes a text result; a `ToolResult.*` value is used as is; any other
   * value becomes `structuredContent` plus its JSON text. Throwing a non-`ToolError` yields an
   * `isError` result carrying the message.
   */
  call(
    input: SchemaOutput<S>,
    ctx: ToolContext,
  ): Promise<ToolResult | string | unknown> | ToolResult | string | unknown;
}

/**
 * Creates a local tool from a valibot schema or a raw JSON Schema. Schemas are converted and
 * prepared once, here.
 *
 * @param options The tool's declaration and function.
 * @returns The tool.
 * @throws ToolError `invalid_configuration` for a bad name or a missing function.
 * @example
 * ```ts
 * const add = defineTool({
 *   name: "add", description: "Adds two numbers", readOnly: true,
 *   input: v.object({ a: v.number(), b: v.number() }),
 *   call: ({ a, b }) => String(a + b),
 * });
 * ```
 */
export function defineTool<S extends SchemaInput>(
  options: DefineToolOptions<S>,
): Tool<SchemaOutput<S>> {
  const name = toolName(options.name);
  if (typeof options.call !== "function") {
    throw new ToolError({
      type: "invalid_configuration",
      message: `tool ${name} needs a call function`,
    });
  }
  const input = prepareSchema(options.input);
  const output = options.output === undefined ? undefined : prepareSchema(options.output);
  const readOnly = options.readOnly === true;
  const caps = toCapabilities(options.capabilities);
  const info: ToolInfo = {
    name,
    inputSchema: JsonSchema.unspecified(input.jsonSchema),
    annotations: { ...defaultAnnotations(readOnly, caps, options.title), ...options.annotations },
    capabilities: caps,
    interactions: interactionCapabilities(options.interactions),
  };
  if (options.title !== undefined) info.title = options.title;
  if (options.description !== undefined) info.description = options.description;
  if (output) info.outputSchema = JsonSchema.unspecified(output.jsonSchema);
  if (options.icons) info.icons = options.icons;
  if (options.metadata) info.metadata = options.metadata;
  const call = options.call;
  const tool: Tool<SchemaOutput<S>> = {
    name,
    info,
    readOnly,
    capabilities: caps,
    call: async (value, ctx) => call(value, ctx),
    "~input": input,
    ...(output ? { "~output": output } : {}),
  };
  if (options.carriedState) tool.carriedState = options.carriedState.bind(options);
  return tool;
}

function defaultAnnotations(
  readOnly: boolean,
  caps: Capabilities,
  title: string | undefined,
): ToolAnnotations {
  const annotations: ToolAnnotations = {
    readOnlyHint: readOnly,
    destructiveHint: caps.destructive,
    openWorldHint: caps.externalSend || caps.untrustedInput,
  };
  if (title !== undefined) annotations.title = title;
  return annotations;
}
