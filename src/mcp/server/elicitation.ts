import type { ToolInteractionRequest } from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import type { JsonRpcResponse } from "../json-rpc.ts";
import type { McpElicitParams } from "../protocol.ts";

/** The single field a text question becomes in its elicitation form. */
const TEXT_FIELD = "text";

/**
 * Returns the `elicitation/create` params for a tool's question. MCP elicitation is form-only,
 * so a text question becomes a form with one required string field named `text`.
 *
 * @param request The tool's question.
 * @param protocolVersion The revision in use; 2025-11-25 gets an explicit `mode: "form"`.
 * @returns The params.
 */
export function toElicitParams(
  request: ToolInteractionRequest,
  protocolVersion: string | undefined,
): McpElicitParams {
  const schema =
    request.kind.type === "form"
      ? { type: "object", ...request.kind.schema }
      : {
          type: "object",
          properties: { [TEXT_FIELD]: { type: "string", title: request.prompt } },
          required: [TEXT_FIELD],
        };
  const params: McpElicitParams = { message: request.prompt, requestedSchema: schema };
  return protocolVersion === "2025-11-25" ? { mode: "form", ...params } : params;
}

/**
 * Returns the interaction response for the client's answer: `accept` submits its content
 * (the `text` field for a text question), `decline` declines, `cancel`, a JSON-RPC error or a
 * malformed answer cancels.
 *
 * @param request The question asked.
 * @param response The client's JSON-RPC response.
 * @returns The response to step the handler with.
 */
export function toInteractionResponse(
  request: ToolInteractionRequest,
  response: JsonRpcResponse,
): ToolInteractionResponse {
  const id = request.id;
  if ("error" in response) {
    return { type: "cancel", id, reason: `the client could not answer: ${response.error.message}` };
  }
  const { action, content } = response.result;
  if (action === "decline") return { type: "decline", id };
  if (action === "cancel") return { type: "cancel", id };
  if (action !== "accept" || (content !== undefined && !isJsonObject(content))) {
    return { type: "cancel", id, reason: "the client's answer was malformed" };
  }
  const fields = (content ?? {}) as Record<string, unknown>;
  if (request.kind.type === "form") return { type: "submit", id, content: fields };
  const text = fields[TEXT_FIELD];
  if (typeof text !== "string") {
    return { type: "cancel", id, reason: "the client's answer has no text" };
  }
  return { type: "submit", id, content: text };
}
