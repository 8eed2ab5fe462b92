import { unreachable } from "../../errors.ts";
import type {
  ToolInteractionKind,
  ToolInteractionRequest,
} from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import { type JsonRpcRequest, type JsonRpcResponse, jsonRpcRequest } from "../json-rpc.ts";
import { toElicitParams, toInteractionResponse } from "./elicitation.ts";
import { samplingResponse, toCreateMessageParams } from "./sampling.ts";
import type { Session } from "./sessions.ts";

/** Client capability type: what a client must declare to be asked a kind of question. */
export type ClientCapability = "elicitation" | "sampling";

/**
 * Returns the client capability a question needs: text and form questions travel as
 * elicitations, sampling requests as `sampling/createMessage`.
 *
 * @param kind The question's kind.
 * @returns The capability.
 */
export function capabilityFor(kind: ToolInteractionKind): ClientCapability {
  switch (kind.type) {
    case "text":
    case "form":
      return "elicitation";
    case "sampling":
      return "sampling";
    default:
      return unreachable(kind);
  }
}

/**
 * Checks whether the client may be asked for a capability. A stateless server never saw the
 * client's `initialize`, so choosing `interactionPolicy: "elicit"` assumes it may; a session
 * knows what the client declared (elicitation in form mode, or any `sampling` object).
 *
 * @param session The caller's session, if any.
 * @param capability The capability the question needs.
 * @returns Whether to send the question.
 */
export function clientDeclares(
  session: Session | undefined,
  capability: ClientCapability,
): boolean {
  if (!session) return true;
  const declared = session.clientCapabilities[capability];
  if (typeof declared !== "object" || declared === null) return false;
  if (capability === "sampling") return true;
  const modes = declared as Record<string, unknown>;
  // Hint: 2025-11-25 lists modes; an empty object (2025-06-18 style) means form.
  return Object.keys(modes).length === 0 || "form" in modes;
}

/**
 * Returns the server-to-client request that asks a tool's question: `elicitation/create` for
 * text and form, `sampling/createMessage` for sampling.
 *
 * @param request The tool's question.
 * @param id The JSON-RPC id to send it with.
 * @param protocolVersion The revision in use.
 * @returns The request.
 */
export function questionFor(
  request: ToolInteractionRequest,
  id: string,
  protocolVersion: string | undefined,
): JsonRpcRequest {
  const kind = request.kind;
  switch (kind.type) {
    case "text":
    case "form":
      return jsonRpcRequest(id, "elicitation/create", {
        ...toElicitParams(request, protocolVersion),
      });
    case "sampling":
      return jsonRpcRequest(id, "sampling/createMessage", { ...toCreateMessageParams(kind) });
    default:
      return unreachable(kind);
  }
}

/**
 * Returns the interaction response for the client's answer to `questionFor`'s request.
 *
 * @param request The tool's question.
 * @param response The client's JSON-RPC response.
 * @returns The response to step the handler with.
 */
export function answerFrom(
  request: ToolInteractionRequest,
  response: JsonRpcResponse,
): ToolInteractionResponse {
  const kind = request.kind;
  switch (kind.type) {
    case "text":
    case "form":
      return toInteractionResponse(request, response);
    case "sampling":
      return samplingResponse(request, response);
    default:
      return unreachable(kind);
  }
}
