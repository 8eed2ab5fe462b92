import type { ToolName } from "../../declaration/tool-name.ts";
import { unreachable } from "../../errors.ts";
import {
  newInteractionId,
  type ToolInteractionRequest,
} from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import type { JsonRpcParams } from "../json-rpc.ts";
import type { McpElicitResult } from "../protocol.ts";

/**
 * Returns the form interaction for an `elicitation/create` request, or `undefined` when it is
 * not a form elicitation (URL mode, or no `requestedSchema`), which the client declines.
 *
 * @param params The request's params.
 * @param context The asking tool's name and the invocation's call id.
 * @returns The interaction request, with a fresh id and `schemaValidation: true`.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 */
export function interactionFromElicitation(
  params: JsonRpcParams,
  context: { toolName: ToolName; callId: string | undefined },
): ToolInteractionRequest | undefined {
  const { mode, message, requestedSchema } = params;
  if ((mode !== undefined && mode !== "form") || !isJsonObject(requestedSchema)) return undefined;
  const request: ToolInteractionRequest = {
    id: newInteractionId(),
    toolName: context.toolName,
    prompt: typeof message === "string" ? message : "",
    kind: { type: "form", schema: requestedSchema, schemaValidation: true },
  };
  if (context.callId !== undefined) request.callId = context.callId;
  return request;
}

/**
 * Returns the `elicitation/create` result for the caller's reply: submit → accept with the
 * content, decline → decline, cancel → cancel.
 *
 * @param response The checked reply.
 * @returns The result to send back.
 */
export function elicitResultFor(response: ToolInteractionResponse): McpElicitResult {
  switch (response.type) {
    case "submit":
      return { action: "accept", content: response.content as Record<string, unknown> };
    case "decline":
      return { action: "decline" };
    case "cancel":
      return { action: "cancel" };
    default:
      return unreachable(response);
  }
}
