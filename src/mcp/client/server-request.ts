// What a server may ask during a call. In 2025 it asks on the call's stream: `ping` is answered
// at once; a form `elicitation/create`, a `sampling/createMessage` and a `roots/list` become
// questions for the caller (each when enabled), answered through the same `onInteraction` path as a local tool's
// (design.md M6); the caller's reply goes back in MCP's shape. In 2026-07-28 the same
// questions arrive as the `inputRequests` of an `input_required` result, and the replies go
// into the retry's `inputResponses`.

import type { ToolName } from "../../declaration/tool-name.ts";
import { ToolError, unreachable } from "../../errors.ts";
import {
  newInteractionId,
  type ToolInteractionRequest,
} from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import { readSamplingRequest, readSamplingResult } from "../../interaction/read-sampling.ts";
import { ROOTS_PROMPT } from "../../interaction/roots.ts";
import { samplingPrompt } from "../../interaction/sampling.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { measureJson } from "../../schema/measure-json.ts";
import {
  JSON_RPC_ERROR,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcParams,
  type JsonRpcRequest,
  jsonRpcError,
  jsonRpcResult,
} from "../json-rpc.ts";
import type { McpElicitResult } from "../protocol.ts";

/**
 * The JSON-RPC error code of a refused sampling request (the MCP specification's own example),
 * used for a refused roots request too.
 */
export const SAMPLING_REFUSED = -1;

/** The single string field a text question travels as in MCP's form-only elicitation. */
const TEXT_FIELD = "text";

// `connectMcp`'s default `maxSchemaDepth`.
const DEFAULT_MAX_SCHEMA_DEPTH = 128;

/** What the client takes from a server: forms, sampling, roots, how deep a form's schema may be. */
export interface ServerRequestFlags {
  formInteractions: boolean;
  samplingInteractions: boolean;
  rootsInteractions?: boolean | undefined;
  /** Deepest `requestedSchema` taken as a question (default 128); a deeper one is declined. */
  maxSchemaDepth?: number | undefined;
}

/** What to do with a server request: ask the caller, or send this reply at once. */
export type ServerRequestOutcome =
  | { type: "ask"; request: ToolInteractionRequest }
  | { type: "reply"; message: JsonRpcMessage };

/**
 * Returns what to do with a request the server sent on a call's stream: `ping` is answered,
 * a form `elicitation/create` (with form interactions), a `sampling/createMessage` (with
 * sampling interactions) and a `roots/list` (with roots interactions) become questions for the
 * caller; an elicitation the client cannot
 * take is declined, a sampling request it cannot take gets an error (method not found when
 * sampling is off, invalid params when it asks for what toolwire cannot represent), and any
 * other method gets method not found.
 */
export function handleServerRequest(
  message: JsonRpcRequest,
  flags: ServerRequestFlags,
  context: { toolName: ToolName; callId: string | undefined },
): ServerRequestOutcome {
  const { id, method, params = {} } = message;
  const reply = (answer: JsonRpcMessage): ServerRequestOutcome => ({
    type: "reply",
    message: answer,
  });
  if (method === "ping") return reply(jsonRpcResult(id, {}));
  const question = questionOf(method, params, flags, context);
  if (typeof question !== "string") return { type: "ask", request: question };
  if (method === "elicitation/create") return reply(jsonRpcResult(id, { action: "decline" }));
  if (question) return reply(jsonRpcError(id, JSON_RPC_ERROR.invalidParams, question));
  return reply(jsonRpcError(id, JSON_RPC_ERROR.methodNotFound, `${method} is not supported`));
}

/**
 * Returns the answer to the server's request for the caller's reply to the question it became:
 * an elicitation result for a form (a text reply, a string, goes back as `{ text }`), a
 * sampling result or error for sampling.
 */
export function replyToServer(
  request: ToolInteractionRequest,
  id: JsonRpcId,
  response: ToolInteractionResponse,
): JsonRpcMessage {
  const kind = request.kind;
  switch (kind.type) {
    case "text":
    case "form":
      return jsonRpcResult(id, { ...elicitResultFor(response, kind.type === "text") });
    case "sampling":
      return samplingReplyFor(id, response);
    case "roots":
      // A declined or cancelled question for roots is an error, as a client without roots sends.
      return response.type === "submit"
        ? jsonRpcResult(id, { roots: response.content as JsonRpcParams[] })
        : jsonRpcError(id, SAMPLING_REFUSED, "User rejected roots request");
    default:
      return unreachable(kind);
  }
}

