import type {
  ToolInteractionKind,
  ToolInteractionRequest,
} from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import { readSamplingResult } from "../../interaction/read-sampling.ts";
import type { JsonRpcResponse } from "../json-rpc.ts";
import type { McpCreateMessageParams } from "../protocol.ts";

/**
 * Returns the `sampling/createMessage` params for a tool's sampling request: its messages,
 * `maxTokens` and whichever of `systemPrompt`, `temperature` and `stopSequences` it set.
 *
 * @param kind The tool's sampling request.
 * @returns The params.
 * @see https://modelcontextprotocol.io/specification/2025-06-18/client/sampling
 */
export function toCreateMessageParams(
  kind: Extract<ToolInteractionKind, { type: "sampling" }>,
): McpCreateMessageParams {
  const params: McpCreateMessageParams = {
    messages: kind.messages.map(({ role, content }) => ({ role, content: { ...content } })),
    maxTokens: kind.maxTokens,
  };
  if (kind.systemPrompt !== undefined) params.systemPrompt = kind.systemPrompt;
  if (kind.temperature !== undefined) params.temperature = kind.temperature;
  if (kind.stopSequences !== undefined) params.stopSequences = kind.stopSequences.slice();
  return params;
}

/**
 * Returns the interaction response for the client's answer to `sampling/createMessage`: a
 * result submits a clean `SamplingResult`; a JSON-RPC error declines (that is how a client, or
 * the person behind it, refuses: `-1`, "User rejected sampling request"), so the tool may carry
 * on; a malformed result cancels.
 *
 * @param request The tool's question.
 * @param response The client's JSON-RPC response.
 * @returns The response to step the handler with.
 */
export function samplingResponse(
  request: ToolInteractionRequest,
  response: JsonRpcResponse,
): ToolInteractionResponse {
  const id = request.id;
  if ("error" in response) {
    return { type: "decline", id, reason: `the client refused: ${response.error.message}` };
  }
  const result = readSamplingResult(response.result);
  if (typeof result === "string") {
    return { type: "cancel", id, reason: `the client's sampling result is malformed: ${result}` };
  }
  return { type: "submit", id, content: result };
}
