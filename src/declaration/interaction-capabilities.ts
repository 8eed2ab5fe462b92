/**
 * Which caller interactions a tool may request. A request
 * of an undeclared kind fails with `undeclared_interaction`.
 */
export interface InteractionCapabilities {
  /** May ask for a JSON object described by a schema. */
  form: boolean;
  /** Form replies are validated against the schema. */
  formSchemaValidation: boolean;
  /** May ask for a line of text. */
  text: boolean;
  /** May ask for several lines of text; also allows single-line text (one line is a text too). */
  multilineText: boolean;
  /** May ask the caller's model for a reply (`requestSampling`; MCP `sampling/createMessage`). */
  sampling: boolean;
  /** May ask for the caller's roots (`requestRoots`; MCP `roots/list`). */
  roots: boolean;
}

/**
 * Creates interaction capabilities, every flag not given being `false`.
 *
 * @param partial The flags to set.
 * @returns The capabilities.
 */
export function interactionCapabilities(
  partial: Partial<InteractionCapabilities> = {},
): InteractionCapabilities {
  return {
    form: partial.form === true,
    formSchemaValidation: partial.formSchemaValidation === true,
    text: partial.text === true,
    multilineText: partial.multilineText === true,
    sampling: partial.sampling === true,
    roots: partial.roots === true,
  };
}