/** What to do with one `inputRequests` entry of a 2026-07-28 `input_required` result. */
export type InputRequestOutcome =
  | { type: "ask"; request: ToolInteractionRequest }
  | { type: "answer"; value: Record<string, unknown> }
  | { type: "fail"; error: ToolError };

/**
 * Returns what to do with one `inputRequests` entry: a form elicitation (with form
 * interactions) or a sampling request (with sampling interactions) becomes a question; any
 * other elicitation (URL mode, or forms off) is answered `decline`, `roots/list` (with roots
 * interactions) becomes a question, else is answered with no roots;
 * a sampling request the client cannot take, or an unknown method, fails the call
 * (`interaction_declined`, `protocol`), since a 2026 client that cannot answer does not retry.
 */
export function handleInputRequest(
  entry: unknown,
  flags: ServerRequestFlags,
  context: { toolName: ToolName; callId: string | undefined },
): InputRequestOutcome {
  const method = isJsonObject(entry) ? entry.method : undefined;
  const params = isJsonObject(entry) && isJsonObject(entry.params) ? entry.params : {};
  const question = questionOf(method, params, flags, context);
  if (typeof question !== "string") return { type: "ask", request: question };
  if (method === "elicitation/create") return { type: "answer", value: { action: "decline" } };
  if (method === "roots/list") return { type: "answer", value: { roots: [] } };
  const tool = context.toolName;
  if (method === "sampling/createMessage") {
    const reason = question || "sampling interactions are off (`samplingInteractions`)";
    return { type: "fail", error: new ToolError({ type: "interaction_declined", tool, reason }) };
  }
  const shown = JSON.stringify(String(method)).slice(0, 60);
  const message = `\`${tool}\` asked for input by ${shown}, which this client does not answer`;
  return { type: "fail", error: new ToolError({ type: "protocol", message }) };
}

/**
 * Returns the `inputResponses` value for the caller's reply to a question from `inputRequests`:
 * an elicitation result for a form or text question, a `CreateMessageResult` for sampling, a
 * `ListRootsResult` for roots. A declined or cancelled sampling or roots request has no answer
 * in 2026-07-28, so it is an `interaction_declined` error that ends the call.
 */
export function inputResponseFor(
  request: ToolInteractionRequest,
  response: ToolInteractionResponse,
): Record<string, unknown> | ToolError {
  const kind = request.kind;
  const tool = request.toolName;
  if (kind.type === "roots") {
    if (response.type === "submit") return { roots: response.content };
    const reason = response.type === "decline" ? response.reason : undefined;
    return new ToolError({
      type: "interaction_declined",
      tool,
      reason: reason ?? "the caller did not list its roots",
    });
  }
  if (kind.type !== "sampling") return { ...elicitResultFor(response, kind.type === "text") };
  if (response.type !== "submit") {
    const reason = response.reason ?? "the caller declined the sampling request";
    return new ToolError({ type: "interaction_declined", tool, reason });
  }
  const result = readSamplingResult(response.content);
  if (typeof result === "string")
    return new ToolError({ type: "interaction_declined", tool, reason: result });
  return { ...result };
}

/**
 * Returns the interaction for an `elicitation/create` request, or `undefined` when it is not a
 * form elicitation (URL mode, or no `requestedSchema`, or one nested deeper than
 * `maxSchemaDepth`), which the client declines. A form of
 * exactly one required string field `text` (how a toolwire server sends a tool's text
 * question) becomes a text question, answered with a string like a local one; any other form
 * is a form question with `schemaValidation: true`.
 */
export function interactionFromElicitation(
  params: JsonRpcParams,
  context: { toolName: ToolName; callId: string | undefined },
  maxSchemaDepth = DEFAULT_MAX_SCHEMA_DEPTH,
): ToolInteractionRequest | undefined {
  const { mode, message, requestedSchema } = params;
  if ((mode !== undefined && mode !== "form") || !isJsonObject(requestedSchema)) return undefined;
  // A schema nested past the limit would overflow the stack of whatever shows or checks it.
  if (measureJson(requestedSchema).depth > maxSchemaDepth) return undefined;
  const request: ToolInteractionRequest = {
    id: newInteractionId(),
    toolName: context.toolName,
    prompt: typeof message === "string" ? message : "",
    kind: isTextQuestion(requestedSchema)
      ? { type: "text", multiline: false }
      : { type: "form", schema: requestedSchema, schemaValidation: true },
  };
  if (context.callId !== undefined) request.callId = context.callId;
  return request;
}

