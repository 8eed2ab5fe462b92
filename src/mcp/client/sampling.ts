import type { ToolName } from "../../declaration/tool-name.ts";
import { unreachable } from "../../errors.ts";
import {
  newInteractionId,
  type ToolInteractionRequest,
} from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import { readSamplingRequest, readSamplingResult } from "../../interaction/read-sampling.ts";
import { samplingPrompt } from "../../interaction/sampling.ts";
import {
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcParams,
  jsonRpcError,
  jsonRpcResult,
} from "../json-rpc.ts";

/** The JSON-RPC error code of a refused sampling request (the MCP specification's own example). */
export const SAMPLING_REFUSED = -1;

/**
 * Returns the sampling interaction for a `sampling/createMessage` request, or a phrase saying
 * why it cannot be one: tool use (`tools`, `toolChoice`) was not declared, and content must be
 * single text, image or audio blocks. `modelPreferences`, `includeContext` and `metadata` are
 * hints the caller may ignore, so they are dropped.
 *
 * @param params The request's params.
 * @param context The asking tool's name and the invocation's call id.
 * @returns The interaction request with a fresh id, or the reason to refuse.
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
 * Returns the answer to `sampling/createMessage` for the caller's reply: submit → the model's
 * result, decline → error `-1` "User rejected sampling request", cancel → error `-1` too (the
 * call itself is cancelled separately).
 *
 * @param id The server's request id.
 * @param response The checked reply.
 * @returns The JSON-RPC response to send.
 */
export function samplingReplyFor(id: JsonRpcId, response: ToolInteractionResponse): JsonRpcMessage {
  switch (response.type) {
    case "submit": {
      const result = readSamplingResult(response.content);
      // Hint: the reply was checked already; this strips fields the server should not see.
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
