import { type Capabilities, capabilities as toCapabilities } from "../declaration/capabilities.ts";
import type { CarriedState } from "../declaration/carried-state.ts";
import {
  type InteractionCapabilities,
  interactionCapabilities,
} from "../declaration/interaction-capabilities.ts";
import type { ToolAnnotations, ToolIcon } from "../declaration/tool-annotations.ts";
import type { TaskSupport, ToolInfo } from "../declaration/tool-info.ts";
import { type ToolName, toolName } from "../declaration/tool-name.ts";
import { ToolError } from "../errors.ts";
import type { ToolLogLevel, ToolProgress } from "../execution/handler-io.ts";
import type { ToolResult } from "../execution/tool-result.ts";
import type { Root } from "../interaction/roots.ts";
import type { SamplingRequest, SamplingResult } from "../interaction/sampling.ts";
import type { JsonSchema } from "../schema/json-schema.ts";
import {
  type JsonSchemaValidator,
  type PreparedSchema,
  prepareSchema,
  type SchemaInput,
  type SchemaOutput,
} from "../schema/schema-input.ts";

/**
 * What a running local tool can use besides its arguments. Its functions work detached, so a
 * tool may destructure them: `call: (input, { signal, progress }) => …`.
 */
export interface ToolContext {
  /** Aborted when the call is cancelled or its toolset shuts down. */
  signal: AbortSignal;
  /** The caller's correlation id for this call. */
  callId?: string;
  /** This tool's name. */
  toolName: ToolName;
  /**
   * Who is calling: what the host passed as `CallOptions.auth` (for an MCP server, what its
   * `authorize` returned). `undefined` when the host knows no identity.
   */
  auth?: unknown;
  /** Reports progress to whoever drives the call. */
  progress(update: ToolProgress): void;
  /**
   * Logs a message to whoever drives the call (an MCP server sends it as
   * `notifications/message`, filtered by the client's `logging/setLevel`). Nobody listening is
   * fine: the message is dropped.
   *
   * @param level How severe it is.
   * @param data A string or any JSON-serializable value.
   * @param logger The name of the logger, e.g. a component of the tool.
   */
  log(level: ToolLogLevel, data: unknown, logger?: string): void;
  /**
   * Asks the caller for text; needs `interactions: { text: true }` (or `multilineText`).
   *
   * @throws ToolError `interaction_declined` when the caller declines, `undeclared_interaction`
   * when the tool did not declare the kind.
   */
  requestText(prompt: string, options?: { multiline?: boolean }): Promise<string>;
  /**
   * Asks the caller for a JSON object described by `schema`; needs `interactions: { form: true }`.
   *
   * @throws ToolError `interaction_declined` or `undeclared_interaction`.
   */
  requestForm(prompt: string, schema: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * Asks the caller's model for a reply (MCP sampling); needs `interactions: { sampling: true }`.
   * The caller picks the model and should let a person see and approve the request; the prompt
   * it shows is the text of the last text message.
   *
   * @throws ToolError `interaction_declined` when the caller declines, `undeclared_interaction`
   * when the tool did not declare sampling, `invalid_configuration` for a malformed request.
   */
  requestSampling(request: SamplingRequest): Promise<SamplingResult>;
  /**
   * Asks the caller for its roots, the places it lets the tool work in (MCP `roots/list`);
   * needs `interactions: { roots: true }`.
   *
   * @throws ToolError `interaction_declined` when the caller declines, `undeclared_interaction`
   * when the tool did not declare roots.
   */
  requestRoots(): Promise<Root[]>;
  /**
   * Runs a side effect once per call and returns its result, which must be JSON (`undefined`
   * is fine; every host returns the JSON copy). A host that answers a question by running the
   * tool again from the start (MCP 2026-07-28) replays the recorded result instead of running
   * `effect` again; everywhere else this is a plain call. The key names the effect within the
   * call: a second `once` with the same key returns the first one's result. An effect that
   * throws is not recorded, so a later run tries it again.
   *
   * @param key Names the effect, the same on every run of the call (e.g. `"charge"`).
   * @param effect The side effect.
   * @throws ToolError `invalid_output` for a result with no JSON form, `cancelled` once the call
   * was stopped, `invalid_configuration` for an empty key; else what `effect` throws.
   * @example
   * ```ts
   * const order = await ctx.once("order", () => shop.placeOrder(input));
   * const ok = await ctx.requestForm("Pay now?", payForm); // over 2026 the tool runs again here
   * ```
   */
  once<T>(key: string, effect: () => T | Promise<T>): Promise<T>;
}

/**
 * A local tool made by `defineTool`, ready for `Toolset.local`.
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
  /** Whether the tool may run again from the start to replay answered questions (`replayable`). */
  readonly replayable: boolean;
  /** Returns state to carry verbatim across compaction, or `undefined` for none. */
  carriedState?(): CarriedState | undefined;
  /** The tool's function, called with validated arguments. */
  call(input: Input, ctx: ToolContext): Promise<unknown>;
  /** Input validation, prepared once. */
  readonly "~input": PreparedSchema;
  /** Output validation, when an output schema is declared. */
  readonly "~output"?: PreparedSchema;
  /** The tool's `jsonSchemaValidator`, which its handler checks form replies with. */
  readonly "~formValidator"?: JsonSchemaValidator | undefined;
  /**
   * The author's function as given, which may return a bare value; the local handler calls it
   * directly, sparing a sync tool a promise and the ticks it costs to adopt one.
   */
  "~run"?(input: Input, ctx: ToolContext): unknown;
}

