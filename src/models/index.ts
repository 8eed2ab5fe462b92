/**
 * Models: one `Model` interface, whose `stream()` returns a `ReadableStream<ModelEvent>`, and
 * three implementations of it: `openAICompatible` (Chat Completions: OpenAI, Azure, Groq,
 * Mistral, DeepSeek, OpenRouter, Ollama, LM Studio, vLLM, llama.cpp), `anthropic` (the Messages
 * API, callable straight from a browser) and `scriptedModel` (deterministic, for tests and
 * offline demos). Any AI SDK provider model runs through `toolwire/ai-sdk`.
 *
 * @example
 * ```ts
 * import { openAICompatible } from "toolwire/models";
 *
 * const model = openAICompatible({ baseURL: "http://127.0.0.1:11434/v1", model: "qwen3" });
 * const reader = model.stream({ messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }], tools: [] }).getReader();
 * for (let r = await reader.read(); !r.done; r = await reader.read()) {
 *   if (r.value.type === "text_delta") console.log(r.value.text);
 * }
 * ```
 *
 * @module
 */

export { type AnthropicOptions, anthropic } from "./anthropic.ts";
export {
  type Block,
  type ImageBlock,
  type Message,
  type ReasoningBlock,
  type ServerToolBlock,
  type TextBlock,
  TOOL_RESULT_MARKS,
  type ToolResultBlock,
  type ToolResultMark,
  type ToolUseBlock,
} from "./message.ts";
export {
  FINISH_REASONS,
  type FinishReason,
  type Model,
  type ModelEvent,
  type ModelRequest,
  type ModelSettings,
  type ModelStreamOptions,
  type ModelTool,
  type ModelUsage,
  type ToolChoice,
} from "./model.ts";
export {
  isModelError,
  MODEL_ERROR_TYPES,
  ModelError,
  type ModelErrorData,
  type ModelErrorType,
} from "./model-error.ts";
export { type OpenAICompatibleOptions, openAICompatible } from "./openai-compatible.ts";
export type { RetryOptions } from "./provider.ts";
export {
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptedTurns,
  scriptedModel,
} from "./scripted-model.ts";
export {
  createToolCallParser,
  type ParsedToolCalls,
  parseToolCalls,
  type TextToolCall,
  TOOL_CALL_FORMATS,
  type ToolCallFormat,
  type ToolCallParser,
  type ToolCallTextOptions,
  type ToolCallTextPart,
} from "./tool-call-text.ts";
