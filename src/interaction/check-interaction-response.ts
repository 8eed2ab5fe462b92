import { ToolError, unreachable } from "../errors.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
import type { JsonSchemaValidator } from "../schema/schema-input.ts";
import type { ToolInteractionRequest } from "./interaction-request.ts";
import type { ToolInteractionResponse } from "./interaction-response.ts";
import { readSamplingResult } from "./read-sampling.ts";
import { NOT_ROOTS, readRoots } from "./roots.ts";

/**
 * Checks a reply against the pending request: the id must match exactly, a text reply must be a
 * string, a form reply an object that, when the request asks for it and a validator is given,
 * satisfies the schema, a sampling reply a `SamplingResult` (`role: "assistant"`, one
 * content block, `model`), and a roots reply a `Root[]`.
 *
 * @param request The pending request.
 * @param response The caller's reply.
 * @param validator What applies a form's schema; without it the asker alone checks the reply.
 * @throws ToolError `invalid_interaction` naming what is wrong; what the validator throws
 * (`invalid_configuration`) when the request's own schema cannot be applied (the asker's
 * fault, not the reply's).
 */
export async function checkInteractionResponse(
  request: ToolInteractionRequest,
  response: ToolInteractionResponse,
  validator: JsonSchemaValidator | undefined,
): Promise<void> {
  const invalid = (message: string) =>
    new ToolError({ type: "invalid_interaction", id: String(response?.id), message });
  if (typeof response !== "object" || response === null)
    throw invalid("the reply must be an object");
  if (response.id !== request.id) throw invalid(`the reply must echo the pending id ${request.id}`);
  if (response.type === "decline" || response.type === "cancel") return;
  if (response.type !== "submit")
    throw invalid(`unknown reply type ${JSON.stringify((response as { type: unknown }).type)}`);
  const { content } = response;
  const kind = request.kind;
  switch (kind.type) {
    case "text":
      if (typeof content !== "string") throw invalid("a text reply must be a string");
      return;
    case "sampling": {
      const read = readSamplingResult(content);
      if (typeof read === "string") throw invalid(`a sampling reply is malformed: ${read}`);
      return;
    }
    case "roots": {
      if (!readRoots(content)) throw invalid(`a roots reply ${NOT_ROOTS}`);
      return;
    }
    case "form":
      break;
    default:
      return unreachable(kind);
  }
  if (!isJsonObject(content)) throw invalid("a form reply must be a JSON object");
  if (!kind.schemaValidation || !validator) return;
  const [first] = validator(kind.schema)(content);
  if (first) {
    throw invalid(
      `the form reply does not match its schema: ${first.path || "/"} ${first.message}`,
    );
  }
}

/**
 * Creates the error for a reply that arrives when no interaction is pending: the handler is
 * still running, has finished, or the reply came twice. Local and remote handlers share it, so
 * the caller sees one message whichever side the tool runs on.
 *
 * @param response The reply, as the caller passed it (its `id` is kept when there is one).
 * @param state The handler's state, such as `running` or `finished`.
 * @returns The `invalid_interaction` error to throw.
 */
export function noPendingInteraction(response: unknown, state: string): ToolError {
  return new ToolError({
    type: "invalid_interaction",
    id: String((response as { id?: unknown } | null | undefined)?.id),
    message:
      `no interaction is pending (the handler is ${state}); answer only the interaction ` +
      "the last step returned, and only once",
  });
}