/** What `defineTool` takes: the declaration and the function. */
export interface DefineToolOptions<S extends SchemaInput> {
  /** Name the model calls: 1-128 of `A-Z a-z 0-9 _ - .` (see `toolName`). */
  name: string;
  /** Model-visible description. */
  description: string;
  /** Display label. */
  title?: string;
  /**
   * Argument schema: a valibot schema, or `{ jsonSchema }` for a raw JSON Schema (which needs
   * `jsonSchemaValidator`).
   */
  input: S;
  /**
   * Output schema; when set, every successful result must carry matching `structuredContent`.
   * A raw JSON Schema needs `jsonSchemaValidator`.
   */
  output?: SchemaInput;
  /**
   * Interprets raw JSON Schemas: `{ jsonSchema }` inputs and outputs, and the schemas of form
   * replies when `interactions.formSchemaValidation` is set. Import toolwire's from
   * `toolwire/json-schema` (`import { jsonSchemaValidator } from "toolwire/json-schema"`); a
   * tool that needs one and has none fails here with `invalid_configuration`. Valibot schemas
   * never use it.
   */
  jsonSchemaValidator?: JsonSchemaValidator;
  /**
   * The tool changes nothing, so it skips approval. Default: `annotations.readOnlyHint`, else
   * `false`. It and `annotations.readOnlyHint` are one fact, so giving both with different
   * values fails with `invalid_configuration`.
   */
  readOnly?: boolean;
  /** Declared risk surface; unset flags are `false`. */
  capabilities?: Partial<Capabilities>;
  /**
   * MCP hints. Each hint not given is derived: `readOnlyHint` from `readOnly`,
   * `destructiveHint` from `capabilities.destructive`, `openWorldHint` from
   * `capabilities.externalSend || capabilities.untrustedInput`, `title` from `title`. A hint
   * given explicitly wins for its own field.
   */
  annotations?: ToolAnnotations;
  /** Caller interactions the tool may request. */
  interactions?: Partial<InteractionCapabilities>;
  /**
   * Whether the tool may be run again from the start to replay the questions it asked; default
   * `true`. Over MCP 2026-07-28 a server answers a question by running the tool again with the
   * answers so far: effects inside `ctx.once` are replayed from the journal, anything else runs
   * twice. `false` says the tool must never run twice, so such a question fails the call with
   * `unsupported` instead (everywhere else the tool asks as usual).
   */
  replayable?: boolean;
  /**
   * Whether an MCP server with `tasks` (`mcpTasks`) may run the tool as a task: `optional` runs
   * it as one when the client declares the Tasks extension (a handle at once, the result polled
   * for), `required` only so (a client without the extension is refused). Default: never; for
   * work that outlasts a request.
   */
  taskSupport?: TaskSupport;
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
 * @throws ToolError `invalid_configuration` for a bad name, a missing description, input schema
 * or function, a raw JSON Schema (or `formSchemaValidation`) without `jsonSchemaValidator`, or
 * `readOnly` contradicting `annotations.readOnlyHint`.
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
  if (typeof options !== "object" || options === null) {
    throw invalid("defineTool needs an options object");
  }
  const name = toolName(options.name);
  if (typeof options.description !== "string") throw invalid(`tool ${name} needs a description`);
  if (typeof options.call !== "function") throw invalid(`tool ${name} needs a call function`);
  const validator = options.jsonSchemaValidator;
  const input = prepareSchema(options.input, validator, `tool ${name}'s JSON Schema input`);
  // Arguments are a JSON object everywhere a tool is called from (MCP requires an object input
  // schema, and models send an object): a schema that says otherwise could never be met.
  const inputType = typeof input.jsonSchema === "object" ? input.jsonSchema.type : undefined;
  if (inputType !== undefined && inputType !== "object") {
    throw invalid(
      `tool ${name}'s input must describe an object of arguments (e.g. v.object({ text: v.string() })), not ${JSON.stringify(inputType)}`,
    );
  }
  const output =
    options.output === undefined
      ? undefined
      : prepareSchema(options.output, validator, `tool ${name}'s JSON Schema output`);
  const interactions = interactionCapabilities(options.interactions);
  // Form replies are checked against a raw JSON Schema too, so the same validator is needed.
  if (interactions.formSchemaValidation) {
    prepareSchema({ jsonSchema: true }, validator, `tool ${name}'s formSchemaValidation`);
  }
  const hint = options.annotations?.readOnlyHint;
  if (options.readOnly !== undefined && hint !== undefined && options.readOnly !== hint) {
    throw invalid(`tool ${name} has readOnly ${options.readOnly} but readOnlyHint ${hint}`);
  }
  const readOnly = (options.readOnly ?? hint) === true;
  const caps = toCapabilities(options.capabilities);
  if (options.replayable !== undefined && typeof options.replayable !== "boolean") {
    throw invalid(`tool ${name} has a non-boolean replayable`);
  }
  const info: ToolInfo = {
    name,
    description: options.description,
    inputSchema: unspecified(input.jsonSchema),
    annotations: annotationsOf(readOnly, caps, options.title, options.annotations),
    capabilities: caps,
    interactions,
  };
  if (options.title !== undefined) info.title = options.title;
  // Not checked here (the type says it): a server reads only `optional` and `required`.
  if (options.taskSupport) info.taskSupport = options.taskSupport;
  if (output) info.outputSchema = unspecified(output.jsonSchema);
  if (options.icons) info.icons = options.icons;
  if (options.metadata) info.metadata = options.metadata;
  const call = options.call;
  const tool: Tool<SchemaOutput<S>> = {
    name,
    info,
    readOnly,
    capabilities: caps,
    replayable: options.replayable !== false,
    call: async (value, ctx) => call(value, ctx),
    "~run": call,
    "~input": input,
    "~formValidator": validator,
  };
  if (output) (tool as { "~output"?: PreparedSchema })["~output"] = output;
  if (options.carriedState) tool.carriedState = options.carriedState.bind(options);
  return tool;
}

// What `JsonSchema.unspecified` makes, written out: the namespace object would bring its other
// two wrappers into every bundle (51 bytes gzip of the core's 12 KB).
function unspecified(schema: Record<string, unknown> | boolean): JsonSchema {
  return { schema, strictness: "unspecified" };
}

function invalid(message: string): ToolError {
  return new ToolError({ type: "invalid_configuration", message });
}

function annotationsOf(
  readOnly: boolean,
  caps: Capabilities,
  title: string | undefined,
  explicit: ToolAnnotations | undefined,
): ToolAnnotations {
  const annotations: Record<string, unknown> = {
    readOnlyHint: readOnly,
    destructiveHint: caps.destructive,
    openWorldHint: caps.externalSend || caps.untrustedInput,
  };
  if (title !== undefined) annotations.title = title;
  // An explicit `undefined` means "not given", so it never erases a derived hint.
  for (const [key, value] of Object.entries(explicit ?? {})) {
    if (value !== undefined) annotations[key] = value;
  }
  return annotations as ToolAnnotations;
}
