/**
 * The caller's reply to a pending request, echoing its `id`.
 * `submit` resumes the tool (a string for text, an object for a form); `decline` refuses the
 * input but lets the tool carry on; `cancel` cancels the whole invocation.
 */
export type ToolInteractionResponse =
  | { type: "submit"; id: string; content: unknown }
  | { type: "decline"; id: string; reason?: string }
  | { type: "cancel"; id: string; reason?: string };

/**
 * Creates interaction responses.
 *
 * @example
 * ```ts
 * await handler.step({ type: "interaction", response: InteractionResponse.submit(request.id, "Chicago") });
 * ```
 */
export const InteractionResponse = {
  /** Supplies the requested input. */
  submit: (id: string, content: unknown): ToolInteractionResponse => ({
    type: "submit",
    id,
    content,
  }),
  /** Refuses to supply input. */
  decline: (id: string, reason?: string): ToolInteractionResponse =>
    reason === undefined ? { type: "decline", id } : { type: "decline", id, reason },
  /** Cancels the interaction and the invocation. */
  cancel: (id: string, reason?: string): ToolInteractionResponse =>
    reason === undefined ? { type: "cancel", id } : { type: "cancel", id, reason },
} as const;