function isTextQuestion(schema: Record<string, unknown>): boolean {
  const { properties, required } = schema;
  if (!isJsonObject(properties)) return false;
  const keys = Object.keys(properties);
  const field = properties[TEXT_FIELD];
  return (
    keys.length === 1 &&
    isJsonObject(field) &&
    field.type === "string" &&
    Array.isArray(required) &&
    required.length === 1 &&
    required[0] === TEXT_FIELD
  );
}

function elicitResultFor(response: ToolInteractionResponse, text: boolean): McpElicitResult {
  switch (response.type) {
    case "submit":
      return {
        action: "accept",
        content: text
          ? { [TEXT_FIELD]: response.content as string }
          : (response.content as Record<string, unknown>),
      };
    case "decline":
      return { action: "decline" };
    case "cancel":
      return { action: "cancel" };
    default:
      return unreachable(response);
  }
}

/**
 * Returns the sampling interaction for a `sampling/createMessage` request, or a phrase saying
 * why it cannot be one: tool use (`tools`, `toolChoice`) was not declared, and content must be
 * single text, image or audio blocks. `modelPreferences`, `includeContext` and `metadata` are
 * hints the caller may ignore, so they are dropped.
 *
 * @see https://modelcontextprotocol.io/specification/2025-06-18/client/sampling
 */
export function interactionFromSampling(
  params: JsonRpcParams,
  context: { toolName: ToolName; callId: string | undefined },
): ToolInteractionRequest | string {
  if (params.tools !== undefined || params.toolChoice !== undefined) {
    return "sampling with tools needs the sampling.tools capability, which was not declared";
  }
  const read = readSamplingRequest(params);
  if (typeof read === "string") return read;
  const request: ToolInteractionRequest = {
    id: newInteractionId(),
    toolName: context.toolName,
    prompt: samplingPrompt(read.messages),
    kind: { type: "sampling", ...read },
  };
  if (context.callId !== undefined) request.callId = context.callId;
  return request;
}

/**
 * The question a server's request becomes, in either revision: a form elicitation with form
 * interactions, a sampling request with sampling interactions, `roots/list` with roots
 * interactions. Otherwise why not: a phrase for a sampling request toolwire cannot represent,
 * else `""` (the kind is off, the elicitation is not a form, or another method).
 */
function questionOf(
  method: unknown,
  params: JsonRpcParams,
  flags: ServerRequestFlags,
  context: { toolName: ToolName; callId: string | undefined },
): ToolInteractionRequest | string {
  if (method === "elicitation/create" && flags.formInteractions) {
    return interactionFromElicitation(params, context, flags.maxSchemaDepth) ?? "";
  }
  if (method === "sampling/createMessage" && flags.samplingInteractions) {
    return interactionFromSampling(params, context);
  }
  if (method === "roots/list" && flags.rootsInteractions) return rootsInteraction(context);
  return "";
}

/** The roots question a server's `roots/list` becomes. */
function rootsInteraction(context: {
  toolName: ToolName;
  callId: string | undefined;
}): ToolInteractionRequest {
  const request: ToolInteractionRequest = {
    id: newInteractionId(),
    toolName: context.toolName,
    prompt: ROOTS_PROMPT,
    kind: { type: "roots" },
  };
  if (context.callId !== undefined) request.callId = context.callId;
  return request;
}

/**
 * Returns the answer to `sampling/createMessage` for the caller's reply: submit → the model's
 * result, decline → error `-1` "User rejected sampling request", cancel → error `-1` too (the
 * call itself is cancelled separately).
 */
export function samplingReplyFor(id: JsonRpcId, response: ToolInteractionResponse): JsonRpcMessage {
  switch (response.type) {
    case "submit": {
      const result = readSamplingResult(response.content);
      // the reply was checked already; this strips fields the server should not see.
      if (typeof result === "string") return refused(id, result);
      return jsonRpcResult(id, { ...result });
    }
    case "decline":
      return refused(id, response.reason);
    case "cancel":
      return jsonRpcError(id, SAMPLING_REFUSED, "User cancelled the tool call");
    default:
      return unreachable(response);
  }
}

function refused(id: JsonRpcId, reason: string | undefined): JsonRpcMessage {
  const message = "User rejected sampling request";
  return jsonRpcError(
    id,
    SAMPLING_REFUSED,
    reason === undefined ? message : `${message}: ${reason}`,
  );
}
