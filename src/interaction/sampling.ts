/**
 * One block of a sampling message or reply, as in MCP
 * (`data` is base64).
 */
export type SamplingContent =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string }
  | { type: "audio"; mimeType: string; data: string };

/** One turn of the conversation a tool asks a model to continue. */
export interface SamplingMessage {
  /** Who said it. */
  role: "user" | "assistant";
  /** What was said. */
  content: SamplingContent;
}

/**
 * What a tool asks the caller's model for. The caller chooses the
 * model and may adjust or refuse the request; a person should see it first.
 */
export interface SamplingRequest {
  /** The conversation to continue (at least one message). */
  messages: SamplingMessage[];
  /** The most tokens to generate (a positive integer); the caller may generate fewer. */
  maxTokens: number;
  /** A system prompt the tool would like used; the caller may change or drop it. */
  systemPrompt?: string;
  /** The sampling temperature the tool would like. */
  temperature?: number;
  /** Sequences that end generation. */
  stopSequences?: string[];
}

/** The caller's model reply to a sampling request. */
export interface SamplingResult {
  /** Always `assistant`: the model speaks. */
  role: "assistant";
  /** The reply. */
  content: SamplingContent;
  /** The model that produced it. */
  model: string;
  /** Why generation stopped (`endTurn`, `stopSequence`, `maxTokens`, or the provider's own). */
  stopReason?: string;
}

/**
 * Returns what to show a person for a sampling request: the text of its last text message, so
 * an approval prompt shows what the model is asked; empty when there is none.
 *
 * @param messages The request's messages (anything: the request may not be checked yet).
 * @returns The prompt.
 */
export function samplingPrompt(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  for (let index = messages.length - 1; index >= 0; index--) {
    const content = (messages[index] as { content?: unknown } | null)?.content;
    const { type, text } = (content ?? {}) as { type?: unknown; text?: unknown };
    if (type === "text" && typeof text === "string") return text;
  }
  return "";
}
