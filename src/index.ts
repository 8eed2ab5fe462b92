/**
 * toolwire — tools that run anywhere JavaScript runs.
 *
 * The core: define tools, group them into a `Toolset`, and call them with cancellation,
 * progress and interactions. Agent, MCP and model code live in their own entry points.
 *
 * @example
 * ```ts
 * import * as v from "valibot";
 * import { defineTool, Toolset } from "toolwire";
 *
 * const add = defineTool({
 *   name: "add", description: "Adds two numbers", readOnly: true,
 *   input: v.object({ a: v.number(), b: v.number() }),
 *   call: ({ a, b }) => String(a + b),
 * });
 * const result = await Toolset.local([add]).call("add", { a: 1, b: 2 });
 * ```
 *
 * @module
 */

export {
  type Capabilities,
  capabilities,
  capabilitiesFromAnnotations,
} from "./declaration/capabilities.ts";
export type { CarriedState } from "./declaration/carried-state.ts";
export {
  type InteractionCapabilities,
  interactionCapabilities,
} from "./declaration/interaction-capabilities.ts";
export type { ToolAnnotations, ToolIcon } from "./declaration/tool-annotations.ts";
export {
  isReadOnly,
  type TaskSupport,
  type ToolInfo,
  type ToolSource,
} from "./declaration/tool-info.ts";
export { type ToolName, toolName } from "./declaration/tool-name.ts";
export {
  isToolError,
  TOOL_ERROR_TYPES,
  ToolError,
  type ToolErrorData,
  type ToolErrorInput,
  type ToolErrorType,
  type ValidationIssue,
} from "./errors.ts";
export type { ToolHandlerBackend, ToolsetBackend } from "./execution/backend.ts";
export type {
  StepOptions,
  ToolHandlerInput,
  ToolHandlerOutput,
  ToolLog,
  ToolLogLevel,
  ToolProgress,
} from "./execution/handler-io.ts";
export type { ContentAnnotations, ToolContent } from "./execution/tool-content.ts";
export { isToolResult, ToolResult } from "./execution/tool-result.ts";
export type {
  ToolInteractionKind,
  ToolInteractionRequest,
} from "./interaction/interaction-request.ts";
export {
  InteractionResponse,
  type ToolInteractionResponse,
} from "./interaction/interaction-response.ts";
export type { Root } from "./interaction/roots.ts";
export type {
  SamplingContent,
  SamplingMessage,
  SamplingRequest,
  SamplingResult,
} from "./interaction/sampling.ts";
export {
  type DefineToolOptions,
  defineTool,
  type Tool,
  type ToolContext,
} from "./local/define-tool.ts";
export type {
  McpRequestOperation,
  Observation,
  Observer,
  Operation,
  Outcome,
} from "./observer.ts";
export { JsonSchema, type SchemaStrictness } from "./schema/json-schema.ts";
export type {
  JsonSchemaCheck,
  JsonSchemaValidator,
  RawJsonSchemaInput,
  SchemaInput,
} from "./schema/schema-input.ts";
export {
  type IndexedDbFactoryLike,
  type IndexedDbStoreOptions,
  indexedDbStore,
} from "./store/indexed-db-store.ts";
export {
  type MemoryStoreOptions,
  memoryStore,
  type Store,
  type StoreOptions,
} from "./store/store.ts";
export {
  type DurableObjectStorageLike,
  durableObjectStore,
  type KvNamespaceLike,
  kvStore,
} from "./store/workers-store.ts";
export { type CallOptions, Toolset } from "./toolset/toolset.ts";
