// A tool's question on the wire: text and form questions travel as `elicitation/create`,
// sampling requests as `sampling/createMessage`, a request for roots as `roots/list`, and the client's answer comes back as the
// response the core's `submit`/`decline`/`cancel` expects, with the same shapes as a local call
// (a text question is answered with a string). The codec of each revision sends it: 2025 as a request on the call's stream (`codec-2025.ts`),
// 2026 inside `input_required` (`mrtr.ts`).

import { unreachable } from "../../errors.ts";
import type {
  ToolInteractionKind,
  ToolInteractionRequest,
} from "../../interaction/interaction-request.ts";
import type { ToolInteractionResponse } from "../../interaction/interaction-response.ts";
import { readSamplingResult } from "../../interaction/read-sampling.ts";
import { NOT_ROOTS, readRoots } from "../../interaction/roots.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { type JsonRpcRequest, type JsonRpcResponse, jsonRpcRequest } from "../json-rpc.ts";
import type { McpCreateMessageParams, McpElicitParams } from "../protocol.ts";
import type { ClientCapabilities } from "./core.ts";

/** The client capability a question needs: `elicitation` for text and form, else its own. */
export function capabilityFor(kind: ToolInteractionKind): keyof ClientCapabilities {
  switch (kind.type) {
    case "text":
    case "form":
      return "elicitation";
    case "sampling":
      return "sampling";
    case "roots":
      return "roots";
    default:
      return unreachable(kind);
  }
}

/**
 * Whether the client may be asked for a capability. A stateless server never saw the client's
 * `initialize`, so choosing `interactionPolicy: "elicit"` assumes it may (`undefined`); a
 * session knows what the client declared.
 */
export function clientDeclares(
  capabilities: ClientCapabilities | undefined,
  capability: keyof ClientCapabilities,
): boolean {
  return capabilities === undefined || capabilities[capability];
}

/**
 * The server-to-client request that asks a tool's question, sent with `id`. MCP elicitation is
 * form-only, so a text question becomes a form with one required string field named `text`;
 * revision 2025-11-25 gets an explicit `mode: "form"`.
 */
export function questionFor(
  request: ToolInteractionRequest,
  id: string,
  protocolVersion: string | undefined,
): JsonRpcRequest {
  const kind = request.kind;
  switch (kind.type) {
    case "text":
    case "form": {
      const schema =
        kind.type === "form"
          ? { type: "object", ...kind.schema }
          : {
              type: "object",
              properties: { [TEXT_FIELD]: { type: "string", title: request.prompt } },
              required: [TEXT_FIELD],
            };
      const params: McpElicitParams = { message: request.prompt, requestedSchema: schema };
      return jsonRpcRequest(
        id,
        "elicitation/create",
        protocolVersion === "2025-11-25" ? { mode: "form", ...params } : { ...params },
      );
    }
    case "sampling": {
      const params: McpCreateMessageParams = {
        messages: kind.messages.map(({ role, content }) => ({ role, content: { ...content } })),
        maxTokens: kind.maxTokens,
      };
      if (kind.systemPrompt !== undefined) params.systemPrompt = kind.systemPrompt;
      if (kind.temperature !== undefined) params.temperature = kind.temperature;
      if (kind.stopSequences !== undefined) params.stopSequences = kind.stopSequences.slice();
      return jsonRpcRequest(id, "sampling/createMessage", { ...params });
    }
    case "roots":
      return jsonRpcRequest(id, "roots/list", {});
    default:
      return unreachable(kind);
  }
}

/** The single field a text question becomes in its elicitation form. */
const TEXT_FIELD = "text";

/**
 * The core's response to a question from the client's answer to `questionFor`'s request.
 *
 * Elicitation: `accept` submits its content (for a text question, the `text` field's string, so
 * the tool receives what a local `requestText` returns); `decline` declines; `cancel`, a JSON-RPC
 * error or a malformed answer cancels.
 *
 * Sampling: a result submits a clean `SamplingResult`; a JSON-RPC error declines (that is how a
 * client, or the person behind it, refuses: `-1`, "User rejected sampling request"), so the tool
 * may carry on; a malformed result cancels. Roots: a `ListRootsResult` submits its clean
 * `roots`, an error declines, a malformed result cancels.
 */
export function answerFrom(
  request: ToolInteractionRequest,
  response: JsonRpcResponse,
): ToolInteractionResponse {
  const id = request.id;
  if (request.kind.type === "roots") {
    if ("error" in response) {
      return { type: "decline", id, reason: `the client refused: ${response.error.message}` };
    }
    const roots = readRoots(response.result.roots);
    if (!roots) return { type: "cancel", id, reason: `the client's roots ${NOT_ROOTS}` };
    return { type: "submit", id, content: roots };
  }
  if (request.kind.type === "sampling") {
    if ("error" in response) {
      return { type: "decline", id, reason: `the client refused: ${response.error.message}` };
    }
    const result = readSamplingResult(response.result);
    if (typeof result === "string") {
      return { type: "cancel", id, reason: `the client's sampling result is malformed: ${result}` };
    }
    return { type: "submit", id, content: result };
  }
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
