import type { InteractionCapabilities } from "../declaration/interaction-capabilities.ts";
import { ToolError, unreachable } from "../errors.ts";
import { isJsonObject } from "../schema/is-json-object.ts";
import type { ToolInteractionKind } from "./interaction-request.ts";
import { readSamplingRequest } from "./read-sampling.ts";

/**
 * Returns what is wrong with a question a tool is about to ask, or `undefined` when it may ask
 * it: the kind must be declared (multiline text also allows single-line text, since a caller
 * that takes several lines takes one), a form needs a JSON Schema object, and a sampling
 * request needs messages and a positive `maxTokens`.
 *
 * @param tool The asking tool's name.
 * @param declared The interactions the tool declared.
 * @param kind What it asks for.
 * @returns `undeclared_interaction` (kind `text`, `multiline_text`, `form`, `sampling` or
 * `roots`),
 * `invalid_configuration` for a form without a schema object or a malformed sampling request,
 * or `undefined`.
 */
export function checkInteractionRequest(
  tool: string,
  declared: InteractionCapabilities,
  kind: ToolInteractionKind,
): ToolError | undefined {
  const undeclared = (name: string) =>
    new ToolError({ type: "undeclared_interaction", tool, kind: name });
  const invalid = (message: string) =>
    new ToolError({ type: "invalid_configuration", message: `${tool} ${message}` });
  switch (kind.type) {
    case "text":
      if (declared.multilineText || (!kind.multiline && declared.text)) return undefined;
      return undeclared(kind.multiline ? "multiline_text" : "text");
    case "form": {
      if (!declared.form) return undeclared("form");
      const schema: unknown = kind.schema;
      if (isJsonObject(schema)) return undefined;
      return invalid("asked for a form without a JSON Schema object");
    }
    case "sampling": {
      if (!declared.sampling) return undeclared("sampling");
      const read = readSamplingRequest(kind);
      return typeof read === "string" ? invalid(`asked for sampling, but ${read}`) : undefined;
    }
    case "roots":
      return declared.roots ? undefined : undeclared("roots");
    default:
      return unreachable(kind);
  }
}
