import type { InteractionCapabilities } from "../declaration/interaction-capabilities.ts";
import { ToolError } from "../errors.ts";
import type { ToolInteractionKind } from "./interaction-request.ts";

/**
 * Returns what is wrong with a question a tool is about to ask, or `undefined` when it may ask
 * it: the kind must be declared (multiline text also allows single-line text, since a caller
 * that takes several lines takes one), and a form needs a JSON Schema object.
 *
 * @param tool The asking tool's name.
 * @param declared The interactions the tool declared.
 * @param kind What it asks for.
 * @returns `undeclared_interaction` (kind `text`, `multiline_text` or `form`),
 * `invalid_configuration` for a form without a schema object, or `undefined`.
 */
export function checkInteractionRequest(
  tool: string,
  declared: InteractionCapabilities,
  kind: ToolInteractionKind,
): ToolError | undefined {
  const form = kind.type === "form";
  const allowed = form
    ? declared.form
    : declared.multilineText || (!kind.multiline && declared.text);
  if (!allowed) {
    const name = form ? "form" : kind.multiline ? "multiline_text" : "text";
    return new ToolError({ type: "undeclared_interaction", tool, kind: name });
  }
  const schema: unknown = form ? kind.schema : {};
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    const message = `${tool} asked for a form without a JSON Schema object`;
    return new ToolError({ type: "invalid_configuration", message });
  }
  return undefined;
}
