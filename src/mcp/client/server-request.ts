import type { ToolName } from "../../declaration/tool-name.ts";
import { unreachable } from "../../errors.ts";
import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import {
  JSON_RPC_ERROR,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  jsonRpcError,
  jsonRpcResult,
} from "../json-rpc.ts";
import { elicitResultFor, interactionFromElicitation } from "./elicitation.ts";
import { interactionFromSampling, samplingReplyFor } from "./sampling.ts";

/**
 * Server request outcome type: a question for the caller (`ask`), or the answer to send at once
 * (`reply`).
 */
export type ServerRequestOutcome =
  | { type: "ask"; request: ToolInteractionRequest }
  | { type: "reply"; message: JsonRpcMessage };

/**
 * Returns what to do with a request the server sent on a call's stream: `ping` is answered,
 * a form `elicitation/create` (with form interactions) and a `sampling/createMessage` (with
 * sampling interactions) become questions for the caller; an elicitation the client cannot
 * take is declined, a sampling request it cannot take gets an error (method not found when
 * sampling is off, invalid params when it asks for what toolwire cannot represent), and any
 * other method gets method not found.
 *
 * @param message The server's request.
 * @param flags Which interactions the client enabled.
 * @param context The asking tool's name and the invocation's call id.
 * @returns The outcome.
 */
export function handleServerRequest(
  message: JsonRpcRequest,
  flags: { formInteractions: boolean; samplingInteractions: boolean },
  context: { toolName: ToolName; callId: string | undefined },
): ServerRequestOutcome {
  const { id, method, params = {} } = message;
  const reply = (answer: JsonRpcMessage): ServerRequestOutcome => ({
    type: "reply",
    message: answer,
  });
  if (method === "ping") return reply(jsonRpcResult(id, {}));
  if (method === "elicitation/create") {
    const request = flags.formInteractions
      ? interactionFromElicitation(params, context)
      : undefined;
    return request ? { type: "ask", request } : reply(jsonRpcResult(id, { action: "decline" }));
  }
  if (method === "sampling/createMessage" && flags.samplingInteractions) {
    const request = interactionFromSampling(params, context);
    if (typeof request !== "string") return { type: "ask", request };
    return reply(jsonRpcError(id, JSON_RPC_ERROR.invalidParams, request));
  }
  return reply(jsonRpcError(id, JSON_RPC_ERROR.methodNotFound, `${method} is not supported`));
}

/**
 * Returns the answer to the server's request for the caller's reply to the question it became:
 * an elicitation result for a form, a sampling result or error for sampling.
 *
 * @param request The question.
 * @param id The server's request id.
 * @param response The caller's checked reply (or a decline the client makes itself).
 * @returns The JSON-RPC response to send.
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
      return jsonRpcResult(id, { ...elicitResultFor(response) });
    case "sampling":
      return samplingReplyFor(id, response);
    default:
      return unreachable(kind);
  }
}
